// What the lab08 executable runs: its functions (declared in lab_api.cuh), paired in order with
// the variants of the lab registry (convlab/lab_registry.hpp: names, mask widths, tolerances),
// one variant per step of labs/08-tensor-cores/README.md. Steps 1, 2, 5, 6 and 7 solve conv layers,
// steps 3 and 4 single-channel 2D convolution: one list of functions per problem. Students edit the
// lab's kernel files, never this one.
#include "convlab/lab_api.cuh"
#include "convlab/lab_registry.hpp"
#include "convlab/runner.hpp"

#include <vector>

convlab::LabDescription convlab::this_lab() {
  // The vectors' types are spelled out: a braced list alone would also read as an iterator range.
  return describe_lab(*labs::find_lab(8),
                      std::vector<void (*)(const Conv2dArgs&)>{
                          lab08::conv2d_banded_tf32x3,    // "banded_tf32x3"    step 3, K = 9..17, the FP32 tolerance
                          lab08::conv2d_banded_tf32_bf16  // "banded_tf32_bf16" step 4, K = 13..17, the FP32 tolerance
                      },
                      std::vector<void (*)(const ConvLayerArgs&)>{
                          lab08::conv_layer_tf32,          // "tf32"          step 1, checked with the 1xTF32 tolerance
                          lab08::conv_layer_tf32x3,        // "tf32x3"        step 2, checked with the FP32 tolerance
                          lab08::conv_layer_tf32x3_wgmma,    // "tf32x3_wgmma"     step 5, the FP32 tolerance; GPUs
                                                             //                    of compute capability 9.0 only
                          lab08::conv_layer_tf32_bf16_wgmma,  // "tf32_bf16_wgmma"  step 6, likewise
                          lab08::conv_layer_tf32_wgmma        // "tf32_wgmma"       step 7, the 1xTF32 tolerance;
                                                              //                    compute capability 9.0 only
                      });
}
