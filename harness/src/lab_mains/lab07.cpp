// What the lab07 executable runs: its functions (declared in lab_api.cuh) and what
// they accept. Students edit the lab's kernel file, never this one.
#include "convlab/lab_api.cuh"
#include "convlab/runner.hpp"

convlab::LabDescription convlab::this_lab() {
  return {
    "lab07",
    "register tiling",
    {{"register_tiled", lab07::conv2d_register_tiled, kRegisterTilingMaskWidths},
     {"shfl_filter", lab07::conv2d_shfl_filter, kRegisterTilingMaskWidths},
     {"constant_filter", lab07::conv2d_constant_filter, kRegisterTilingMaskWidths},
     {"shared_input", lab07::conv2d_shared_input, kRegisterTilingMaskWidths}},
    {},
  };
}
