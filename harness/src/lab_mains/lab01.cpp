// What the lab01 executable runs: its functions (declared in lab_api.cuh) and what they accept.
// Students edit the lab's kernel file, never this one.
#include "convlab/lab_api.cuh"
#include "convlab/runner.hpp"

convlab::LabDescription convlab::this_lab() {
  return {
    "lab01",
    "naive convolution, everything in global memory",
    {{"no_restrict", lab01::conv2d_no_restrict},
     {"mask_restrict", lab01::conv2d_mask_restrict},
     {"input_restrict", lab01::conv2d_input_restrict},
     {"both_restrict", lab01::conv2d_both_restrict}},
    {},
  };
}
