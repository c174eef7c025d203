/// @file wgmma_tf32.cuh
/// @brief Lab 08 (given, do not edit): Hopper's warpgroup MMA, wrapped for steps 5, 6 and 7 — the
///        instruction, the shared-memory descriptors of its operands, the fences and waits of its
///        asynchronous protocol — and which thread holds which element of its tiles.
///
/// NVIDIA, "Parallel Thread Execution ISA", "Asynchronous Warpgroup Level Matrix Multiply-Accumulate
/// Instructions" (wgmma.mma_async with .tf32, its register fragments, its shared-memory matrix
/// layout and matrix descriptor; wgmma.fence, wgmma.commit_group, wgmma.wait_group):
///
///   wgmma.mma_async.sync.aligned.m64nNk8.f32.tf32.tf32  d, a, b-desc, scale-d, 1, 1
///       D (64×N) = A (64×8) · B (8×N) + (scale-d ? D : 0)        N = 128 or 64 here
///
/// One instruction for a whole **warpgroup**: 4 consecutive warps (warp 4i the first), 128
/// threads. A comes from their registers, 4 a thread; B from shared memory, which the unit reads
/// itself through a 64-bit descriptor (no thread loads B); D stays in their registers, N/2 floats
/// a thread. Where step 2's warp issues 4 × 4 mma.sync (16 × 8 × 8 each) for a 64 × 32 tile, a
/// warpgroup issues one instruction for 64 × 128. Drawn for N = 128 (WgmmaWide); N = 64
/// (WgmmaNarrow) is its left half. With w = warp % 4, g = lane / 4, t = lane % 4:
///
///   A (64 rows × 8 k): warp w holds rows 16w .. 16w + 15, as mma.sync's A (mma_tf32.cuh)
///
///                      k: t      t+4
///     row 16w + g        [a0]    [a2]
///     row 16w + g + 8    [a1]    [a3]
///
///   D (64 rows × N columns): the same rows; column group j < N/8 (columns 8j .. 8j + 7) in
///   registers d[4j .. 4j + 3], as mma.sync's D of tile j
///
///                      column 8j + 2t   8j + 2t + 1
///     row 16w + g        [d4j]          [d4j+1]
///     row 16w + g + 8    [d4j+2]        [d4j+3]
///
///   B (8 k × N columns) in shared memory, K-major, no swizzle: **core matrices** of 8 columns
///   × 4 k (16 bytes: a column's 4 consecutive k), 128 contiguous bytes each, column r of the core
///   matrix at bytes 16r .. 16r + 15. A k8-step of B is 2 × N/8 of them; the descriptor says how
///   far apart: LBO (leading dimension byte offset) between the two along k, SBO (stride dimension
///   byte offset) between neighbours along n. Ours, a **plane** of N·32 bytes (Tile::PLANE_FLOATS
///   floats; 4 KB for N = 128):
///
///                 n: 0..7      8..15     16..23          120..127
///       k 0..3    [cm 0,0]    [cm 0,1]  [cm 0,2]  ...   [cm 0,15]      core matrix (kh, nb)
///       k 4..7    [cm 1,0]    [cm 1,1]  [cm 1,2]  ...   [cm 1,15]      at byte kh·128 + nb·256
///
///       byte  0      128     256     384     512          3968   4095
///             [cm 0,0][cm 1,0][cm 0,1][cm 1,1][cm 0,2] ... [cm 1,15]
///
///     element (k, n) at float  (n / 8)·64 + (k / 4)·32 + (n % 8)·4 + k % 4     (LBO 128, SBO 256)
///
/// Step 7 hands A to the instruction from shared memory too (both operands through descriptors:
/// `wgmma.mma_async.sync.aligned.m64nNk8.f32.tf32.tf32 d, a-desc, b-desc, 1, 1, 1`), warp w's 16
/// rows read by the unit as the drawing above numbers them, and lays both out with the **128-byte
/// swizzle** instead of the planes above: each row of a tile (a filter of A, a column of B) holds
/// its 32 k of a slice, 128 bytes, and its 16-byte chunk j (k = 4j .. 4j + 3) is stored at chunk
/// position j ^ (row % 8). Eight rows make a 1024-byte atom (SBO 1024 between atoms; no LBO: the 8
/// k of one k8-step lie inside a row); the unit undoes the XOR from the address bits, so the tile
/// must start 1024-byte aligned, and the descriptor of k8-step ks is the tile's plus 32·ks bytes:
///
///                 chunk position:  0     1     2     3     4     5     6     7
///       row 0 (r % 8 = 0)        [j 0] [j 1] [j 2] [j 3] [j 4] [j 5] [j 6] [j 7]
///       row 1 (r % 8 = 1)        [j 1] [j 0] [j 3] [j 2] [j 5] [j 4] [j 7] [j 6]
///       row 2                    [j 2] [j 3] [j 0] [j 1] [j 6] [j 7] [j 4] [j 5]
///       ...
///       row 7                    [j 7] [j 6] [j 5] [j 4] [j 3] [j 2] [j 1] [j 0]
///
/// Chunk j of 8 consecutive rows lands in 8 different 16-byte bank groups: the unit reads a
/// k8-step's chunk pairs of 8 rows, and the loader's cp.async writes 8 chunks of a row, each in
/// one pass. With the planes above (8 rows of one chunk in one 128-byte core matrix) the same
/// kernel ran 2.6 times as long (lab08_config.hpp, step 7).
///
/// The instruction is asynchronous: it returns before its result is in D. The protocol:
///   wgmma_fence()            before the first wgmma that reads registers other instructions wrote
///                            (A, and D itself after the threads read or wrote it);
///   wgmma_commit_group()     closes the group of the wgmmas issued since the last commit;
///   wgmma_wait_group<N>()    waits until at most N groups are pending: D is then final;
///   fence_proxy_async_shared()  after ordinary stores into shared memory that a wgmma will read
///                            (the unit reads through the "async proxy"), before the barrier.
/// A wgmma exists on compute capability 9.0 only, in code compiled for sm_90a: elsewhere these
/// wrappers trap, and require_wgmma() refuses on the host first, by name.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "convlab/cuda_check.cuh"
#include "convlab/lab08_config.hpp"

