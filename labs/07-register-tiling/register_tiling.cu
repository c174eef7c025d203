// Lab 07 — register tiling: several outputs per thread in x and y, compile-time filter sizes.
//
// Idea:      a thread computes an OUT_Y×OUT_X patch of outputs. It loads the
//            (OUT_Y+K-1)×(OUT_X+K-1) input window it needs into registers once and reuses each
//            value for up to K² outputs, so loads per FMA fall from 2 (lab 01) towards
//            1/(OUT_X·OUT_Y). K, OUT_X and OUT_Y are template parameters, so every loop unrolls
//            and the register arrays stay in registers (the talk: run-time loop bounds cost 3×).
//
// Shapes: N, P height×width; M K×K; K in 2..7 and odd 9..17.
#include "convlab/lab_api.cuh"

namespace convlab::lab07 {

void conv2d_register_tiled(const Conv2dArgs& a) {
  // TODO(step 1): a kernel template <int K, int OUT_X, int OUT_Y> that loads the input window
  //               into a register array and accumulates OUT_X·OUT_Y outputs.
  // TODO(step 2): broadcast the mask within each warp with __shfl_sync (or use constant memory).
  // TODO(step 3): dispatch a.mask_width to the right instantiation, launch, check the launch,
  //               and delete the next line.
  (void)a;
  not_implemented("lab07: the register-tiled kernel is not written yet");
}

}  // namespace convlab::lab07
