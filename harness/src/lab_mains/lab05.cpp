// What the lab05 executable runs: its functions (declared in lab_api.cuh) and what they accept.
// Students edit the lab's kernel file, never this one.
#include "convlab/lab_api.cuh"
#include "convlab/runner.hpp"

convlab::LabDescription convlab::this_lab() {
  return {
    "lab05",
    "tiling strategy 3: core in shared memory, halo through the caches",
    {{"cached_halo", lab05::conv2d_tiled_cached_halo}},
    {},
  };
}