// 1 in device code compiled for sm_90a (the only code that has wgmma), else 0.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CONVLAB_LAB08_WGMMA 1
#else
#define CONVLAB_LAB08_WGMMA 0
#endif

namespace convlab::lab08 {

/// The descriptor of one plane (drawn above) at `plane` in shared memory, 16-byte aligned: start
/// address, LBO = 128 and SBO = 256 bytes, each in units of 16 bytes (bits 0–13, 16–29, 32–45),
/// base offset 0 and no swizzle (bits 49–51, 62–63).
__device__ __forceinline__ std::uint64_t wgmma_descriptor(const float* plane) {
  constexpr std::uint64_t kLbo = 128, kSbo = 256;
  const std::uint64_t address = static_cast<unsigned>(__cvta_generic_to_shared(plane));
  return ((address & 0x3FFFF) >> 4) | ((kLbo >> 4) << 16) | ((kSbo >> 4) << 32);
}

/// d = A · B + (accumulate ? d : 0) for one warpgroup's 64×128×8 tile: a[4] this thread's A, `b`
/// B's descriptor, d[64] this thread's accumulators, as drawn above. Asynchronous: d is final only
/// after wgmma_commit_group() and wgmma_wait_group<0>(); until then no instruction may touch d.
__device__ __forceinline__ void wgmma_m64n128k8_tf32(float (&d)[64], const unsigned (&a)[4], std::uint64_t b,
                                                     bool accumulate) {
#if CONVLAB_LAB08_WGMMA
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "{%64, %65, %66, %67}, %68, p, 1, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate ? 1 : 0));
#else
  (void)d, (void)a, (void)b, (void)accumulate;
  __trap();  // no wgmma here: the launcher refuses GPUs other than compute capability 9.0 first
#endif
}

/// The same for a 64×64×8 tile: d[32], the left half of the drawing's D.
__device__ __forceinline__ void wgmma_m64n64k8_tf32(float (&d)[32], const unsigned (&a)[4], std::uint64_t b,
                                                    bool accumulate) {
#if CONVLAB_LAB08_WGMMA
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "{%32, %33, %34, %35}, %36, p, 1, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate ? 1 : 0));
#else
  (void)d, (void)a, (void)b, (void)accumulate;
  __trap();  // no wgmma here: the launcher refuses GPUs other than compute capability 9.0 first
#endif
}

/// The wgmma of an N-column tile (N = 128 or 64): d[N/2].
template <int N>
__device__ __forceinline__ void wgmma_tf32(float (&d)[N / 2], const unsigned (&a)[4], std::uint64_t b,
                                           bool accumulate) {
  static_assert(N == 128 || N == 64, "m64n128k8 or m64n64k8");
  if constexpr (N == 128) {
    wgmma_m64n128k8_tf32(d, a, b, accumulate);
  } else {
    wgmma_m64n64k8_tf32(d, a, b, accumulate);
  }
}

/// d += A · B for one warpgroup's 64×128×8 tile, both operands in shared memory (step 7): `a` and
/// `b` their descriptors (wgmma_descriptor_sw128), d[64] this thread's accumulators as drawn above.
/// Asynchronous, as wgmma_m64n128k8_tf32.
__device__ __forceinline__ void wgmma_m64n128k8_tf32_ss(float (&d)[64], std::uint64_t a, std::uint64_t b) {
#if CONVLAB_LAB08_WGMMA
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.eq.u32 p, 1, 1;\n"  // scale-d: accumulate into d
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(a), "l"(b));
#else
  (void)d, (void)a, (void)b;
  __trap();  // no wgmma here: the launcher refuses GPUs other than compute capability 9.0 first
#endif
}

