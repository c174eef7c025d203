// WRONG ON PURPOSE (tests/wrong_submissions/missing-file):
// the lab's file under another name (tiled.cu instead of tiled_output.cu). The grader must fail
// lab 03 with "missing file 03-tiled-output/tiled_output.cu" without trying to build it.
#include "convlab/lab_api.cuh"

namespace convlab::lab03 {
void conv2d_tiled_output(const Conv2dArgs& a) { (void)a; }
}  // namespace convlab::lab03
