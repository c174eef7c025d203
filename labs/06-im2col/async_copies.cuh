// Lab 06, step 3c — the slices travel with cp.async, STAGES of them in flight
// (labs/06-im2col/README.md, step 3c). You write the kernel between the STEP 3c markers, then
// set kStep3cWritten = true. The copies (SliceLoader::issue, copy_async_commit,
// copy_async_wait in implicit_gemm.cuh) and the launch (register_tiled_gemm.cu) are given.
#pragma once

#include "convlab/ceil_div.hpp"
#include "implicit_gemm.cuh"
#include "transposed_float4.cuh"

namespace convlab::lab06::gemm {

// The pipeline, STAGES = 4 buffers of each tile in shared memory (stage s holds the slices kt
// with (kt - kt_begin) % STAGES == s). Before the loop: the first STAGES-1 slices issued, one
// commit group each. Then per slice kt:
//
//     wait until slice kt has landed (at most STAGES-2 groups still in flight); __syncthreads()
//     issue slice kt + STAGES - 1 into the stage slice kt - 1 used (everyone is past it now)
//     multiply slice kt
//
//   iteration kt:  0           1           2           3           4
//   stage 0        multiply 0  copy 4 ~~~  ~~~~~~~~~~  ~~~~~~~~~~  multiply 4
//   stage 1        ~~~~~~~~~~  multiply 1  copy 5 ~~~  ~~~~~~~~~~  ~~~~~~~~~~
//   stage 2        ~~~~~~~~~~  ~~~~~~~~~~  multiply 2  copy 6 ~~~  ~~~~~~~~~~
//   stage 3        copy 3 ~~~  ~~~~~~~~~~  ~~~~~~~~~~  multiply 3  copy 7 ~~~
//   (slices 0, 1, 2 are issued before iteration 0; ~ a copy in flight)
//
// so while slice kt is multiplied, slices kt+1 .. kt+STAGES-1 are on their way from global
// memory. Every iteration commits one group, empty near the end, so that "at most STAGES-2 in
// flight" always means "slice kt has landed". 4 stages × BK·(BM + BN + 2·kPad) floats fit the
// 48 KB of static shared memory for BM = BN = 128, BK = 8.

/// What a step-3c kernel does with its finished register tile: the plain store of step 3b
/// (store_tile). Step 3d adds another (split-K's atomic adds).
template <int BM, int BN>
struct StoreTile {
  float* Y;
  Geometry g;
  bool vector_store;
  __device__ void operator()(const float (&acc)[TM][TN], int m0, int n0, int ty, int tx) const {
    store_tile<BM, BN>(Y, acc, g, m0, n0, ty, tx, vector_store);
  }
};

// ==== BEGIN STEP 3c: async copies ====
inline constexpr bool kStep3cWritten = false;  // TODO(step 3c): true once async_copies_kernel is written

/// Step 3c: step 3b's block tile, thread mapping, product loop and store, with the slices copied
/// by cp.async through STAGES stages. Block (x, y, z) sums the slices [z·k_tiles_per_split,
/// (z + 1)·k_tiles_per_split) of the reduction (one split, all of them, until step 3d) and hands
/// its tile to `store`. MIN_BLOCKS (__launch_bounds__' second argument) caps the registers per
/// thread so that that many blocks fit on an SM.
template <int BM, int BN, int BK, int STAGES, int MIN_BLOCKS, class Store>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), MIN_BLOCKS)
async_copies_kernel(const float* __restrict__ X, const float* __restrict__ Wt, Geometry g, int k_tiles_per_split,
                    Store store) {
  constexpr int THREADS = (BM / TM) * (BN / TN);
  static_assert(STAGES >= 2, "at least double buffering");
  static_assert(STAGES * BK * (BM + BN + 2 * kPad) * 4 <= 48 * 1024, "static shared memory is 48 KB at most");
  __shared__ __align__(16) float As[STAGES][BK][BM + kPad];  // As[s][k][m] = W[m0 + m][k0 + k] of stage s
  __shared__ __align__(16) float Bs[STAGES][BK][BN + kPad];  // Bs[s][k][n] = unrolled (k0 + k, n0 + n)

  const FragmentCoords t = fragment_coords<BM, BN>();
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const int k_tiles = ceil_div(g.Kdim, BK);
  const int kt_begin = blockIdx.z * k_tiles_per_split;
  const int kt_end = min(k_tiles, kt_begin + k_tiles_per_split);
  if (kt_begin >= kt_end) return;  // an empty split (the host avoids them)
  SliceLoader<BM, BN, BK, THREADS> load(g, m0, n0, kt_begin);

  float acc[TM][TN];  // acc[i][j]: output (m0 + fragment_row(i), n0 + fragment_col(j))
  // TODO(step 3c): zero acc. The prologue: for s = 0 .. STAGES - 2, issue slice kt_begin + s into
  //                stage s if it is < kt_end (load.template issue<true>(kt, As[s], Bs[s], X, Wt, g):
  //                both operands by cp.async, A transposed), and copy_async_commit() either way.
  // TODO(step 3c): for kt = kt_begin .. kt_end - 1 (the picture above), with `stage` the stage of
  //                slice kt (0 at first, then the next one round the ring):
  //                  copy_async_wait<STAGES - 2>(); __syncthreads();
  //                  issue slice kt + STAGES - 1 (if < kt_end) into the stage slice kt - 1 used;
  //                  copy_async_commit() either way;
  //                  multiply_slice<BM, BN>(As[stage], Bs[stage], acc, t.ty, t.tx).
  // TODO(step 3c, last): copy_async_wait<0>() (no copy may outlive the block), then
  //                store(acc, m0, n0, t.ty, t.tx).
  (void)As, (void)Bs, (void)t, (void)acc, (void)X, (void)Wt, (void)store, (void)load;
}
// ==== END STEP 3c ====

}  // namespace convlab::lab06::gemm
