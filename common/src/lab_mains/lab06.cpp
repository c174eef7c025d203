// What the lab06 executable runs: its functions (declared in lab_api.cuh), paired in order with
// the variants of the lab registry (convlab/lab_registry.hpp: names, mask widths, tolerances).
// Students edit the lab's kernel files, never this one.
#include "convlab/lab_api.cuh"
#include "convlab/lab_registry.hpp"
#include "convlab/runner.hpp"

namespace convlab::lab06 {
/// Stretch step (tf32_gemm.cu): step 3 on TF32 tensor cores. It computes the conv layer itself,
/// so the runner checks it, with the TF32 tolerance; the rubric lists it as "stretch" (free while
/// it is the stub, a bonus line when it passes). (The other stretch step, a fused bias +
/// ReLU epilogue, computes something else and is checked by tests/gpu/gpu_test_lab06.cpp instead.)
void conv_layer_tf32_tensor_core(const ConvLayerArgs& a);
}  // namespace convlab::lab06

convlab::LabDescription convlab::this_lab() {
  return describe_lab(*labs::find_lab(6), {
      lab06::conv_layer_unroll_gemm,          // "unroll_gemm"       step 1
      lab06::conv_layer_fused_gemm,           // "fused_gemm"        step 2
      lab06::conv_layer_register_tiles,       // "register_tiles"    step 3a
      lab06::conv_layer_transposed_float4,    // "transposed_float4" step 3b
      lab06::conv_layer_async_copies,         // "async_copies"      step 3c
      lab06::conv_layer_register_tiled_gemm,  // "register_tiled"    step 3d
      lab06::conv_layer_tf32_tensor_core      // "tf32_tensor_core"  stretch
  });
}
