// Lab 05 — tiling strategy 3: only the tile's core goes to shared memory; halo cells are read
// from global memory, where the L1/L2 caches usually hold them already.
//
// Idea:      a T×T block (T = TILE_WIDTH) loads exactly its own T×T input pixels (one per
//            thread, no halo), so block, output tile and shared tile have one shape. A tap
//            inside the core reads shared memory; a tap in the halo reads N, whose neighbouring
//            block loaded it too, so it is likely a cache hit; a ghost tap reads nothing.
// You write: the kernel, steps 1–3, and the mask copy, step 4. The launch configuration is
//            given: block T×T, grid ⌈W/T⌉×⌈H/T⌉.
//
// Shapes: N, P height×width row-major; mask K×K in constant memory (K odd, 1..17); block T×T.
// Build and run:  cmake --build --preset gpu --target lab05 && build/bin/lab05 datasets/conv2d
// New to CUDA or to the runner's output (PASS/FAIL lines, mismatches, --error-map): start
// with labs/00-start/README.md.
#include "convlab/lab_api.cuh"
#include "convlab/lab_config.hpp"

namespace convlab::lab05 {
namespace {

constexpr int MAX_MASK_WIDTH = kMaxMaskWidth;             // 17
__constant__ float M_c[MAX_MASK_WIDTH * MAX_MASK_WIDTH];  // the mask, as in lab 02

template <int TILE_WIDTH>
__global__ void __launch_bounds__(TILE_WIDTH * TILE_WIDTH)
cached_halo_kernel(const float* __restrict__ N, float* __restrict__ P, int height, int width,
                   int mask_width) {
  static_assert(TILE_WIDTH >= 1 && TILE_WIDTH * TILE_WIDTH <= 1024,
                "a block holds at most 1024 threads");
  __shared__ float tile[TILE_WIDTH][TILE_WIDTH];
  // TODO(step 1): this thread's pixel is (row, col) = (blockIdx.y·TILE_WIDTH + ty,
  //               blockIdx.x·TILE_WIDTH + tx): load it into tile[ty][tx] (0 outside the image).
  // TODO(step 2): __syncthreads(). After it, threads outside the image may return.
  // TODO(step 3): for each tap (p, q), r = (mask_width-1)/2: if (ty-r+p, tx-r+q) lies inside
  //               the tile, use tile[ty-r+p][tx-r+q]; else, if image pixel (row-r+p, col-r+q)
  //               is inside the image, read it from N; else it is a ghost cell (skip it).
  //               Multiply by M_c[p·K+q], sum, write P[row][col].
  (void)tile, (void)M_c, (void)N, (void)P, (void)height, (void)width, (void)mask_width;
}

}  // namespace

void conv2d_tiled_cached_halo(const Conv2dArgs& a) {
  constexpr int TILE_WIDTH = config::kLab05TileWidth;  // 32
  // TODO(step 4): copy the mask to M_c as in lab 02, then delete the next line.
  not_implemented("lab05: cached_halo_kernel is still the stub");
  const dim3 block(TILE_WIDTH, TILE_WIDTH);
  const dim3 grid((a.width + TILE_WIDTH - 1) / TILE_WIDTH, (a.height + TILE_WIDTH - 1) / TILE_WIDTH);
  cached_halo_kernel<TILE_WIDTH><<<grid, block>>>(a.N, a.P, a.height, a.width, a.mask_width);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace convlab::lab05
