// Lab 06, step 3a (reference): register tiles. Same file as labs/06-im2col/register_tiles.cuh,
// with the step written.
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
inline constexpr bool kStep3aWritten = true;  // true once this kernel and the four functions of
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
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  }

  const int k_tiles = ceil_div(g.Kdim, BK);
  for (int kt = 0; kt < k_tiles; ++kt) {
    load.template copy_a<false>(kt, As, Wt, g);
    load.template copy_b<false>(Bs, X, g);
    __syncthreads();  // the whole slice is in shared memory before anyone multiplies it
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a[TM];  // a[i] = As[ty + i·(BM/TM)][kk]: this thread's TM weights of row kk
      float b[TN];  // b[j] = Bs[kk][tx + j·(BN/TN)]: its TN unrolled inputs of row kk
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[ty + i * (BM / TM)][kk];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[kk][tx + j * (BN / TN)];
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
    }
    __syncthreads();  // everyone is done with the slice before the next one overwrites it
  }

  // Column n = b·Ho·Wo + hw of the tile is Y[b][m][hw] = Y[(b·M + m)·Ho·Wo + hw].
#pragma unroll
  for (int j = 0; j < TN; ++j) {
    const int n = n0 + tx + j * (BN / TN);
    if (n >= g.N) break;  // columns grow with j
    const int b = n / g.HoWo;
    float* y = Y + (b * g.M * g.HoWo + (n - b * g.HoWo));
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int m = m0 + ty + i * (BM / TM);
      if (m >= g.M) break;  // rows grow with i
      y[m * g.HoWo] = acc[i][j];
    }
  }
}
// ==== END STEP 3a ====

}  // namespace convlab::lab06::gemm
