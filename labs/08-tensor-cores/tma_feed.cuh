/// @file tma_feed.cuh
/// @brief Lab 08 (given, do not edit): step 1's slices copied by the Tensor Memory Accelerator
///        (TMA, compute capability 9.0 and later) instead of every thread's cp.async.
///
/// nhwc_tiles.cuh's loader costs each thread an address, an edge test and a cp.async per 16-byte
/// chunk, 8 chunks a thread a slice: without those copies (the same slice multiplied again)
/// step 1's kernel took 28 % less time on B8 C128→128 128×128 (NVIDIA H200,
/// results/bench/nvidia-h200/lab08.md). A TMA copy moves a whole tile on one thread's request and
/// tells a barrier in shared memory when its bytes have landed. Two tensor maps, made on the host
/// once per call, describe the reordered tensors (nhwc_tiles.cuh):
///
///   W's map, tiled:  Wr as a 2D tensor [M][K·K·Cp]; a box of 32 k' × 128 filters at (k', m0)
///                    is As, filters past M read as zeros.
///   X's map, im2col: Xr as [B][H][W][Cp], with the padding as the corners of the window the
///                    walk slides (lower −P, upper P − (K − 1)·D on both axes); a box of 32
///                    channels × 128 positions, started at the tile's first output position
///                    (b, h·S − P, w·S − P) with the tap's offset (q·D, p·D), walks the
///                    positions of one row, then the next row, then the next image, and reads a
///                    position outside X (the padding) as zeros: Bs[n][k'] = element (k', n0 + n)
///                    of the unrolled matrix for the slice's channels c .. c + 31 of tap (p, q).
///
/// Both write 128-byte rows (32 floats) in the 128-byte swizzle, the layout SwizzledTile reads.
/// The harness makes the maps (convlab/tensor_maps.cuh): the driver's encoders are driver API,
/// which a lab's host code may not call.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "convlab/lab08_config.hpp"
#include "convlab/tensor_maps.cuh"
#include "layer_tiles.cuh"

namespace convlab::lab08::tma {

using tiles::Geometry;

/// The two maps of one call: W's (tiled) and X's (im2col).
struct Maps {
  CUtensorMap w;
  CUtensorMap x;
};

/// The maps of Xr [batch][H][W][cp] and Wr [M][K·K·cp] for a layer that step1_tma_fits (the
/// harness makes them: common/include/convlab/tensor_maps.cuh).
inline Maps step1_maps(const float* Xr, const float* Wr, const Geometry& g, int cp, int batch) {
  Maps m;
  m.w = tensor_map_rows_sw128(Wr, g.M, static_cast<long long>(g.KK) * cp, kNhwcSliceDepth, kTmaBlockM);
  m.x = tensor_map_im2col_nhwc_sw128(Xr, batch, g.H, g.W, cp, -g.P, g.P - (g.K - 1) * g.D, kNhwcSliceDepth, kBlockN);
  return m;
}

// ---- Device side: PTX ISA, "mbarrier" and "cp.async.bulk.tensor" ----------------------------
//
// A stage's barrier is armed by the thread that issues its copies (arrive.expect_tx: one arrival
// and the bytes to come); each copy counts its bytes off it as they land (complete_tx); the phase
// completes when both have, and every thread waits on the phase's parity (0, 1, 0, ...).

__device__ __forceinline__ unsigned shared_u32(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

/// Makes `count` stages' barriers, one arrival each; then the block must __syncthreads.
__device__ __forceinline__ void init_barriers(std::uint64_t* bars, int count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  for (int s = 0; s < count; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(shared_u32(bars + s)));
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");  // visible to the TMA unit
#else
  (void)bars, (void)count;
  __trap();  // the launcher takes the TMA feed on compute capability 9.0 and later only
#endif
}

/// Before a stage is refilled: this thread's reads of it (ldmatrix, the generic proxy) ordered
/// before the TMA's writes (the async proxy). The block's barrier orders the other threads'.
__device__ __forceinline__ void order_reads_before_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

/// Arms `bar` for `bytes` and copies W's box at (k, m0) to `a` and X's im2col box at (c, ws, hs, b)
/// with the tap's offset (dx, dy) to `b`; both destinations 1024-byte aligned.
__device__ __forceinline__ void copy_slice(std::uint64_t* bar, unsigned bytes, float* a, const CUtensorMap* w_map, int k,
                                           int m0, float* b, const CUtensorMap* x_map, int c, int ws, int hs, int image,
                                           int dx, int dy) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const unsigned barrier = shared_u32(bar);
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(barrier), "r"(bytes) : "memory");
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          shared_u32(a)),
      "l"(reinterpret_cast<std::uint64_t>(w_map)), "r"(k), "r"(m0), "r"(barrier)
      : "memory");
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
      "[%6], {%7, %8};\n" ::"r"(shared_u32(b)),
      "l"(reinterpret_cast<std::uint64_t>(x_map)), "r"(c), "r"(ws), "r"(hs), "r"(image), "r"(barrier),
      "h"(static_cast<unsigned short>(dx)), "h"(static_cast<unsigned short>(dy))
      : "memory");
#else
  (void)bar, (void)bytes, (void)a, (void)w_map, (void)k, (void)m0, (void)b, (void)x_map, (void)c, (void)ws, (void)hs,
      (void)image, (void)dx, (void)dy;
  __trap();
#endif
}

/// Waits until the phase of `bar` with this parity has completed: the stage's bytes have landed.
__device__ __forceinline__ void wait_for_copies(std::uint64_t* bar, unsigned parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(shared_u32(bar)), "r"(parity)
        : "memory");
  } while (done == 0);
#else
  (void)bar, (void)parity;
  __trap();
#endif
}

}  // namespace convlab::lab08::tma
