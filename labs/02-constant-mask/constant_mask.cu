// Lab 02 — the mask in __constant__ memory.
//
// Idea:      at every step of the tap loop all threads of a warp read the same mask element;
//            constant memory broadcasts one cached word to the whole warp, so the mask costs
//            no global loads and only the image is read from global memory.
// You write: the kernel (step 1: lab 01's per-pixel loop, reading the mask from M_c) and the
//            copy of the mask into M_c (step 2). The launch configuration is given.
//
// Shapes: N, P are height×width row-major; M (device) is K×K row-major, K ≤ 17; block 32×8.
// Build and run:  cmake --build --preset gpu --target lab02 && build/bin/lab02 datasets/conv2d
// New to CUDA or to the runner's output (PASS/FAIL lines, mismatches, --error-map): start
// with labs/00-start/README.md.
#include "convlab/lab_api.cuh"
#include "convlab/lab_config.hpp"

namespace convlab::lab02 {
namespace {

constexpr int MAX_MASK_WIDTH = kMaxMaskWidth;    // 17
constexpr int BLOCK_X = config::kUntiledBlockX;  // 32
constexpr int BLOCK_Y = config::kUntiledBlockY;  // 8

// The mask in constant memory, sized for the largest supported mask (17² floats = 1156 bytes
// of the 64 KiB constant space); a call with mask width K uses the first K² entries.
__constant__ float M_c[MAX_MASK_WIDTH * MAX_MASK_WIDTH];

template <int BX, int BY>
__global__ void __launch_bounds__(BX * BY)
constant_mask_kernel(const float* __restrict__ N, float* __restrict__ P, int height, int width,
                     int mask_width) {
  static_assert(BX >= 1 && BY >= 1 && BX * BY <= 1024, "a block holds at most 1024 threads");
  static_assert(BX % 32 == 0, "a warp must cover a contiguous row segment for coalescing");
  // TODO(step 1): lab 01's convolve_pixel(): the output (row, col) this thread owns, return if
  //               it is outside the image, sum N[row-r+p][col-r+q] · M_c[p·K+q] over the taps
  //               inside the image (skip ghost cells: never read them), write P[row][col].
  //               The only change from lab 01: the mask is M_c, not a pointer argument.
  (void)M_c, (void)N, (void)P, (void)height, (void)width, (void)mask_width;
}

}  // namespace

void conv2d_constant_mask(const Conv2dArgs& a) {
  // TODO(step 2): copy the K×K mask a.M (a DEVICE pointer) into M_c with
  //               CUDA_CHECK(cudaMemcpyToSymbolAsync(M_c, ..., bytes, 0, cudaMemcpyDeviceToDevice)).
  //               It goes on the default stream, so it is done before the kernel starts.
  // TODO(step 3): delete the next line once the kernel works.
  not_implemented("lab02: constant_mask_kernel is still the stub");
  const dim3 block(BLOCK_X, BLOCK_Y);
  const dim3 grid((a.width + BLOCK_X - 1) / BLOCK_X, (a.height + BLOCK_Y - 1) / BLOCK_Y);
  constant_mask_kernel<BLOCK_X, BLOCK_Y><<<grid, block>>>(a.N, a.P, a.height, a.width, a.mask_width);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace convlab::lab02
