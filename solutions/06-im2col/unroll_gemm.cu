// Lab 06, step 1 — convolution layer as explicit unrolling (im2col) followed by a tiled GEMM.
//
// Idea:      for each image b, build X_unroll[C·K·K][Ho·Wo] with the lecture's index mapping:
//            column w_unroll = h·Wo + w is output (h, w); row h_unroll = c·K·K + p·K + q holds
//            input X[b][c][h·S-P+p·D][w·S-P+q·D] (zero outside X). Then
//            Y[b] (M × Ho·Wo) = W (M × C·K·K) · X_unroll[b] (C·K·K × Ho·Wo) is a plain
//            matrix product, computed with the textbook shared-memory tiled GEMM.
// Adds:      (first step of the lab) the conv layer's loops recast as one matrix product.
// Costs:     X_unroll holds about K²/S² copies of every input (the replication factor,
//            `C·K²·Ho·Wo / (C·H·W)`); it is written once by the unroll kernel and read again by the
//            GEMM, traffic that step 2 removes. It also needs device memory: the launcher unrolls
//            as many images at a time as fit in kMaxUnrollBytes, into a buffer it keeps between
//            calls (a cudaMalloc per call would be slow, and timed).
// Achieves:  correct, and a baseline: the GEMM does one multiply-add per two shared-memory loads.
//
// The weights stay in global memory: a warp's loads of a weight tile read 16 different
// addresses, and constant memory serves one address per warp per cycle (it would serialize);
// the shared-memory tile already gives every weight TILE_WIDTH uses per global load.
//
// Shapes: X [B][C][H][W], W [M][C][K][K] (= A, M × C·K·K row-major), Y [B][M][Ho][Wo],
//         X_unroll [images][C·K·K][Ho·Wo].
#include <algorithm>
#include <climits>
#include <cstddef>
#include <memory>
#include <stdexcept>

#include "convlab/ceil_div.hpp"
#include "convlab/device_buffer.cuh"
#include "convlab/lab06_config.hpp"
#include "convlab/lab_api.cuh"

namespace convlab::lab06 {
namespace {

constexpr int TILE_WIDTH = kGemmTileWidth;  // GEMM tile: TILE_WIDTH² threads, one output each (lab06_config.hpp)
constexpr int UNROLL_THREADS = 256;   // unroll kernel block size
constexpr std::size_t kMaxUnrollBytes = kUnrollBufferBytes;  // X_unroll chunk limit (lab06_config.hpp)

// The layer as the kernels see it.
struct Geometry {
  int C, H, W, K, S, P, D;
  int M, Ho, Wo;
  int HoWo, Kdim;  // Ho·Wo (GEMM columns per image), C·K·K (GEMM reduction length)
};

Geometry make_geometry(const ConvLayerShape& s) {
  s.validate();
  if (s.input_elements() > INT_MAX || s.output_elements() > INT_MAX || s.weight_elements() > INT_MAX) {
    throw std::invalid_argument("lab06: tensors of 2^31 elements or more are not supported (int indexing)");
  }
  const int Ho = s.out_height(), Wo = s.out_width();
  return {s.channels, s.height, s.width, s.mask_width, s.stride, s.padding, s.dilation,
          s.filters,  Ho,       Wo,      Ho * Wo,      s.channels * s.mask_width * s.mask_width};
}

// ==== BEGIN STEP 1: explicit unroll + tiled GEMM ====
inline constexpr bool kStep1Written = true;  // true once unroll_kernel and tiled_gemm_kernel are written

// Step 1a. One thread per (image, c, h, w): it copies the K·K inputs output (h, w) needs from channel c
// into rows c·K·K .. c·K·K + K·K - 1 of column h·Wo + w. Consecutive threads take consecutive
// w, so both the reads (stride S) and the writes (stride 1) are coalesced.
__global__ void __launch_bounds__(UNROLL_THREADS)
unroll_kernel(const float* __restrict__ X, float* __restrict__ X_unroll, Geometry g, int first_image,
              int images) {
  const int total = images * g.C * g.HoWo;
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
    const int w_unroll = t % g.HoWo;  // h·Wo + w
    const int rest = t / g.HoWo;
    const int c = rest % g.C;
    const int img = rest / g.C;
    const int h = w_unroll / g.Wo;
    const int w = w_unroll % g.Wo;
    const float* x = X + (static_cast<long long>(first_image + img) * g.C + c) * g.H * g.W;
    // Row h_unroll = c·K·K + p·K + q of this image's X_unroll, at column w_unroll.
    float* out = X_unroll + (static_cast<long long>(img) * g.Kdim + c * g.K * g.K) * g.HoWo + w_unroll;
    for (int p = 0; p < g.K; ++p) {
      const int ih = h * g.S - g.P + p * g.D;
      for (int q = 0; q < g.K; ++q) {
        const int iw = w * g.S - g.P + q * g.D;
        const bool inside = ih >= 0 && ih < g.H && iw >= 0 && iw < g.W;
        out[(p * g.K + q) * g.HoWo] = inside ? x[ih * g.W + iw] : 0.0f;  // padding is zeros
      }
    }
  }
}

// Step 1b. The lecture's tiled matrix multiply, C = A·B with A: rows×inner, B: inner×cols, C: rows×cols,
// all row-major; blockIdx.z selects the image (B and C advance by one image's matrix).
__global__ void __launch_bounds__(TILE_WIDTH* TILE_WIDTH)
tiled_gemm_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int rows,
                  int inner, int cols) {
  __shared__ float As[TILE_WIDTH][TILE_WIDTH];  // As[ty][tx] = A[row][t·T + tx] of phase t
  __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];  // Bs[ty][tx] = B[t·T + ty][col]
  B += static_cast<long long>(blockIdx.z) * inner * cols;
  C += static_cast<long long>(blockIdx.z) * rows * cols;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE_WIDTH + ty;  // filter m
  const int col = blockIdx.x * TILE_WIDTH + tx;  // output position h·Wo + w
  float sum = 0.0f;
  for (int t = 0; t < ceil_div(inner, TILE_WIDTH); ++t) {
    const int ka = t * TILE_WIDTH + tx;
    const int kb = t * TILE_WIDTH + ty;
    As[ty][tx] = (row < rows && ka < inner) ? A[static_cast<long long>(row) * inner + ka] : 0.0f;
    Bs[ty][tx] = (kb < inner && col < cols) ? B[static_cast<long long>(kb) * cols + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE_WIDTH; ++k) sum += As[ty][k] * Bs[k][tx];
    __syncthreads();  // before the next tile overwrites As and Bs
  }
  if (row < rows && col < cols) C[static_cast<long long>(row) * cols + col] = sum;
}
// ==== END STEP 1 ====

