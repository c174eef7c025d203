/// @file mma_tf32.cuh
/// @brief Lab 08 (given, do not edit): the two PTX instructions the lab's tensor-core steps are
///        built from, wrapped, and which thread of a warp holds which element of their tiles.
///
/// PTX ISA, "Warp-level matrix multiply-accumulate instructions", mma.m16n8k8 with .tf32:
///
///   mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32  d, a, b, c     D (16×8) = A (16×8) · B (8×8) + C
///
/// One instruction for the whole warp: each of its 32 threads hands in 4 registers of A, 2 of B
/// and 4 of C, and gets 4 of D back. With g = lane / 4 (the "group", 0..7) and t = lane % 4
/// (the thread in its group, 0..3):
///
///        A (16 rows × 8 k)                    B (8 k × 8 columns)        C, D (16 rows × 8 columns)
///          k: t      t+4                        column g                  columns 2t, 2t+1
///   row g    [a0]    [a2]               k = t    [b0]               row g    [d0, d1]
///   row g+8  [a1]    [a3]               k = t+4  [b1]               row g+8  [d2, d3]
///
/// so lanes 0–3 hold row 0 of A (and column 0 of B), lanes 4–7 row 1, and so on. A TF32 number
/// is a float32 with the low 13 of its 23 mantissa bits ignored: 10 explicit bits, unit roundoff
/// u = 2^-11. The unit reads each A and B register as TF32; convert first (to_tf32) so that
/// the rounding is to nearest rather than whatever the hardware does with the bits it ignores.
/// The products of TF32 numbers are exact; the unit sums them into float32 accumulators.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>

#include "convlab/cuda_check.cuh"

namespace convlab::lab08 {

/// x rounded to the nearest TF32 (ties away from zero), as the bits of a float32 whose low 13
/// mantissa bits are zero: what an A or B register of mma_tf32 takes.
__device__ __forceinline__ unsigned to_tf32(float x) {
  unsigned bits;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(bits) : "f"(x));
  return bits;
}

/// The float32 value of a TF32 register (the same bits).
__device__ __forceinline__ float tf32_value(unsigned bits) { return __uint_as_float(bits); }

/// A value already rounded to TF32 (its 13 low mantissa bits zero: to_tf32's result, or an element of
/// step 1's reordered tensors, nhwc_tiles.cuh) as the register mma_tf32 takes: the same bits, no
/// instruction.
__device__ __forceinline__ unsigned tf32_bits(float rounded) { return __float_as_uint(rounded); }

/// x rounded to the nearest TF32 by integer arithmetic on its bits: add half a TF32 unit (bit 12)
/// and clear the 13 low bits, so that a carry rounds the magnitude up (ties away from zero, as
/// to_tf32). Two instructions where `cvt.rna.tf32.f32` takes three or more (counted in the compiled
/// code for sm_90). The same result as to_tf32 for every finite x and for ±infinity; a NaN whose
/// mantissa is nearly all ones carries into the sign and comes out as zero, so use it only where
/// another part carries a NaN on (split_tf32's small part does).
__device__ __forceinline__ unsigned round_tf32_bits(float x) { return (__float_as_uint(x) + 0x1000u) & 0xffffe000u; }

/// x truncated to TF32 (towards zero): its 13 low bits cleared, one instruction. Off by less than
/// 2^-10 of |x|, twice to_tf32's error; a NaN stays a NaN.
__device__ __forceinline__ unsigned truncate_tf32(float x) { return __float_as_uint(x) & 0xffffe000u; }

/// d += A · B for one 16×8×8 tile, the registers of this thread as drawn above: a[4] of A,
/// b0 and b1 of B, d[4] of the accumulators (C = D).
__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  __trap();  // the launchers refuse GPUs before compute capability 8.0
#endif
}

/// d = A · B for one 16×8×8 tile, from zero: C is the zero register, so d's old values are
/// neither read nor needed (step 2 adds d to its accumulators itself).
__device__ __forceinline__ void mma_tf32_from_zero(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%10,%10,%10,%10};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(0.0f));
#else
  __trap();  // the launchers refuse GPUs before compute capability 8.0
#endif
}

/// d += A · B for one 16×8×4 tile: half the depth, for a k-step whose k ≥ 4 are all zero (the
/// band's last k-step at K = 10 to 13, band_last_step_half). A is 16 × 4: a0 = row g, k = t;
/// a1 = row g + 8, k = t (the k8 fragment's a0 and a1); B is 4 × 8: b0 = k t, column g (the k8
/// fragment's b0).
__device__ __forceinline__ void mma_tf32_k4(float (&d)[4], unsigned a0, unsigned a1, unsigned b0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a0), "r"(a1), "r"(b0));
#else
  __trap();  // the launchers refuse GPUs before compute capability 8.0
#endif
}

/// Host: tensor cores with TF32 need compute capability 8.0 (Ampere) or later; every launcher
/// of the lab checks first, rather than failing in the kernel.
inline void require_tensor_cores() {
  int device = 0, major = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  if (major < 8) throw std::runtime_error("lab08: TF32 tensor cores need compute capability 8.0 or later");
}

}  // namespace convlab::lab08
