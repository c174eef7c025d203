// Lab 02 — the mask in __constant__ memory.
//
// Idea:      at every step of the tap loop all threads of a warp read the same mask element
//            M[p][q]. Constant memory serves exactly that pattern: one cached word broadcast
//            to the whole warp. With the mask there, the only global loads left are the
//            image's.
// Adds:      over lab 01, `__constant__ float M_c[17·17]`, filled on every call by
//            cudaMemcpyToSymbolAsync (device to device, enqueued before the kernel on the same
//            stream, and timed with it). Mapping, ghost test and loop are lab 01's.
// Achieves:  1 global load per multiply-add instead of 2 (the lecture's 2 B/FLOP); the mask
//            costs no global-memory loads, only constant-cache hits. The K²-fold reuse of each
//            input pixel is still left to L1/L2.
//
// Shapes: N, P are height×width row-major; M (device) is K×K row-major, K ≤ 17; block 32×8.
#include "convlab/lab_api.cuh"
#include "convlab/lab_config.hpp"

namespace convlab::lab02 {
namespace {

constexpr int MAX_MASK_WIDTH = kMaxMaskWidth;    // 17
constexpr int BLOCK_X = config::kUntiledBlockX;  // 32: a warp is a row segment (coalesced)
constexpr int BLOCK_Y = config::kUntiledBlockY;  // 8

// The mask, sized for the largest one: 17² floats = 1156 B of the 64 KiB constant space.
// Only the first K² entries are meaningful in a call with mask width K.
__constant__ float M_c[MAX_MASK_WIDTH * MAX_MASK_WIDTH];

template <int BX, int BY>
__global__ void __launch_bounds__(BX * BY)
constant_mask_kernel(const float* __restrict__ N, float* __restrict__ P, int height, int width,
                     int mask_width) {
  static_assert(BX >= 1 && BY >= 1 && BX * BY <= 1024, "a block holds at most 1024 threads");
  static_assert(BX % 32 == 0, "a warp must cover a contiguous row segment for coalescing");

  const int col = blockIdx.x * BX + threadIdx.x;
  const int row = blockIdx.y * BY + threadIdx.y;
  if (row >= height || col >= width) return;

  const int r = (mask_width - 1) / 2;
  float sum = 0.0f;
  for (int p = 0; p < mask_width; ++p) {
    const int in_row = row - r + p;
    if (in_row < 0 || in_row >= height) continue;  // a whole ghost row: nothing to read
    for (int q = 0; q < mask_width; ++q) {
      const int in_col = col - r + q;
      // M_c[...] has the same index in every thread of the warp: one broadcast read.
      if (in_col >= 0 && in_col < width) sum += N[in_row * width + in_col] * M_c[p * mask_width + q];
    }
  }
  P[row * width + col] = sum;
}

}  // namespace

void conv2d_constant_mask(const Conv2dArgs& a) {
  const int k = a.mask_width;
  // Device-to-device copy into the symbol, on the default stream: it is ordered before the
  // kernel, and nothing reads M_c while it is being written.
  CUDA_CHECK(cudaMemcpyToSymbolAsync(M_c, a.M, static_cast<size_t>(k) * k * sizeof(float), 0,
                                     cudaMemcpyDeviceToDevice));
  const dim3 block(BLOCK_X, BLOCK_Y);
  const dim3 grid((a.width + BLOCK_X - 1) / BLOCK_X, (a.height + BLOCK_Y - 1) / BLOCK_Y);
  constant_mask_kernel<BLOCK_X, BLOCK_Y><<<grid, block>>>(a.N, a.P, a.height, a.width, k);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace convlab::lab02
