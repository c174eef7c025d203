// What the lab07 executable runs: its functions (declared in lab_api.cuh) and what
// they accept, one variant per step of labs/07-register-tiling/README.md, so that each step
// earns its own runs. Students edit the lab's kernel file, never this one.
#include "convlab/lab_api.cuh"
#include "convlab/runner.hpp"

convlab::LabDescription convlab::this_lab() {
  return {
    "lab07",
    "register tiling",
    {{"one_output", lab07::conv2d_one_output, kRegisterTilingMasks},
     {"outputs_xy", lab07::conv2d_outputs_xy, kRegisterTilingMasks},
     {"shfl_filter", lab07::conv2d_shfl_filter, kRegisterTilingMasks},
     {"constant_filter", lab07::conv2d_constant_filter, kRegisterTilingMasks},
     {"shared_input", lab07::conv2d_shared_input, kRegisterTilingMasks},
     {"register_tiled", lab07::conv2d_register_tiled, kRegisterTilingMasks}},
    {},
  };
}
