// Lab 06, step 1 — convolution layer as explicit unrolling (im2col) followed by a tiled GEMM.
//
// Idea:      for each image b, build X_unroll[C·K·K][Ho·Wo]: column h·Wo+w holds the C·K·K inputs
//            output (h, w) needs, row c·K·K + p·K + q holds input (c, h·S-P+p·D, w·S-P+q·D)
//            (zero outside X). Then Y[b] = W[M][C·K·K] × X_unroll[C·K·K][Ho·Wo] is a plain
//            matrix product, computed with a shared-memory tiled GEMM.
// Costs:     X_unroll repeats each input about K²/S² times: extra memory traffic that step 2
//            removes (`grader analyze` gives the replication factor of a layer).
//
// Shapes: X [B][C][H][W], W [M][C][K][K], Y [B][M][Ho][Wo].
#include "convlab/lab_api.cuh"

namespace convlab::lab06 {

void conv_layer_unroll_gemm(const ConvLayerArgs& a) {
  // TODO(step 1): an unroll kernel that fills X_unroll for one image (one thread per element
  //               of X_unroll), using the index mapping above.
  // TODO(step 2): a TILE_WIDTH×TILE_WIDTH shared-memory tiled GEMM kernel:
  //               Y[b] (M × Ho·Wo) = W (M × C·K·K) · X_unroll (C·K·K × Ho·Wo).
  // TODO(step 3): here, allocate X_unroll once, and for each image launch both kernels,
  //               checking each launch; then delete the next line.
  (void)a;
  not_implemented("lab06 step 1: unroll + GEMM is not written yet");
}

}  // namespace convlab::lab06
