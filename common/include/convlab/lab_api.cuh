/// @file lab_api.cuh
/// @brief The interface every lab implements: argument structs and the functions of labs 01–08.
///
/// A lab source file includes this header and defines the functions declared for its lab.
/// All pointers are device pointers; inputs are already on the GPU and the output buffer has
/// been filled with NaN. A lab function enqueues its kernels on the default stream, checks
/// every launch with `CUDA_CHECK(cudaGetLastError())`, and returns without synchronizing.
#pragma once

#include <cuda_runtime.h>

#include "convlab/cuda_check.cuh"
#include "convlab/shapes.hpp"

namespace convlab {

/// Arguments of a conv2d lab (labs 01–05, 07 and lab 08's step 3), in the lecture's names.
struct Conv2dArgs {
  const float* N;  ///< input image, height×width, row-major
  const float* M;  ///< mask, mask_width×mask_width, row-major
  float* P;        ///< output image, height×width, row-major
  int height;      ///< image rows
  int width;       ///< image columns
  int mask_width;  ///< K, one the lab's row of convlab/lab_registry.hpp takes (`labNN --list` prints them)
};

/// Arguments of a conv-layer lab (labs 06 and 08).
struct ConvLayerArgs {
  const float* X;        ///< input, [B][C][H][W]
  const float* W;        ///< weights, [M][C][K][K]
  float* Y;              ///< output, [B][M][Ho][Wo]
  ConvLayerShape shape;  ///< B, C, M, H, W, K, stride, padding, dilation
};

/// Marks the calling lab function as not implemented yet: the runner then reports
/// "not implemented" instead of a list of wrong values. Stubs call it; delete the call once
/// the function does its job.
void not_implemented(const char* what);

// --- Lab 01: naive, everything in global memory; the talk's four const __restrict__ variants.
namespace lab01 {
void conv2d_no_restrict(const Conv2dArgs& a);    ///< no pointer is const __restrict__
void conv2d_mask_restrict(const Conv2dArgs& a);  ///< only the mask is const __restrict__
void conv2d_input_restrict(const Conv2dArgs& a); ///< only the input is const __restrict__
void conv2d_both_restrict(const Conv2dArgs& a);  ///< input and mask are const __restrict__
/// both_restrict with another block shape, one of config::kSweepBlocks: the block-size sweep
/// of `grader bench`. Defined by the reference solution only (the lab does not ask for it).
/// @throws std::invalid_argument for a shape that is not in the list
void conv2d_both_restrict_block(const Conv2dArgs& a, int block_x, int block_y);
}  // namespace lab01

// --- Lab 02: the mask in __constant__ memory.
namespace lab02 {
void conv2d_constant_mask(const Conv2dArgs& a);  ///< the mask read from __constant__ memory
}  // namespace lab02

// --- Lab 03: tiling strategy 1, block covers the output tile, input tile loaded in steps.
namespace lab03 {
void conv2d_tiled_output(const Conv2dArgs& a);  ///< strategy 1
}  // namespace lab03

// --- Lab 04: tiling strategy 2, block covers the input tile, some threads idle for output.
namespace lab04 {
void conv2d_tiled_input(const Conv2dArgs& a);  ///< strategy 2
}  // namespace lab04

// --- Lab 05: tiling strategy 3, only the core in shared memory, halo through the caches.
namespace lab05 {
void conv2d_tiled_cached_halo(const Conv2dArgs& a);  ///< strategy 3
}  // namespace lab05

// --- Lab 06: conv layers through im2col, three steps (step 3 in four graded sub-steps).
namespace lab06 {
void conv_layer_unroll_gemm(const ConvLayerArgs& a);         ///< step 1: explicit unroll + tiled GEMM
void conv_layer_fused_gemm(const ConvLayerArgs& a);          ///< step 2: unrolling fused into the tile load
void conv_layer_register_tiles(const ConvLayerArgs& a);      ///< step 3a: 128×128×8 blocks, 8×8 register tiles
void conv_layer_transposed_float4(const ConvLayerArgs& a);   ///< step 3b: + transposed As, float4 fragment loads
void conv_layer_async_copies(const ConvLayerArgs& a);        ///< step 3c: + cp.async, slices in flight
void conv_layer_register_tiled_gemm(const ConvLayerArgs& a); ///< step 3d: + tile choice and split-K per layer
}  // namespace lab06

// --- Lab 07: register tiling, several outputs per thread, compile-time filter sizes.
namespace lab07 {
void conv2d_one_output(const Conv2dArgs& a);       ///< step 1: one output per thread, compile-time K
void conv2d_outputs_xy(const Conv2dArgs& a);       ///< step 2: x×y outputs per thread, taps in registers
void conv2d_shfl_filter(const Conv2dArgs& a);      ///< step 3: the mask broadcast with __shfl_sync
void conv2d_constant_filter(const Conv2dArgs& a);  ///< step 4: the mask in __constant__ memory
void conv2d_shared_input(const Conv2dArgs& a);     ///< step 5: shared→register instead of global→register
void conv2d_register_tiled(const Conv2dArgs& a);   ///< step 6: the autotuned choice per mask width
}  // namespace lab07

// --- Lab 08: conv layers on tensor cores, TF32 and FP32-accurate 3xTF32 (on mma.sync, and on
//     Hopper's wgmma); one image with a large mask as banded GEMMs.
namespace lab08 {
void conv_layer_tf32(const ConvLayerArgs& a);    ///< step 1: implicit GEMM on TF32 tensor cores (1xTF32)
void conv_layer_tf32x3(const ConvLayerArgs& a);  ///< step 2: three TF32 products per product, FP32-accurate
void conv2d_banded_tf32x3(const Conv2dArgs& a);   ///< step 3: one image, K ≥ 9, as banded GEMMs in 3xTF32
void conv2d_banded_tf32_bf16(const Conv2dArgs& a);  ///< step 4: step 3 for K ≥ 13, its small products in BF16
/// step 5: step 2 on Hopper's warpgroup MMA (wgmma), B split once per block; compute capability 9.0 only
void conv_layer_tf32x3_wgmma(const ConvLayerArgs& a);
/// step 6: step 5 with step 4's arithmetic, its two small products in one BF16 wgmma; compute capability 9.0 only
void conv_layer_tf32_bf16_wgmma(const ConvLayerArgs& a);
/// step 7: step 1 on wgmma, both operands read from swizzled shared memory (1xTF32); compute capability 9.0 only
void conv_layer_tf32_wgmma(const ConvLayerArgs& a);
}  // namespace lab08

}  // namespace convlab
