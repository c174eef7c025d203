// Lab 03 — tiling strategy 1: the block covers the OUTPUT tile; the input tile is loaded into
// shared memory in several steps.
//
// Idea:      a T×T block (T = TILE_WIDTH) computes a T×T output tile, which needs the
//            IN_TILE×IN_TILE input tile around it, IN_TILE = T + K - 1. The block copies that
//            input tile into shared memory in several strided steps (ghost cells as zeros),
//            waits at a barrier, and every thread then reads its K×K window from shared memory.
// You write: the kernel, steps 1–3, and the mask copy, step 4. The launch configuration is
//            given: block T×T, grid ⌈W/T⌉×⌈H/T⌉.
//
// Shapes: N, P height×width row-major; mask K×K in constant memory (K odd, 1..17); block T×T.
// Build and run:  cmake --build --preset gpu --target lab03 && build/bin/lab03 datasets/conv2d
// New to CUDA or to the runner's output (PASS/FAIL lines, mismatches, --error-map): start
// with labs/00-start/README.md.
#include "convlab/lab_api.cuh"
#include "convlab/lab_config.hpp"

namespace convlab::lab03 {
namespace {

constexpr int MAX_MASK_WIDTH = kMaxMaskWidth;             // 17
__constant__ float M_c[MAX_MASK_WIDTH * MAX_MASK_WIDTH];  // the mask, as in lab 02

template <int TILE_WIDTH>
__global__ void __launch_bounds__(TILE_WIDTH * TILE_WIDTH)
tiled_output_kernel(const float* __restrict__ N, float* __restrict__ P, int height, int width,
                    int mask_width) {
  static_assert(TILE_WIDTH >= 1 && TILE_WIDTH * TILE_WIDTH <= 1024,
                "a block holds at most 1024 threads");
  // K is only known at run time, so the shared array is sized for the largest mask; a call
  // with mask width K uses its first IN_TILE² floats.
  constexpr int MAX_IN_TILE = TILE_WIDTH + MAX_MASK_WIDTH - 1;
  static_assert(MAX_IN_TILE * MAX_IN_TILE * sizeof(float) <= 48 * 1024,
                "the input tile must fit in 48 KB of static shared memory");
  // The IN_TILE×IN_TILE input tile, stored densely with a row pitch of IN_TILE (not
  // MAX_IN_TILE): tile element (tr, tc) is tile[tr·IN_TILE + tc].
  __shared__ float tile[MAX_IN_TILE * MAX_IN_TILE];  // tile[IN_TILE·IN_TILE] in use

  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int r = (mask_width - 1) / 2;               // halo width
  const int in_tile = TILE_WIDTH + mask_width - 1;  // IN_TILE
  const int row0 = blockIdx.y * TILE_WIDTH - r;     // image position of tile element (0, 0)
  const int col0 = blockIdx.x * TILE_WIDTH - r;
  // TODO(step 1): load the tile. With tid = ty·TILE_WIDTH + tx:
  //                 for (i = tid; i < in_tile·in_tile; i += TILE_WIDTH²): element i of the tile is
  //                 (tr, tc) = (i / in_tile, i % in_tile), image pixel (row0 + tr, col0 + tc);
  //                 store that pixel at tile[i], or 0 for a ghost cell (do not read N there).
  // TODO(step 2): __syncthreads(): every element must be in place before anyone reads it.
  // TODO(step 3): a thread whose output (blockIdx.y·TILE_WIDTH + ty, blockIdx.x·TILE_WIDTH + tx)
  //               is inside the image sums tile element (ty+p, tx+q), tile[(ty+p)·in_tile + tx+q],
  //               times M_c[p·K+q] over the K×K taps, and writes P.
  (void)tile, (void)M_c, (void)N, (void)P, (void)height, (void)width, (void)tx, (void)ty, (void)in_tile,
      (void)row0, (void)col0;
}

}  // namespace

void conv2d_tiled_output(const Conv2dArgs& a) {
  constexpr int TILE_WIDTH = config::kLab03TileWidth;  // 32
  // TODO(step 4): copy the mask to M_c as in lab 02, then delete the next line.
  not_implemented("lab03: tiled_output_kernel is still the stub");
  const dim3 block(TILE_WIDTH, TILE_WIDTH);
  const dim3 grid((a.width + TILE_WIDTH - 1) / TILE_WIDTH, (a.height + TILE_WIDTH - 1) / TILE_WIDTH);
  tiled_output_kernel<TILE_WIDTH><<<grid, block>>>(a.N, a.P, a.height, a.width, a.mask_width);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace convlab::lab03
