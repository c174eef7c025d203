// WRONG ON PURPOSE (tests/wrong_submissions/illegal-address):
// lab 01 writing its output through a scratch pointer that was never allocated (nullptr on the
// device). Every launch faults; the CUDA context is lost, so the runner exits and the grader
// must report "illegal address" for the case, start a fresh process for the next cases, and give
// up after a few crashes.
#include "convlab/lab_api.cuh"
#include "convlab/lab_config.hpp"

namespace convlab::lab01 {
namespace {

constexpr int BLOCK_X = config::kUntiledBlockX;
constexpr int BLOCK_Y = config::kUntiledBlockY;

__device__ __forceinline__ void convolve_pixel(const float* N, const float* M, float* P, int height, int width,
                                               int mask_width) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= height || col >= width) return;
  const int r = (mask_width - 1) / 2;
  float sum = 0.0f;
  for (int p = 0; p < mask_width; ++p) {
    const int in_row = row - r + p;
    if (in_row < 0 || in_row >= height) continue;
    for (int q = 0; q < mask_width; ++q) {
      const int in_col = col - r + q;
      if (in_col >= 0 && in_col < width) sum += N[in_row * width + in_col] * M[p * mask_width + q];
    }
  }
  P[row * width + col] = sum;
}

__global__ void naive_no_restrict(const float* N, const float* M, float* P, int height, int width, int mask_width) {
  convolve_pixel(N, M, P, height, width, mask_width);
}
__global__ void naive_mask_restrict(const float* N, const float* __restrict__ M, float* P, int height, int width,
                                    int mask_width) {
  convolve_pixel(N, M, P, height, width, mask_width);
}
__global__ void naive_input_restrict(const float* __restrict__ N, const float* M, float* P, int height, int width,
                                     int mask_width) {
  convolve_pixel(N, M, P, height, width, mask_width);
}
__global__ void naive_both_restrict(const float* __restrict__ N, const float* __restrict__ M, float* __restrict__ P,
                                    int height, int width, int mask_width) {
  convolve_pixel(N, M, P, height, width, mask_width);
}

using NaiveKernel = void (*)(const float*, const float*, float*, int, int, int);

template <NaiveKernel kernel>
void launch(const Conv2dArgs& a) {
  float* scratch = nullptr;  // BUG: meant to be cudaMalloc'ed, then copied into P
  const dim3 block(BLOCK_X, BLOCK_Y);
  const dim3 grid((a.width + BLOCK_X - 1) / BLOCK_X, (a.height + BLOCK_Y - 1) / BLOCK_Y);
  kernel<<<grid, block>>>(a.N, a.M, scratch, a.height, a.width, a.mask_width);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void conv2d_no_restrict(const Conv2dArgs& a) { launch<naive_no_restrict>(a); }
void conv2d_mask_restrict(const Conv2dArgs& a) { launch<naive_mask_restrict>(a); }
void conv2d_input_restrict(const Conv2dArgs& a) { launch<naive_input_restrict>(a); }
void conv2d_both_restrict(const Conv2dArgs& a) { launch<naive_both_restrict>(a); }

}  // namespace convlab::lab01
