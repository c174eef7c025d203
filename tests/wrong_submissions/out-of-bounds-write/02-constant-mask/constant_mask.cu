// WRONG ON PURPOSE (tests/wrong_submissions/out-of-bounds-write):
// lab 02's solution with the row test off by one (`row > height` for `row >= height`). Threads
// of row `height` — when the grid has one, i.e. when 8 does not divide the height — write a
// whole row past the end of P. The values inside the image are right; the runner's guard band
// after P catches the writes, and the grader must report "out-of-bounds write".
#include "convlab/lab_api.cuh"
#include "convlab/lab_config.hpp"

namespace convlab::lab02 {
namespace {

constexpr int MAX_MASK_WIDTH = kMaxMaskWidth;
constexpr int BLOCK_X = config::kUntiledBlockX;
constexpr int BLOCK_Y = config::kUntiledBlockY;

__constant__ float M_c[MAX_MASK_WIDTH * MAX_MASK_WIDTH];

__global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
constant_mask_kernel(const float* __restrict__ N, float* __restrict__ P, int height, int width, int mask_width) {
  const int col = blockIdx.x * BLOCK_X + threadIdx.x;
  const int row = blockIdx.y * BLOCK_Y + threadIdx.y;
  if (row > height || col >= width) return;  // BUG: lets row == height through
  const int r = (mask_width - 1) / 2;
  float sum = 0.0f;
  for (int p = 0; p < mask_width; ++p) {
    const int in_row = row - r + p;
    if (in_row < 0 || in_row >= height) continue;
    for (int q = 0; q < mask_width; ++q) {
      const int in_col = col - r + q;
      if (in_col >= 0 && in_col < width) sum += N[in_row * width + in_col] * M_c[p * mask_width + q];
    }
  }
  P[row * width + col] = sum;  // row == height: past the end of P
}

}  // namespace

void conv2d_constant_mask(const Conv2dArgs& a) {
  const int k = a.mask_width;
  CUDA_CHECK(cudaMemcpyToSymbolAsync(M_c, a.M, static_cast<size_t>(k) * k * sizeof(float), 0, cudaMemcpyDeviceToDevice));
  const dim3 block(BLOCK_X, BLOCK_Y);
  const dim3 grid((a.width + BLOCK_X - 1) / BLOCK_X, (a.height + BLOCK_Y - 1) / BLOCK_Y);
  constant_mask_kernel<<<grid, block>>>(a.N, a.P, a.height, a.width, k);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace convlab::lab02
