// WRONG ON PURPOSE (tests/wrong_submissions/compile-error):
// this lab does not compile (a name that is never declared). The grader must fail lab 02 alone,
// quoting nvcc's error, and grade lab 01 of the same submission normally.
#include "convlab/lab_api.cuh"

namespace convlab::lab02 {

void conv2d_constant_mask(const Conv2dArgs& a) {
  launch_the_kernel_i_forgot_to_write(a);  // BUG: undeclared
}

}  // namespace convlab::lab02
