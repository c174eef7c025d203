// What the lab01 executable runs: its functions (declared in lab_api.cuh), paired in order with
// the variants of the lab registry (convlab/lab_registry.hpp: names, mask widths, tolerances).
// Students edit the lab's kernel file, never this one.
#include "convlab/lab_api.cuh"
#include "convlab/lab_registry.hpp"
#include "convlab/runner.hpp"

convlab::LabDescription convlab::this_lab() {
  return describe_lab(*labs::find_lab(1), {
      lab01::conv2d_no_restrict,  // "no_restrict"
      lab01::conv2d_mask_restrict,  // "mask_restrict"
      lab01::conv2d_input_restrict,  // "input_restrict"
      lab01::conv2d_both_restrict   // "both_restrict"
  });
}
