// WRONG ON PURPOSE (tests/wrong_submissions/too-slow):
// lab 01, correct, but launched with blocks of one thread: a warp runs one lane, and the SM
// holds at most a few dozen such blocks. Every case passes; the grader must give full
// correctness and no performance points ("too slow").
#include "convlab/lab_api.cuh"

namespace convlab::lab01 {
namespace {


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
  const dim3 block(1, 1);  // BUG: one thread per block
  const dim3 grid(a.width, a.height);
  kernel<<<grid, block>>>(a.N, a.M, a.P, a.height, a.width, a.mask_width);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void conv2d_no_restrict(const Conv2dArgs& a) { launch<naive_no_restrict>(a); }
void conv2d_mask_restrict(const Conv2dArgs& a) { launch<naive_mask_restrict>(a); }
void conv2d_input_restrict(const Conv2dArgs& a) { launch<naive_input_restrict>(a); }
void conv2d_both_restrict(const Conv2dArgs& a) { launch<naive_both_restrict>(a); }

}  // namespace convlab::lab01
