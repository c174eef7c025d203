// Lab 06, step 1 — convolution layer as explicit unrolling (im2col) followed by a tiled GEMM.
//
// Idea:      for each image b, build X_unroll[C·K·K][Ho·Wo] with the lecture's index mapping:
//            column w_unroll = h·Wo + w is output (h, w); row h_unroll = c·K·K + p·K + q holds
//            input X[b][c][h·S-P+p·D][w·S-P+q·D] (zero outside X). Then
//            Y[b] (M × Ho·Wo) = W (M × C·K·K) · X_unroll[b] (C·K·K × Ho·Wo) is a plain matrix
//            product: the lecture's shared-memory tiled GEMM.
// You write: between the STEP 1 markers, unroll_kernel (step 1a) and tiled_gemm_kernel (step
//            1b); then set kStep1Written = true (step 1c). Until then the variant says "not
//            implemented". The launcher is given: it unrolls as many images at a time as fit in
//            kMaxUnrollBytes into a buffer kept between calls, and runs one GEMM per chunk with
//            blockIdx.z = the image within the chunk. Keep the markers (tests splice the steps).
// Costs:     X_unroll repeats every input about K²/S² times (README: the replication factor).
//
// Shapes: X [B][C][H][W], W [M][C][K][K] (= A, M × C·K·K row-major), Y [B][M][Ho][Wo],
//         X_unroll [images][C·K·K][Ho·Wo].
// Build and run:  cmake --build --preset gpu --target lab06 && build/bin/lab06 datasets/conv_layer
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
inline constexpr bool kStep1Written = false;  // TODO(step 1c): true once unroll_kernel and tiled_gemm_kernel are written

// Step 1a. Fills X_unroll for images first_image .. first_image + images - 1 (grid-stride loop).
__global__ void __launch_bounds__(UNROLL_THREADS)
unroll_kernel(const float* __restrict__ X, float* __restrict__ X_unroll, Geometry g, int first_image,
              int images) {
  // TODO(step 1a): one thread per (image, c, h, w), as the lecture's unroll function: decode
  //                t = ((img·C + c)·Ho·Wo + h·Wo + w), then for every mask tap (p, q) write
  //                X_unroll[img][c·K·K + p·K + q][h·Wo + w] =
  //                    X[first_image + img][c][h·S-P+p·D][w·S-P+q·D], or 0 outside X
  //                (never read X there). Loop t over images·C·Ho·Wo with a grid-stride loop;
  //                consecutive t are consecutive w: coalesced writes. 64-bit image offsets.
  (void)X, (void)X_unroll, (void)g, (void)first_image, (void)images;
}

// Step 1b. C = A·B, A rows×inner, B inner×cols, C rows×cols, all row-major; blockIdx.z = image:
// B and C advance by one image's matrix per z (inner·cols and rows·cols floats).
__global__ void __launch_bounds__(TILE_WIDTH* TILE_WIDTH)
tiled_gemm_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int rows,
                  int inner, int cols) {
  // TODO(step 1b): the lecture's tiled matrix multiply (README: the primer). Block (x, y) computes
  //                the TILE_WIDTH×TILE_WIDTH tile of C at rows y·TILE_WIDTH + ty, columns
  //                x·TILE_WIDTH + tx; thread (ty, tx) = (threadIdx.y, threadIdx.x) owns one output.
  //                  __shared__ float As[TILE_WIDTH][TILE_WIDTH];  // As[ty][tx] = A[row][t·T + tx]
  //                  __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];  // Bs[ty][tx] = B[t·T + ty][col]
  //                Per phase t, each thread loads its element of As and of Bs (0 past the edges),
  //                __syncthreads(), accumulates its TILE_WIDTH products As[ty][k]·Bs[k][tx],
  //                __syncthreads() again. Write C[row][col] if it is inside.
  (void)A, (void)B, (void)C, (void)rows, (void)inner, (void)cols;
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
