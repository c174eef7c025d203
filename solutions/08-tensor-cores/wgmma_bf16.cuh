/// @file wgmma_bf16.cuh
/// @brief Lab 08 (given, do not edit): Hopper's warpgroup MMA in BF16, for step 6 — the
///        instruction that takes step 4's two small products into step 5's kernel, and which
///        thread holds which element of its A. The protocol (fences, commit, wait) and the
///        descriptor are wgmma_tf32.cuh's.
///
/// NVIDIA, "Parallel Thread Execution ISA", "Asynchronous Warpgroup Level Matrix Multiply-Accumulate
/// Instructions" (wgmma.mma_async with .bf16, its register fragments and shared-memory layout):
///
///   wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16  d, a, b-desc, 1, 1, 1, 0
///       D (64×N) += A (64×16) · B (16×N)                         N = 128 or 64 here
///
/// Twice the depth of the TF32 wgmma (k16, not k8) at the same tensor-core cost (Hopper's BF16
/// peak is twice its TF32 peak), with 8 bits of mantissa (u = 2^-8) instead of 11: enough for
/// products that are themselves ~2^-11 of the result (step 4's argument, docs/design.md,
/// Tolerance). D as in wgmma_tf32.cuh's drawing.
///
///   A (64 rows × 16 k): warp w holds rows 16w .. 16w + 15, as mma.sync's m16n8k16 A
///   (mma_bf16.cuh), two BF16 a register, the smaller k in the low half:
///
///                      k: 2t, 2t+1     2t+8, 2t+9
///     row 16w + g        [a0]          [a2]
///     row 16w + g + 8    [a1]          [a3]
///
///   B (16 k × N columns) in shared memory, K-major, no swizzle: core matrices of 8 columns × 8 k
///   (16 bytes: a column's 8 consecutive k in BF16), 128 contiguous bytes each, two along k per
///   8 columns. In bytes that is the TF32 plane of wgmma_tf32.cuh — a 16-byte row of a core
///   matrix holds 8 BF16 where it held 4 TF32 — so the same descriptor (wgmma_descriptor: LBO 128,
///   SBO 256) reads it: element (k, n) at byte (n / 8)·256 + (k / 8)·128 + (n % 8)·16 + (k % 8)·2.
///
/// The k of the product is only a summation index: which term sits at which k is the caller's to
/// choose, as long as A and B agree (step 6's order: wgmma_gemm.cuh).
#pragma once

#include <cstdint>

#include "wgmma_tf32.cuh"  // CONVLAB_LAB08_WGMMA, wgmma_descriptor, the protocol

namespace convlab::lab08 {

/// d += A · B for one warpgroup's 64×128×16 tile in BF16: a[4] this thread's A (drawn above), `b`
/// B's descriptor, d[64] its accumulators. Asynchronous, as wgmma_m64n128k8_tf32.
__device__ __forceinline__ void wgmma_m64n128k16_bf16(float (&d)[64], const unsigned (&a)[4], std::uint64_t b) {
#if CONVLAB_LAB08_WGMMA
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "{%64, %65, %66, %67}, %68, p, 1, 1, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
#else
  (void)d, (void)a, (void)b;
  __trap();  // no wgmma here: the launcher refuses GPUs other than compute capability 9.0 first
#endif
}

/// The same for a 64×64×16 tile: d[32], the left half of the drawing's D.
__device__ __forceinline__ void wgmma_m64n64k16_bf16(float (&d)[32], const unsigned (&a)[4], std::uint64_t b) {
#if CONVLAB_LAB08_WGMMA
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "{%32, %33, %34, %35}, %36, p, 1, 1, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
#else
  (void)d, (void)a, (void)b;
  __trap();  // no wgmma here: the launcher refuses GPUs other than compute capability 9.0 first
#endif
}

/// The BF16 wgmma of an N-column tile (N = 128 or 64), adding to d[N/2].
template <int N>
__device__ __forceinline__ void wgmma_bf16(float (&d)[N / 2], const unsigned (&a)[4], std::uint64_t b) {
  static_assert(N == 128 || N == 64, "m64n128k16 or m64n64k16");
  if constexpr (N == 128) {
    wgmma_m64n128k16_bf16(d, a, b);
  } else {
    wgmma_m64n64k16_bf16(d, a, b);
  }
}

}  // namespace convlab::lab08