void launch_unroll(const ConvLayerArgs& a, const Geometry& g, float* x_unroll, int first_image, int images) {
  const int total = images * g.C * g.HoWo;
  const int blocks = std::min(ceil_div(total, UNROLL_THREADS), 65535);
  unroll_kernel<<<blocks, UNROLL_THREADS>>>(a.X, x_unroll, g, first_image, images);
  CUDA_CHECK(cudaGetLastError());
}

// X_unroll's memory, kept between calls and grown when a larger layer comes.
float* unroll_buffer(std::size_t elements) {
  static std::unique_ptr<DeviceBuffer<float>> buffer;
  if (!buffer || buffer->size() < elements) {
    buffer.reset();  // free the old one first
    buffer = std::make_unique<DeviceBuffer<float>>(elements, /*guard=*/0);
  }
  return buffer->data();
}

}  // namespace

void conv_layer_unroll_gemm(const ConvLayerArgs& a) {
  if (!kStep1Written) {
    return not_implemented("lab06 step 1 (explicit unroll + tiled GEMM): write unroll_kernel and tiled_gemm_kernel, "
                           "then set kStep1Written = true");
  }
  const Geometry g = make_geometry(a.shape);
  const std::size_t per_image = static_cast<std::size_t>(g.Kdim) * static_cast<std::size_t>(g.HoWo);
  if (per_image > INT_MAX) throw std::invalid_argument("lab06: one image's X_unroll is too large");
  // Images per chunk: as many as fit in kMaxUnrollBytes (at least one).
  // (gridDim.z, the image of a GEMM block, is at most 65535.)
  const int chunk = static_cast<int>(std::clamp<std::size_t>(
      kMaxUnrollBytes / sizeof(float) / per_image, 1, std::min<std::size_t>(a.shape.batch, 65535)));
  float* x_unroll = unroll_buffer(per_image * static_cast<std::size_t>(chunk));
  const std::size_t y_per_image = static_cast<std::size_t>(g.M) * static_cast<std::size_t>(g.HoWo);
  for (int b0 = 0; b0 < a.shape.batch; b0 += chunk) {
    const int images = std::min(chunk, a.shape.batch - b0);
    launch_unroll(a, g, x_unroll, b0, images);  // the same stream orders it after the last GEMM
    const dim3 block(TILE_WIDTH, TILE_WIDTH);
    const dim3 grid(ceil_div(g.HoWo, TILE_WIDTH), ceil_div(g.M, TILE_WIDTH), images);
    tiled_gemm_kernel<<<grid, block>>>(a.W, x_unroll, a.Y + b0 * y_per_image, g.M, g.Kdim, g.HoWo);
    CUDA_CHECK(cudaGetLastError());
  }
}

}  // namespace convlab::lab06

// ---- Beyond the lab ----
// What the benchmark calls besides the graded functions (lab06_extras.cuh): the unroll kernel
// alone, whose X_unroll it feeds to cuBLAS.
#include "lab06_extras.cuh"

namespace convlab::lab06 {

void unroll_input(const ConvLayerArgs& a, float* x_unroll, int first_image, int images) {
  const Geometry g = make_geometry(a.shape);
  if (first_image < 0 || images < 1 || first_image + images > a.shape.batch) {
    throw std::invalid_argument("lab06 unroll_input: images out of range");
  }
  if (static_cast<long long>(images) * g.Kdim * g.HoWo > INT_MAX) {
    throw std::invalid_argument("lab06 unroll_input: too many images for one call");
  }
  launch_unroll(a, g, x_unroll, first_image, images);
}

}  // namespace convlab::lab06
