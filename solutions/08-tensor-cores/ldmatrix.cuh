/// @file ldmatrix.cuh
/// @brief Lab 08 (given, do not edit): loading a warp's fragments from shared memory with one
///        instruction, `ldmatrix`, for steps 1, 3 and 4.
///
/// PTX ISA, "Warp-level matrix load instruction: ldmatrix":
///
///   ldmatrix.sync.aligned.m8n8.x4.shared.b16  {d0, d1, d2, d3}, [addr]
///
/// loads four 8 × 8 matrices of 16-bit elements, each row 16 bytes. Lane l hands in the address
/// of one row: row l % 8 of matrix l / 8 (lanes 0–7 the rows of matrix 0, 8–15 of matrix 1, …);
/// lane (g = l / 4, t = l % 4) gets back, in d_m, the 4 bytes at t of row g of matrix m. Read as
/// 32-bit words, a row of 16 bytes is 4 floats, so a TF32 A fragment of mma_tf32.cuh is exactly
/// four such matrices:
///
///        A (16 rows × 8 k), floats            the matrices (8 rows × 4 words)
///          k: t      t+4                       m = 0: rows 0–7,  k 0–3   → a0
///   row g    [a0]    [a2]                      m = 1: rows 8–15, k 0–3   → a1
///   row g+8  [a1]    [a3]                      m = 2: rows 0–7,  k 4–7   → a2
///                                              m = 3: rows 8–15, k 4–7   → a3
///
/// so lane l gives row l % 8 + 8·(l / 8 % 2), column 4·(l / 16) (a_row, a_column), and one
/// instruction replaces four shared loads, its results already in the four consecutive registers
/// the MMA takes.
///
/// B's fragment of one tile is two registers, b0 (k = t) and b1 (k = t + 4) of column g. Stored
/// K-major (a row of 8 k a column of B, step 1's Bs[n][k]), 16 rows × 8 k are the fragments of two
/// tiles, and the lanes choose the order in which they come back:
///
///        Bs (16 columns of B × 8 k), floats    the matrices
///          k: t      t+4                       m = 0: rows 0–7,  k 0–3   → b0 of the first tile
///   row g    [b0]    [b1]   first tile         m = 1: rows 0–7,  k 4–7   → b1 of the first tile
///   row g+8  [b0]    [b1]   second tile        m = 2: rows 8–15, k 0–3   → b0 of the second
///                                              m = 3: rows 8–15, k 4–7   → b1 of the second
///
/// so lane l gives row l % 8 + 8·(l / 16), column 4·(l / 8 % 2) (b_row, b_column). The MMA takes
/// each tile's b0, b1 as a pair of consecutive registers, and d0, d1 and d2, d3 are such pairs. A's
/// order (b0, b0, b1, b1) loads the same values, but then every MMA first copies its two B
/// registers into a pair: 128 moves per warp per 32-deep slice in step 1's kernel, and 10 % of its
/// time on B8 C128→128 128×128 (NVIDIA H200, results/bench/nvidia-h200/lab08.md).
///
/// `.x2` loads matrices 0 and 1 only (lanes 0–15 give the addresses): the a2, a3 of step 4's BF16
/// fragment, where each 32-bit word is a pair of BF16 values. Row addresses must be 16-byte
/// aligned; rows whose pitch is 4 words past a multiple of 8 (mod 32) make the eight rows of a
/// matrix fall on 32 different banks.
#pragma once

#include <cuda_runtime.h>

namespace convlab::lab08 {

/// The row this lane hands to ldmatrix for a 16 × 8 float fragment: its row (0..15) and its first
/// column (0 or 4), as drawn above.
__device__ __forceinline__ int a_row(int lane) { return lane % 8 + 8 * (lane / 8 % 2); }
__device__ __forceinline__ int a_column(int lane) { return 4 * (lane / 16); }

/// The row and first column this lane hands to ldmatrix for the B fragments of two tiles, in
/// pairs, as drawn above.
__device__ __forceinline__ int b_row(int lane) { return lane % 8 + 8 * (lane / 16); }
__device__ __forceinline__ int b_column(int lane) { return 4 * (lane / 8 % 2); }

/// The shared-memory address ldmatrix takes, of a generic pointer into shared memory.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// a[0..3] = the 16 × 8 float fragment whose rows this warp's lanes point at (a_row, a_column).
__device__ __forceinline__ void load_a_fragment(unsigned (&a)[4], unsigned address) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
               : "r"(address));
#else
  (void)a, (void)address;
  __trap();  // the launchers refuse GPUs before compute capability 8.0
#endif
}

/// b[0], b[1] = b0, b1 of the first tile; b[2], b[3] = those of the second, for lanes that point at
/// rows b_row, column b_column (as drawn above): load_a_fragment's instruction, its lanes pointing
/// elsewhere.
__device__ __forceinline__ void load_b_fragments(unsigned (&b)[4], unsigned address) { load_a_fragment(b, address); }

/// lo, hi = a 16 × 4-word fragment: row g's word t and row g + 8's (matrices 0 and 1; lanes 0–15
/// point at rows a_row, column 0).
__device__ __forceinline__ void load_a_half(unsigned& lo, unsigned& hi, unsigned address) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(lo), "=r"(hi) : "r"(address));
#else
  (void)lo, (void)hi, (void)address;
  __trap();
#endif
}

}  // namespace convlab::lab08
