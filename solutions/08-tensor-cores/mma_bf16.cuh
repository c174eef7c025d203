/// @file mma_bf16.cuh
/// @brief Lab 08 (given, do not edit): the BF16 tensor-core instruction of step 4, wrapped, and
///        which thread of a warp holds which element of its tiles.
///
/// PTX ISA, "Warp-level matrix multiply-accumulate instructions", mma.m16n8k16 with .bf16:
///
///   mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32  d, a, b, c    D (16×8) = A (16×16) · B (16×8) + C
///
/// Twice the depth of mma_tf32.cuh's instruction in about the same time: an H200 issued 148–150
/// billion of these a second and 153–154 billion of those (measured, 2026-11-28). A BF16 number keeps 7 explicit mantissa bits (unit roundoff
/// u = 2^-8) and float32's exponent range. Each register holds two of them, the lower k in the
/// lower 16 bits. With g = lane / 4 and t = lane % 4, as in mma_tf32.cuh:
///
///        A (16 rows × 16 k)                            B (16 k × 8 columns)
///          k: 2t, 2t+1   2t+8, 2t+9                       column g
///   row g    [  a0  ]     [  a2  ]              k = 2t, 2t+1     [b0]
///   row g+8  [  a1  ]     [  a3  ]              k = 2t+8, 2t+9   [b1]
///
/// C and D are laid out as in mma_tf32.cuh: row g columns 2t, 2t+1 in d0, d1; row g+8 in d2, d3.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace convlab::lab08 {

/// Two floats rounded to the nearest BF16 and packed as one register of a fragment: `lower`
/// (the smaller k) in the low 16 bits.
__device__ __forceinline__ unsigned pack_bf16x2(float lower, float upper) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lower, upper);
  return *reinterpret_cast<const unsigned*>(&v);
}

/// d += A · B for one 16×8×16 tile in BF16, the registers of this thread as drawn above.
__device__ __forceinline__ void mma_bf16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  __trap();  // the launchers refuse GPUs before compute capability 8.0
#endif
}

/// d = A · B for one 16×8×16 tile in BF16, from zero (C is the zero register).
__device__ __forceinline__ void mma_bf16_from_zero(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%10,%10,%10,%10};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(0.0f));
#else
  __trap();  // the launchers refuse GPUs before compute capability 8.0
#endif
}

/// d += A · B for one 16×8×8 tile in BF16: half the depth of mma_bf16. A is 16 × 8: a0 = row g,
/// k = 2t, 2t + 1; a1 = row g + 8; B is 8 × 8: b0 = k 2t, 2t + 1, column g (the first halves of
/// mma_bf16's a0, a1 and b0).
__device__ __forceinline__ void mma_bf16_k8(float (&d)[4], unsigned a0, unsigned a1, unsigned b0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a0), "r"(a1), "r"(b0));
#else
  __trap();  // the launchers refuse GPUs before compute capability 8.0
#endif
}

}  // namespace convlab::lab08
