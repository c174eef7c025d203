// Lab 01 — naive 2D convolution: one thread per output pixel, everything in global memory.
//
// Idea:      thread (row, col) computes P[row][col] = Σ_{p,q<K} N[row-r+p][col-r+q]·M[p][q],
//            r = (K-1)/2; taps outside the image are ghost cells worth zero.
// You write: convolve_pixel() (steps 1–4 below). The four kernels around it are given: they
//            differ only in which pointers are `const __restrict__` (the talk's experiment).
//
// Shapes: N, P are height×width row-major; M is K×K row-major; all device pointers.
// Build and run:  cmake --build --preset gpu --target lab01 && build/bin/lab01 datasets/conv2d
// New to CUDA or to the runner's output (PASS/FAIL lines, mismatches, --error-map): start
// with labs/00-start/README.md.
#include "convlab/lab_api.cuh"
#include "convlab/lab_config.hpp"

namespace convlab::lab01 {
namespace {

constexpr int BLOCK_X = config::kUntiledBlockX;  // 32
constexpr int BLOCK_Y = config::kUntiledBlockY;  // 8

__device__ __forceinline__ void convolve_pixel(const float* N, const float* M, float* P, int height,
                                               int width, int mask_width) {
  // TODO(step 1): the output this thread owns: col from blockIdx.x/threadIdx.x, row from
  //               blockIdx.y/threadIdx.y (blocks are BLOCK_X × BLOCK_Y).
  // TODO(step 2): threads outside the image (row >= height or col >= width) return.
  // TODO(step 3): sum N[row-r+p][col-r+q] * M[p][q] over the K×K mask, r = (mask_width-1)/2,
  //               skipping taps outside the image (ghost cells are zero: never read them).
  // TODO(step 4): write the sum to P[row][col].
  (void)N, (void)M, (void)P, (void)height, (void)width, (void)mask_width;
}

__global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
naive_no_restrict(const float* N, const float* M, float* P, int height, int width, int mask_width) {
  convolve_pixel(N, M, P, height, width, mask_width);
}

__global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
naive_mask_restrict(const float* N, const float* __restrict__ M, float* P, int height, int width,
                    int mask_width) {
  convolve_pixel(N, M, P, height, width, mask_width);
}

__global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
naive_input_restrict(const float* __restrict__ N, const float* M, float* P, int height, int width,
                     int mask_width) {
  convolve_pixel(N, M, P, height, width, mask_width);
}

__global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
naive_both_restrict(const float* __restrict__ N, const float* __restrict__ M,
                    float* __restrict__ P, int height, int width, int mask_width) {
  convolve_pixel(N, M, P, height, width, mask_width);
}

using NaiveKernel = void (*)(const float*, const float*, float*, int, int, int);

template <NaiveKernel kernel>
void launch(const Conv2dArgs& a) {
  // TODO(step 5): delete this line once convolve_pixel() works.
  not_implemented("lab01: convolve_pixel() is still the stub");
  const dim3 block(BLOCK_X, BLOCK_Y);
  const dim3 grid((a.width + BLOCK_X - 1) / BLOCK_X, (a.height + BLOCK_Y - 1) / BLOCK_Y);
  kernel<<<grid, block>>>(a.N, a.M, a.P, a.height, a.width, a.mask_width);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void conv2d_no_restrict(const Conv2dArgs& a) { launch<naive_no_restrict>(a); }
void conv2d_mask_restrict(const Conv2dArgs& a) { launch<naive_mask_restrict>(a); }
void conv2d_input_restrict(const Conv2dArgs& a) { launch<naive_input_restrict>(a); }
void conv2d_both_restrict(const Conv2dArgs& a) { launch<naive_both_restrict>(a); }

}  // namespace convlab::lab01
