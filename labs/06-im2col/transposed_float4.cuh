// Lab 06, step 3b — As transposed, float4 fragment loads (labs/06-im2col/README.md, step 3b).
// You write the three functions between the STEP 3b markers, then set kStep3bWritten = true.
// The thread mapping (fragment_coords, fragment_row, fragment_col) is given; the launch too
// (register_tiled_gemm.cu).
#pragma once

#include "convlab/ceil_div.hpp"
#include "implicit_gemm.cuh"

namespace convlab::lab06::gemm {

/// Shared rows of steps 3b–3d are padded by 4 floats: rows stay 16-byte aligned (float4 loads),
/// and the transposed A copies of a warp hit 32 different banks (SliceLoader::copy_a_transposed).
inline constexpr int kPad = 4;

// Steps 3b–3d: which outputs a thread owns. The block is 1-D (threadIdx.x only); its
// THREADS = (BM/TM)·(BN/TN) threads are seen as a (BM/TM) × (BN/TN) grid (ty, tx), filled by
// warps of 4×8 patches: lane l of warp w sits at
//
//     ty = (w / WARPS_X)·4 + l / 8,   tx = (w % WARPS_X)·8 + l % 8,   WARPS_X = (BN/TN) / 8
//
// and thread (ty, tx) owns 8 rows and 8 columns, each set two runs of 4:
//
//     rows    m0 + fragment_row(i) = m0 + ty·4 + i      (i < 4)    and m0 + BM/2 + ty·4 + i - 4 (i ≥ 4)
//     columns n0 + fragment_col(j) = n0 + tx·4 + j      (j < 4)    and n0 + BN/2 + tx·4 + j - 4 (j ≥ 4)
//
//   BM = BN = 128: a 16 × 16 thread grid; thread (ty, tx) = (1, 2) owns the x's:
//
//        column: 0 .. 7  8 .. 11  12 ..     63  64 .. 71  72 .. 75  76 ..  127
//     row 0..3                                                                  (ty = 0)
//     row 4..7           x x x x                          x x x x               (ty = 1)
//        ...
//     row 68..71         x x x x                          x x x x               (BM/2 + ty·4)
//        ...
//
// Why: per reduction row kk a thread reads its 8 weights As[kk][fragment_row(0..7)] and its 8
// inputs Bs[kk][fragment_col(0..7)] as two float4 each (runs of 4 consecutive, 16-byte aligned
// floats: 4 shared loads instead of 16). A warp's 4 thread rows read 16 consecutive floats of
// As[kk] per float4 load, its 8 thread columns 32 consecutive floats of Bs[kk]: one
// conflict-free shared-memory access each. (Runs of 8, tx·8 .. tx·8+7, would put lanes tx and
// tx + 4 on the same banks.)

/// Row of the block tile for register row i of thread row ty (see the picture above).
template <int BM>
__device__ __forceinline__ int fragment_row(int i, int ty) {
  return i < 4 ? ty * 4 + i : BM / 2 + ty * 4 + (i - 4);
}

/// Column of the block tile for register column j of thread column tx.
template <int BN>
__device__ __forceinline__ int fragment_col(int j, int tx) {
  return j < 4 ? tx * 4 + j : BN / 2 + tx * 4 + (j - 4);
}

/// This thread's place (ty, tx) in the block's thread grid: warps as 4×8 patches.
struct FragmentCoords {
  int ty, tx;
};
template <int BM, int BN>
__device__ __forceinline__ FragmentCoords fragment_coords() {
  constexpr int WARP_TY = 4, WARP_TX = 8;
  constexpr int THREADS_X = BN / TN;
  constexpr int WARPS_X = THREADS_X / WARP_TX;
  static_assert(THREADS_X % WARP_TX == 0 && (BM / TM) % WARP_TY == 0, "whole 4×8 warp patches");
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  return {(warp / WARPS_X) * WARP_TY + lane / WARP_TX, (warp % WARPS_X) * WARP_TX + lane % WARP_TX};
}

// ==== BEGIN STEP 3b: transposed As, float4 ====
inline constexpr bool kStep3bWritten = false;  // TODO(step 3b): true once multiply_slice, store_tile and
                                               // transposed_float4_kernel are written

/// One slice's products: for each of its BK rows kk, this thread's 8 weights and 8 inputs as two
/// float4 each, then the TM·TN multiply-adds into acc. As[k][m] and Bs[k][n] hold the slice.
template <int BM, int BN, int BK, int A_LD, int B_LD>
__device__ __forceinline__ void multiply_slice(const float (&As)[BK][A_LD], const float (&Bs)[BK][B_LD],
                                               float (&acc)[TM][TN], int ty, int tx) {
  // TODO(step 3b): for each kk < BK (unrolled):
  //                  a[i] = As[kk][fragment_row(i)]: two float4 loads, at &As[kk][ty·4] and
  //                         &As[kk][BM/2 + ty·4] (*reinterpret_cast<const float4*>(p): aligned,
  //                         since the rows are 16-byte aligned and ty·4 is a multiple of 4);
  //                  b[j] = Bs[kk][fragment_col(j)]: likewise at &Bs[kk][tx·4] and &Bs[kk][BN/2 + tx·4];
  //                  acc[i][j] = fmaf(a[i], b[j], acc[i][j]) for all TM·TN pairs.
  (void)As, (void)Bs, (void)acc, (void)ty, (void)tx;
}

/// Stores the register tile: acc[i][j] is Y(m0 + fragment_row(i), n0 + fragment_col(j)), and
/// column n = b·Ho·Wo + hw is Y[(b·M + m)·Ho·Wo + hw]; rows m ≥ M and columns n ≥ N are skipped.
/// vector_store (Ho·Wo % 4 == 0 and Y 16-byte aligned): a run of 4 columns then lies in one
/// image and is one aligned float4, stored at once.
template <int BM, int BN>
__device__ __forceinline__ void store_tile(float* __restrict__ Y, const float (&acc)[TM][TN], const Geometry& g,
                                           int m0, int n0, int ty, int tx, bool vector_store) {
  // TODO(step 3b): step 3a's store with rows m0 + fragment_row<BM>(i, ty) and columns
  //                n0 + fragment_col<BN>(j, tx); with vector_store, each run of 4 columns (j = 0..3,
  //                4..7) is stored from its first column as one float4:
  //                *reinterpret_cast<float4*>(p) = make_float4(acc[i][j], ..., acc[i][j + 3]).
  (void)Y, (void)acc, (void)g, (void)m0, (void)n0, (void)ty, (void)tx, (void)vector_store;
}

/// Step 3b: step 3a with As transposed, As[k][m], the 4×8 warp patches and two runs of 4 rows
/// and columns per thread, and the fragments read as float4. One buffer, plain loads.
template <int BM, int BN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 512 / ((BM / TM) * (BN / TN)))
transposed_float4_kernel(const float* __restrict__ X, const float* __restrict__ Wt, float* __restrict__ Y,
                         Geometry g, bool vector_store) {
  constexpr int BK = kStep3SliceDepth;
  constexpr int THREADS = (BM / TM) * (BN / TN);
  __shared__ __align__(16) float As[BK][BM + kPad];  // As[k][m] = W[m0 + m][k0 + k]: transposed
  __shared__ __align__(16) float Bs[BK][BN + kPad];  // Bs[k][n] = unrolled element (k0 + k, n0 + n)

  const FragmentCoords t = fragment_coords<BM, BN>();
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  SliceLoader<BM, BN, BK, THREADS> load(g, m0, n0, /*first_slice=*/0);

  float acc[TM][TN];  // acc[i][j]: output (m0 + fragment_row(i), n0 + fragment_col(j))
  // TODO(step 3b): your 3a kernel's body, with load.template copy_a_transposed<false>(kt, As, Wt, g)
  //                in place of copy_a, multiply_slice<BM, BN>(As, Bs, acc, t.ty, t.tx) in place of
  //                the product loop, and store_tile<BM, BN>(Y, acc, g, m0, n0, t.ty, t.tx,
  //                vector_store) at the end.
  (void)As, (void)Bs, (void)t, (void)load, (void)acc, (void)X, (void)Wt, (void)Y, (void)vector_store;
}
// ==== END STEP 3b ====

}  // namespace convlab::lab06::gemm
