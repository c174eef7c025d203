// Lab 03 — tiling strategy 1: the block covers the OUTPUT tile; the input tile is loaded into
// shared memory in several steps.
//
// Idea:      a T×T block (T = TILE_WIDTH) computes a T×T output tile. Those outputs need the
//            IN_TILE×IN_TILE input tile around it, IN_TILE = T + K - 1 (the tile plus a halo
//            of r = (K-1)/2 on every side). The block's T² threads copy that tile into shared
//            memory in ⌈IN_TILE²/T²⌉ strided steps, storing ghost cells as zeros without reading
//            them, wait at a barrier, and then each thread reads its K×K window from shared
//            memory.
// Adds:      over lab 02, shared-memory tiling: each input pixel a block needs is read from
//            global memory once per block instead of once per tap that uses it.
// Achieves:  for an interior tile the lecture's bandwidth reduction (T·K)²/(T+K-1)²; at the
//            image edges fewer loads (ghosts are not loaded) and fewer useful taps. Every
//            thread of an interior block computes an output; the price is the multi-step load
//            loop, whose last step leaves some threads idle when T² does not divide IN_TILE².
//
// Shapes: N, P height×width row-major; mask K×K in constant memory (K odd, 1..17);
//         block T×T; grid ⌈W/T⌉×⌈H/T⌉; shared tile (T+16)² floats, used as IN_TILE×IN_TILE.
#include "convlab/ceil_div.hpp"
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
  // K is a run-time value, so the shared array is sized for the largest mask.
  constexpr int MAX_IN_TILE = TILE_WIDTH + MAX_MASK_WIDTH - 1;
  static_assert(MAX_IN_TILE * MAX_IN_TILE * sizeof(float) <= 48 * 1024,
                "the input tile must fit in 48 KB of static shared memory");
  // The IN_TILE×IN_TILE input tile, stored densely with a row pitch of IN_TILE (not
  // MAX_IN_TILE): element (tr, tc) is tile[tr·IN_TILE + tc] = tile[i]. The load loop's 32
  // consecutive i then hit 32 consecutive words (no bank conflicts for any K), and in the
  // compute loop a warp (one row ty of 32 threads when T = 32) reads 32 consecutive words too.
  __shared__ float tile[MAX_IN_TILE * MAX_IN_TILE];

  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int r = (mask_width - 1) / 2;
  const int in_tile = TILE_WIDTH + mask_width - 1;
  const int row0 = blockIdx.y * TILE_WIDTH - r;  // image position of tile element (0, 0)
  const int col0 = blockIdx.x * TILE_WIDTH - r;

  // Load: T² threads walk the IN_TILE² elements in steps of T². A warp takes 32 consecutive
  // elements, i.e. contiguous row segments of the input: the global loads coalesce.
  for (int i = ty * TILE_WIDTH + tx; i < in_tile * in_tile; i += TILE_WIDTH * TILE_WIDTH) {
    const int tr = i / in_tile;
    const int tc = i - tr * in_tile;
    const int gr = row0 + tr;
    const int gc = col0 + tc;
    const bool inside = gr >= 0 && gr < height && gc >= 0 && gc < width;
    tile[i] = inside ? N[gr * width + gc] : 0.0f;  // a ghost cell is a stored zero, never read
  }
  // Every element must be in place before any thread reads its neighbours' elements.
  __syncthreads();

  const int row = blockIdx.y * TILE_WIDTH + ty;
  const int col = blockIdx.x * TILE_WIDTH + tx;
  if (row < height && col < width) {
    // Output (row, col) reads input (row-r+p, col-r+q) = tile element (ty+p, tx+q).
    float sum = 0.0f;
    for (int p = 0; p < mask_width; ++p) {
      for (int q = 0; q < mask_width; ++q) {
        sum += tile[(ty + p) * in_tile + tx + q] * M_c[p * mask_width + q];
      }
    }
    P[row * width + col] = sum;
  }
}

}  // namespace

void conv2d_tiled_output(const Conv2dArgs& a) {
  constexpr int TILE_WIDTH = config::kLab03TileWidth;  // 32
  const int k = a.mask_width;
  CUDA_CHECK(cudaMemcpyToSymbolAsync(M_c, a.M, static_cast<size_t>(k) * k * sizeof(float), 0,
                                     cudaMemcpyDeviceToDevice));
  const dim3 block(TILE_WIDTH, TILE_WIDTH);
  const dim3 grid(ceil_div(a.width, TILE_WIDTH), ceil_div(a.height, TILE_WIDTH));
  tiled_output_kernel<TILE_WIDTH><<<grid, block>>>(a.N, a.P, a.height, a.width, k);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace convlab::lab03
