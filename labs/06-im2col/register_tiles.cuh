// Lab 06, step 3a — register tiles (labs/06-im2col/README.md, step 3a). You write the kernel
// between the STEP 3a markers, with the four index functions of implicit_gemm.cuh's step 3a,
// then set kStep3aWritten = true. The launch is given (register_tiled_gemm.cu).
#pragma once

#include "convlab/ceil_div.hpp"
#include "implicit_gemm.cuh"

namespace convlab::lab06::gemm {

// Step 3a's block tile, BM×BN outputs of Y (rows m: filters, columns n = b·Ho·Wo + h·Wo + w),
// and its (BM/TM)·(BN/TN) threads: a 1-D block (threadIdx.x only) seen as a (BM/TM) × (BN/TN)
// grid, thread t at row ty = t / (BN/TN), column tx = t % (BN/TN). Thread (ty, tx) owns the
// TM×TN outputs at rows ty + i·(BM/TM) and columns tx + j·(BN/TN), strided over the tile:
//
//   BM = BN = 128, TM = TN = 8: a 16 × 16 thread grid, 256 threads
//
//             n0 + tx   n0 + tx + 16   ...   n0 + tx + 112        (j = 0 .. 7)
//   m0 + ty      x           x                   x
//   m0 + ty+16   x           x                   x                acc[i][j] is output
//      ...                                                        (m0 + ty + 16·i, n0 + tx + 16·j)
//   m0 + ty+112  x           x                   x
//   (i = 0 .. 7)
//
// Why strided: in the product loop the 16 threads of a thread row read 16 consecutive floats of
// a Bs row (no bank conflict), and the two thread rows of a warp read As rows 8 floats apart
// (different banks); the outputs a warp stores are runs of 16 consecutive columns.

// ==== BEGIN STEP 3a: register tiles ====
inline constexpr bool kStep3aWritten = false;  // TODO(step 3a): true once this kernel and the four functions of
                                               // implicit_gemm.cuh's step 3a are written

/// Step 3a: W's slice in As[m][k], the unrolled input's in Bs[k][n], one buffer each, copied
/// with plain loads; every thread accumulates its TM×TN outputs in registers over the C·K·K
/// reduction, one BK-deep slice at a time, and stores them to Y[b][m][h][w].
template <int BM, int BN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 512 / ((BM / TM) * (BN / TN)))
register_tiles_kernel(const float* __restrict__ X, const float* __restrict__ Wt, float* __restrict__ Y,
                      Geometry g) {
  constexpr int BK = kStep3SliceDepth;            // 8: the reduction, BK rows at a time
  constexpr int THREADS_X = BN / TN;              // threads per thread row (16)
  constexpr int THREADS = (BM / TM) * THREADS_X;  // 256 (128 for BM = 64)
  static_assert(BM % TM == 0 && BN % TN == 0, "whole register tiles");
  __shared__ float As[BM][BK];  // As[m][k] = W[m0 + m][k0 + k]
  __shared__ float Bs[BK][BN];  // Bs[k][n] = unrolled element (k0 + k, n0 + n)

  const int tx = threadIdx.x % THREADS_X;
  const int ty = threadIdx.x / THREADS_X;
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  SliceLoader<BM, BN, BK, THREADS> load(g, m0, n0, /*first_slice=*/0);

  float acc[TM][TN];  // acc[i][j]: output (m0 + ty + i·(BM/TM), n0 + tx + j·(BN/TN))
  // TODO(step 3a): zero acc. Index acc (and a, b below) only with compile-time constants: every
  //                loop over i, j or kk fully unrolled (#pragma unroll), or the arrays go to local
  //                memory (ptxas -v: "spill stores").
  // TODO(step 3a): for each slice kt = 0 .. ⌈C·K·K / BK⌉ - 1:
  //                  load.template copy_a<false>(kt, As, Wt, g);  load.template copy_b<false>(Bs, X, g);
  //                  __syncthreads();
  //                  for each kk < BK:
  //                    float a[TM];  // a[i] = As[ty + i·(BM/TM)][kk]: this thread's TM weights of row kk
  //                    float b[TN];  // b[j] = Bs[kk][tx + j·(BN/TN)]: its TN unrolled inputs of row kk
  //                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]) for all TM·TN pairs;
  //                  __syncthreads();  (before the next slice overwrites As and Bs)
  // TODO(step 3a, last): store the tile. acc[i][j] is row m = m0 + ty + i·(BM/TM) and column
  //                n = n0 + tx + j·(BN/TN) = b·Ho·Wo + hw, i.e. Y[(b·M + m)·Ho·Wo + hw]; skip
  //                m ≥ M and n ≥ N (the ragged edges of the last tiles).
  (void)As, (void)Bs, (void)tx, (void)ty, (void)load, (void)acc, (void)X, (void)Wt, (void)Y;
}
// ==== END STEP 3a ====

}  // namespace convlab::lab06::gemm
