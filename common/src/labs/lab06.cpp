// What the lab06 executable runs: its functions (declared in lab_api.cuh) and what they accept.
// Students edit the lab's kernel file, never this one.
#include "convlab/lab_api.cuh"
#include "convlab/runner.hpp"

convlab::LabDescription convlab::this_lab() {
  return {
    "lab06",
    "convolution layers through im2col",
    {},
    {{"unroll_gemm", lab06::conv_layer_unroll_gemm},
     {"fused_gemm", lab06::conv_layer_fused_gemm},
     {"register_tiled", lab06::conv_layer_register_tiled_gemm}},
  };
}
