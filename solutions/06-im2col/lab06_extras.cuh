/// @file lab06_extras.cuh
/// @brief What the lab 06 solution offers beyond the graded functions of lab_api.cuh: the
///        pieces the benchmark (grader/bench/conv_layer_bench.cu) and the in-process tests
///        (tests/gpu/gpu_test_lab06.cpp) call. The lab runner never uses them.
#pragma once

#include <vector>

#include "convlab/lab06_config.hpp"
#include "convlab/lab_api.cuh"

namespace convlab::lab06 {

// ---- Step 1 ----------------------------------------------------------------------------------

/// Step 1's unroll kernel on its own: writes X_unroll for images [first_image, first_image+images)
/// into `x_unroll`, laid out [images][C·K·K][Ho·Wo] (the lecture's X_unroll[b][h_unroll][w_unroll]).
/// The benchmark feeds this buffer to cuBLAS.
void unroll_input(const ConvLayerArgs& a, float* x_unroll, int first_image, int images);

// ---- Step 3 ----------------------------------------------------------------------------------

// RegisterTilePlan (block tile, split-K, slice depth) and the plan chooser live in
// convlab/lab06_config.hpp, which the analysis model reads too.

/// Every block tile step 3 is compiled for (splits = 1).
std::vector<RegisterTilePlan> register_tiled_tiles();

/// The plan conv_layer_register_tiled_gemm() uses for a layer on the current GPU.
/// @param allow_split false for epilogues that need the whole sum (bias + ReLU).
RegisterTilePlan register_tiled_plan(const ConvLayerShape& shape, bool allow_split = true);

/// Step 3 with an explicit plan (the benchmark compares every tile).
void conv_layer_register_tiled_with(const ConvLayerArgs& a, RegisterTilePlan plan);

// ---- Stretch steps ---------------------------------------------------------------------------

/// Stretch: step 3 on TF32 tensor cores (tf32_gemm.cu). Registered in lab06 with the TF32
/// tolerance; declared here for the benchmark.
void conv_layer_tf32_tensor_core(const ConvLayerArgs& a);

/// Stretch: step 3 with a fused epilogue, `Y = max(W ⊛ X + bias[m], 0)`. `bias` has M floats on
/// the device. Not a conv-layer semantics the runner checks, so it is not in lab06's registry.
void conv_layer_bias_relu(const ConvLayerArgs& a, const float* bias);

}  // namespace convlab::lab06
