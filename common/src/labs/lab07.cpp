// What the lab07 executable runs: its functions (declared in lab_api.cuh and below) and what
// they accept. Students edit the lab's kernel file, never this one.
#include "convlab/lab_api.cuh"
#include "convlab/runner.hpp"

namespace convlab::lab07 {
// The comparisons of the talk and the paper, each a one-line launcher once the kernel template
// of step 1 exists (labs/07-register-tiling/README.md, steps 3 and 4).
void conv2d_shfl_filter(const Conv2dArgs& a);      ///< the mask broadcast with __shfl_sync
void conv2d_constant_filter(const Conv2dArgs& a);  ///< the mask in __constant__ memory
void conv2d_shared_input(const Conv2dArgs& a);     ///< shared→register instead of global→register
}  // namespace convlab::lab07

convlab::LabDescription convlab::this_lab() {
  return {
    "lab07",
    "register tiling",
    {{"register_tiled", lab07::conv2d_register_tiled, kRegisterTilingMasks},
     {"shfl_filter", lab07::conv2d_shfl_filter, kRegisterTilingMasks},
     {"constant_filter", lab07::conv2d_constant_filter, kRegisterTilingMasks},
     {"shared_input", lab07::conv2d_shared_input, kRegisterTilingMasks}},
    {},
  };
}
