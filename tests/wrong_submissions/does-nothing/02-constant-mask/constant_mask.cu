// WRONG ON PURPOSE (tests/wrong_submissions/does-nothing):
// the function returns without launching anything — and, unlike the stub, without calling
// not_implemented(). The grader must report every output as unwritten (it is still the NaN
// poison the runner poured in).
#include "convlab/lab_api.cuh"

namespace convlab::lab02 {

void conv2d_constant_mask(const Conv2dArgs& a) {
  (void)a;  // BUG: no kernel is launched
}

}  // namespace convlab::lab02
