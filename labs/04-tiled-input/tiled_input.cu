// Lab 04 — tiling strategy 2: the block covers the INPUT tile, loaded in one step; threads
// outside the output tile are turned off for the computation.
//
// Idea:      an I×I block (I = IN_TILE) loads an I×I input tile, one pixel per thread (ghosts
//            as zeros). Only the O×O threads in the middle (O = OUT_TILE = I - K + 1) have a
//            full K×K window inside the tile; they compute, the frame of r = (K-1)/2 threads
//            around them only loads. Consecutive blocks start O pixels apart.
// You write: the kernel, steps 1–3, and the mask copy, step 4. The launch configuration is
//            given: block I×I, grid ⌈W/O⌉×⌈H/O⌉ — the output tile, hence the grid, depends on K.
//
// Shapes: N, P height×width row-major; mask K×K in constant memory (K odd, 1..17); block I×I.
// Build and run:  cmake --build --preset gpu --target lab04 && build/bin/lab04 datasets/conv2d
// New to CUDA or to the runner's output (PASS/FAIL lines, mismatches, --error-map): start
// with labs/00-start/README.md.
#include "convlab/lab_api.cuh"
#include "convlab/lab_config.hpp"

namespace convlab::lab04 {
namespace {

constexpr int MAX_MASK_WIDTH = kMaxMaskWidth;             // 17
__constant__ float M_c[MAX_MASK_WIDTH * MAX_MASK_WIDTH];  // the mask, as in lab 02

template <int IN_TILE>
__global__ void __launch_bounds__(IN_TILE * IN_TILE)
tiled_input_kernel(const float* __restrict__ N, float* __restrict__ P, int height, int width,
                   int mask_width) {
  static_assert(IN_TILE * IN_TILE <= 1024, "a block holds at most 1024 threads");
  static_assert(IN_TILE >= MAX_MASK_WIDTH, "OUT_TILE = IN_TILE - K + 1 must be >= 1 for every K");
  __shared__ float tile[IN_TILE][IN_TILE];
  // TODO(step 1): OUT_TILE = IN_TILE - mask_width + 1, r = (mask_width-1)/2. This thread's
  //               input pixel is (blockIdx.y·OUT_TILE + ty - r, blockIdx.x·OUT_TILE + tx - r):
  //               load it into tile[ty][tx], or 0 for a ghost cell (do not read N there).
  // TODO(step 2): __syncthreads().
  // TODO(step 3): a thread with r ≤ tx < r + OUT_TILE and r ≤ ty < r + OUT_TILE whose output
  //               (the same pixel it loaded) is inside the image sums
  //               tile[ty-r+p][tx-r+q] · M_c[p·K+q] and writes P; the others do nothing.
  (void)tile, (void)M_c, (void)N, (void)P, (void)height, (void)width, (void)mask_width;
}

}  // namespace

void conv2d_tiled_input(const Conv2dArgs& a) {
  constexpr int IN_TILE = config::kLab04InTile;  // 32
  const int out_tile = IN_TILE - a.mask_width + 1;
  // TODO(step 4): copy the mask to M_c as in lab 02, then delete the next line.
  not_implemented("lab04: tiled_input_kernel is still the stub");
  const dim3 block(IN_TILE, IN_TILE);
  const dim3 grid((a.width + out_tile - 1) / out_tile, (a.height + out_tile - 1) / out_tile);
  tiled_input_kernel<IN_TILE><<<grid, block>>>(a.N, a.P, a.height, a.width, a.mask_width);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace convlab::lab04
