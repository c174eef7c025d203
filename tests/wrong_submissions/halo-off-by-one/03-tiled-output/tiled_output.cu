// WRONG ON PURPOSE (tests/wrong_submissions/halo-off-by-one):
// lab 03's solution with the halo one element too narrow: r = (K-1)/2 - 1, so the input tile
// starts one row and one column too late and every output reads the window shifted by one. No
// access goes out of bounds; the values are wrong, and the grader must report "out of
// tolerance".
#include "convlab/lab_api.cuh"
#include "convlab/lab_config.hpp"

namespace convlab::lab03 {
namespace {

constexpr int MAX_MASK_WIDTH = kMaxMaskWidth;
__constant__ float M_c[MAX_MASK_WIDTH * MAX_MASK_WIDTH];

template <int TILE_WIDTH>
__global__ void __launch_bounds__(TILE_WIDTH * TILE_WIDTH)
tiled_output_kernel(const float* __restrict__ N, float* __restrict__ P, int height, int width, int mask_width) {
  constexpr int MAX_IN_TILE = TILE_WIDTH + MAX_MASK_WIDTH - 1;
  __shared__ float tile[MAX_IN_TILE * MAX_IN_TILE];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int r = (mask_width - 1) / 2 - 1;  // BUG: the halo is one element short
  const int in_tile = TILE_WIDTH + mask_width - 1;
  const int row0 = blockIdx.y * TILE_WIDTH - r;
  const int col0 = blockIdx.x * TILE_WIDTH - r;
  for (int i = ty * TILE_WIDTH + tx; i < in_tile * in_tile; i += TILE_WIDTH * TILE_WIDTH) {
    const int tr = i / in_tile;
    const int tc = i - tr * in_tile;
    const int gr = row0 + tr;
    const int gc = col0 + tc;
    tile[i] = (gr >= 0 && gr < height && gc >= 0 && gc < width) ? N[gr * width + gc] : 0.0f;
  }
  __syncthreads();  // every element is in place before any thread reads its neighbours
  const int row = blockIdx.y * TILE_WIDTH + ty;
  const int col = blockIdx.x * TILE_WIDTH + tx;
  if (row < height && col < width) {
    float sum = 0.0f;
    for (int p = 0; p < mask_width; ++p) {
      for (int q = 0; q < mask_width; ++q) sum += tile[(ty + p) * in_tile + tx + q] * M_c[p * mask_width + q];
    }
    P[row * width + col] = sum;
  }
}

}  // namespace

void conv2d_tiled_output(const Conv2dArgs& a) {
  constexpr int TILE_WIDTH = config::kLab03TileWidth;
  const int k = a.mask_width;
  CUDA_CHECK(cudaMemcpyToSymbolAsync(M_c, a.M, static_cast<size_t>(k) * k * sizeof(float), 0, cudaMemcpyDeviceToDevice));
  const dim3 block(TILE_WIDTH, TILE_WIDTH);
  const dim3 grid((a.width + TILE_WIDTH - 1) / TILE_WIDTH, (a.height + TILE_WIDTH - 1) / TILE_WIDTH);
  tiled_output_kernel<TILE_WIDTH><<<grid, block>>>(a.N, a.P, a.height, a.width, k);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace convlab::lab03
