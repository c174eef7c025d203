// What the lab07 executable runs: its functions (declared in lab_api.cuh), paired in order with
// the variants of the lab registry (convlab/lab_registry.hpp: names, mask widths, tolerances),
// one variant per step of labs/07-register-tiling/README.md, so that each step earns its own
// runs. Students edit the lab's kernel file, never this one.
#include "convlab/lab_api.cuh"
#include "convlab/lab_registry.hpp"
#include "convlab/runner.hpp"

convlab::LabDescription convlab::this_lab() {
  return describe_lab(*labs::find_lab(7), {
      lab07::conv2d_one_output,       // "one_output"      step 1
      lab07::conv2d_outputs_xy,       // "outputs_xy"      step 2
      lab07::conv2d_shfl_filter,      // "shfl_filter"     step 3
      lab07::conv2d_constant_filter,  // "constant_filter" step 4
      lab07::conv2d_shared_input,     // "shared_input"    step 5
      lab07::conv2d_register_tiled    // "register_tiled"  step 6: the tuned choice
  });
}
