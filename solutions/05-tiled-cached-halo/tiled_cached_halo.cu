// Lab 05 — tiling strategy 3: only the tile's core goes to shared memory; halo cells are read
// from global memory, where the L1/L2 caches usually hold them already.
//
// Idea:      a T×T block (T = TILE_WIDTH) computes a T×T output tile and loads exactly the
//            T×T input pixels at the same positions (the core), one per thread: block, output
//            tile and shared tile have one shape. A tap inside the core reads shared memory; a
//            tap in the halo reads N through the caches (the neighbouring block loaded that
//            pixel as part of its own core, so it is likely in L1 or L2); a ghost tap reads
//            nothing.
//
//                 taps of an output near the tile's left edge (K = 5, tx = 1):
//                 q:   0     1     2     3     4
//                    halo  core  core  core  core      halo -> N (cache), core -> tile
//
// Adds:      over lab 04, no idle threads and no multi-step load: one load per thread and a
//            block shape independent of K. The halo's reuse is left to the hardware caches.
// Achieves:  shared memory serves the core taps; the global loads that remain are the halo
//            taps (for K > 1 more than lab 03 loads, but most of them hit in cache). Every tap now
//            carries a core / halo / ghost test, which costs instructions and diverges in the
//            warps at the tile's edges.
//
// Shapes: N, P height×width row-major; mask K×K in constant memory (K odd, 1..17);
//         block T×T; grid ⌈W/T⌉×⌈H/T⌉; shared tile T×T floats.
#include "convlab/ceil_div.hpp"
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
  // A warp (one row ty of 32 threads when T = 32) reads a contiguous row segment of the tile:
  // no bank conflicts.
  __shared__ float tile[TILE_WIDTH][TILE_WIDTH];

  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * TILE_WIDTH + ty;  // this thread's input pixel and output
  const int col = blockIdx.x * TILE_WIDTH + tx;
  const bool inside = row < height && col < width;  // row, col >= 0 always
  tile[ty][tx] = inside ? N[row * width + col] : 0.0f;
  // Every core element must be in place before any thread reads its neighbours' elements.
  __syncthreads();
  if (!inside) return;  // no barrier follows

  const int r = (mask_width - 1) / 2;
  float sum = 0.0f;
  for (int p = 0; p < mask_width; ++p) {
    const int sr = ty - r + p;       // tap row in tile coordinates
    const int in_row = row - r + p;  // tap row in the image
    // The row tests are the same for the whole row of taps (and, for T = 32, for the whole
    // warp): decide them once per p. The column tests differ between threads.
    const bool core_row = sr >= 0 && sr < TILE_WIDTH;
    const bool image_row = in_row >= 0 && in_row < height;
    for (int q = 0; q < mask_width; ++q) {
      const int sc = tx - r + q;
      const int in_col = col - r + q;
      const float m = M_c[p * mask_width + q];
      if (core_row && sc >= 0 && sc < TILE_WIDTH) {
        sum += tile[sr][sc] * m;  // core: shared memory
      } else if (image_row && in_col >= 0 && in_col < width) {
        sum += N[in_row * width + in_col] * m;  // halo: global memory, through L1/L2
      }  // else a ghost cell: zero, nothing read
    }
  }
  P[row * width + col] = sum;
}

}  // namespace

void conv2d_tiled_cached_halo(const Conv2dArgs& a) {
  constexpr int TILE_WIDTH = config::kLab05TileWidth;  // 32
  const int k = a.mask_width;
  CUDA_CHECK(cudaMemcpyToSymbolAsync(M_c, a.M, static_cast<size_t>(k) * k * sizeof(float), 0,
                                     cudaMemcpyDeviceToDevice));
  const dim3 block(TILE_WIDTH, TILE_WIDTH);
  const dim3 grid(ceil_div(a.width, TILE_WIDTH), ceil_div(a.height, TILE_WIDTH));
  cached_halo_kernel<TILE_WIDTH><<<grid, block>>>(a.N, a.P, a.height, a.width, k);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace convlab::lab05
