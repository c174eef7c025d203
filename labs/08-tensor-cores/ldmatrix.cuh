/// @file ldmatrix.cuh
/// @brief Lab 08 (given, do not edit): loading a warp's A fragments from shared memory with one
///        instruction, `ldmatrix`, for steps 3 and 4.
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
/// so lane l gives row l % 8 + 8·(l / 8 % 2), column 4·(l / 16) (a_row_address), and one
/// instruction replaces four shared loads, its results already in the four consecutive registers
/// the MMA takes. `.x2` loads matrices 0 and 1 only (lanes 0–15 give the addresses): the a2, a3 of
/// step 4's BF16 fragment, where each 32-bit word is a pair of BF16 values. Row addresses must be
/// 16-byte aligned; rows whose pitch is 4 words past a multiple of 8 (mod 32) make the eight rows
/// of a matrix fall on 32 different banks.
#pragma once

#include <cuda_runtime.h>

namespace convlab::lab08 {

/// The row this lane hands to ldmatrix for a 16 × 8 float fragment: its row (0..15) and its first
/// column (0 or 4), as drawn above.
__device__ __forceinline__ int a_row(int lane) { return lane % 8 + 8 * (lane / 8 % 2); }
__device__ __forceinline__ int a_column(int lane) { return 4 * (lane / 16); }

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
