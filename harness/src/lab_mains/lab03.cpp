// What the lab03 executable runs: its functions (declared in lab_api.cuh) and what they accept.
// Students edit the lab's kernel file, never this one.
#include "convlab/lab_api.cuh"
#include "convlab/runner.hpp"

convlab::LabDescription convlab::this_lab() {
  return {
    "lab03",
    "tiling strategy 1: block covers the output tile",
    {{"tiled_output", lab03::conv2d_tiled_output}},
    {},
  };
}