/// The descriptor of a K-major tile in the 128-byte swizzle (drawn above) whose first row's k8-step
/// starts at `at` (the 1024-byte aligned tile plus 32·ks bytes): start address, SBO = 1024 bytes
/// (an atom of 8 rows), LBO unused (1), layout type 1 (128-byte swizzle, bits 62–63).
__device__ __forceinline__ std::uint64_t wgmma_descriptor_sw128(const float* at) {
  constexpr std::uint64_t kSbo = 1024, kSwizzle128 = 1;
  const std::uint64_t address = static_cast<unsigned>(__cvta_generic_to_shared(at));
  return ((address & 0x3FFFF) >> 4) | (std::uint64_t{1} << 16) | ((kSbo >> 4) << 32) | (kSwizzle128 << 62);
}

/// Orders this thread's earlier register accesses before the wgmmas that follow (wgmma.fence).
__device__ __forceinline__ void wgmma_fence() {
#if CONVLAB_LAB08_WGMMA
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

/// Closes the group of this warpgroup's wgmmas issued since the last commit (wgmma.commit_group).
__device__ __forceinline__ void wgmma_commit_group() {
#if CONVLAB_LAB08_WGMMA
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}

/// Waits until at most `pending` of this warpgroup's committed groups are in flight
/// (wgmma.wait_group): the accumulators of the others are final.
template <int pending>
__device__ __forceinline__ void wgmma_wait_group() {
#if CONVLAB_LAB08_WGMMA
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(pending) : "memory");
#endif
}

/// Makes this thread's ordinary stores into shared memory visible to the async proxy, through
/// which wgmma reads its B operand (fence.proxy.async.shared::cta); a barrier after it makes every
/// thread's visible.
__device__ __forceinline__ void fence_proxy_async_shared() {
#if CONVLAB_LAB08_WGMMA
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

namespace detail {
/// Writes 1 where the code that runs was compiled for sm_90a, 0 where it was not (a template: a
/// header's kernel, defined once however many files include it).
template <int = 0>
__global__ void wgmma_compiled_probe(int* compiled) {
  *compiled = CONVLAB_LAB08_WGMMA;
}
}  // namespace detail

/// Host: steps 5, 6 and 7 run on a GPU of compute capability 9.0 (lab08::wgmma_refusal says why not
/// elsewhere), from code compiled for sm_90a, which the build gives lab 08's targets when 90 is
/// among its CUDA architectures (cmake/ConvlabCudaArchitectures.cmake); throws, naming `step` and
/// what is missing, rather than letting the kernel trap.
inline void require_wgmma(const std::string& step = "lab08 step 5 (tf32x3_wgmma)") {
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (const std::string why = wgmma_refusal(major, minor, step); !why.empty()) throw std::runtime_error(why);
  static const bool compiled = [] {  // once per process: which code the runtime loaded does not change
    int* flag = nullptr;
    int host = 0;
    CUDA_CHECK(cudaMalloc(&flag, sizeof(int)));
    detail::wgmma_compiled_probe<<<1, 1>>>(flag);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(&host, flag, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(flag));
    return host == 1;
  }();
  if (!compiled) {
    throw std::runtime_error(
        step + ": this program has no sm_90a code, and wgmma exists in no other; rebuild "
        "with 90 among its CUDA architectures (the gpu preset on this machine, CONVLAB_CUDA_ARCH=90 or "
        "-DCMAKE_CUDA_ARCHITECTURES=90): lab 08's targets then get sm_90a code");
  }
}

}  // namespace convlab::lab08
