/// @file tf32_wgmma_gemm.cuh
/// @brief Lab 08, step 7 (reference): step 1's 1xTF32 implicit GEMM on Hopper's warpgroup MMA,
///        both operands read by the tensor cores from shared memory. Same file as
///        labs/08-tensor-cores/tf32_wgmma_gemm.cuh, with the step written.
///
/// Idea:      step 1's warps load every fragment of A and B from shared memory themselves
///            (ldmatrix) and issue 16 × 8 × 8 mma.sync: 32 instructions a warp per k8-step of a
///            128 × 128 tile, and the SM's issue slots and shared-memory port are its limit (0.70×
///            cuDNN's TF32 kernel on B8 C128→128 128×128, NVIDIA H200). A wgmma (wgmma_tf32.cuh)
///            takes A and B from shared memory through descriptors: one instruction a warpgroup
///            for 64 × 128 × 8, and no thread touches an operand between its copy and the MMA.
/// Adds:      over step 1, its passes and its loader's 16-byte chunks as they are (nhwc_tiles.cuh:
///            X channels-last and W tap-major, rounded to TF32 once), the chunks copied into the
///            **128-byte swizzled** K-major layout the unit reads (swizzled_chunk: a slice row of a
///            filter or a column is 128 bytes, chunk j at position j ^ (row % 8)); per slice, 4
///            wgmmas a warpgroup (wgmma_slice_tf32), chained into its accumulators over the
///            block's share of the reduction. Copies of big layers go to L2 only (cp.async.cg),
///            of few channels through L1 (cp.async.ca), where a slice's taps read neighbouring
///            pixels again.
/// Achieves:  NVIDIA H200, the A/B program of results/bench/nvidia-h200/lab08.md (held, ms):
///            B8 C128→128 128×128 K3 0.186 (step 1 0.284, cuDNN TF32 0.199); B32 C256→256 14×14
///            0.056 (0.073, 0.049); B32 C64→64 56×56 0.063 (0.084, 0.085); B4 C512→512 14×14
///            0.038 (0.048, 0.047). Without the swizzle (steps 5 and 6's planes) the same kernel
///            took 0.49 ms on 128×128.
///
/// Block of W warpgroups (W = tf32_wgmma_warpgroups(M): 2 when the layer has more than 64 filters),
/// tile (64·W) × 128 of Y, warpgroup i its rows 64i .. 64i + 63. Shared memory
/// (tf32_wgmma_shared_bytes): kTf32WgmmaStages stages, each A's 64·W rows then B's 128, 128 bytes
/// (one slice) a row, swizzled.
///
/// Shapes: Xr [B][H][W][Cp], Wr [M][K·K·Cp] (nhwc_tiles.cuh), Y [B][M][Ho][Wo].
#pragma once

#include <cuda_runtime.h>

#include "convlab/ceil_div.hpp"
#include "convlab/lab08_config.hpp"
#include "kernel_overlap.cuh"
#include "ldmatrix.cuh"          // shared_address
#include "nhwc_tiles.cuh"
#include "tensor_core_gemm.cuh"  // store_warpgroup_tile
#include "wgmma_tf32.cuh"

namespace convlab::lab08 {

// ==== BEGIN STEP 7: step 1 on wgmma ====
inline constexpr bool kStep7Written = true;  // true once swizzled_chunk and wgmma_slice_tf32 are written

/// Step 7, the layout: where chunk j (k = 4j .. 4j + 3 of the slice) of row r of a tile goes, in
/// floats from the tile's start, in the 128-byte swizzle that wgmma_tf32.cuh draws: row r takes
/// 128 bytes (kNhwcSliceDepth floats), and its chunk j sits at chunk position j ^ (r % 8). The
/// loader copies each chunk there; the kernel keeps every tile 1024-byte aligned.
__device__ __forceinline__ int swizzled_chunk(int r, int j) {
  return r * kNhwcSliceDepth + (j ^ (r % 8)) * kChunkFloats;
}

/// Step 7, the products: one slice (kNhwcSliceDepth / 8 k8-steps) of the warpgroup's 64 × 128 tile,
/// 1xTF32, added to `acc`. `a` is the first of the warpgroup's 64 rows of A's swizzled tile, `b`
/// B's swizzled tile; k8-step ks starts 8·ks floats (32 bytes) into each, which is what its
/// descriptors say (wgmma_descriptor_sw128): the unit applies the swizzle to the addresses it forms.
__device__ __forceinline__ void wgmma_slice_tf32(float (&acc)[64], const float* a, const float* b) {
#pragma unroll
  for (int ks = 0; ks < kNhwcSliceDepth / kWgmmaK; ++ks) {
    wgmma_m64n128k8_tf32_ss(acc, wgmma_descriptor_sw128(a + ks * kWgmmaK), wgmma_descriptor_sw128(b + ks * kWgmmaK));
  }
}
// ==== END STEP 7 ====

/// Step 7's kernel (given): step 1's pipeline — kTf32WgmmaStages slices in flight by cp.async,
/// one multiplied — with the loader's chunks placed by swizzled_chunk and each slice multiplied by
/// wgmma_slice_tf32. Per slice kt:
///
///   1. wait for slice kt's copies, fence.proxy.async (the unit reads shared memory through the
///      async proxy; the copies wrote it through the generic one), barrier: slice kt is whole for
///      every warpgroup, and slice kt − 1's wgmmas are done in all of them;
///   2. copy slice kt + S − 1 into slice kt − 1's stage;
///   3. wgmma_fence, the slice's wgmmas, commit, wait: the accumulators chain on the tensor cores.
///
/// Xr and Wr are step 1's reordered tensors with `cp` channels; the launcher starts this kernel as
/// their passes end, so it waits for them before its first copy. Block (x, y, z) sums the slices
/// [z·k_tiles_per_split, (z + 1)·k_tiles_per_split); with more than one split (`atomic`) it adds
/// its tile into a zeroed Y. L1: the copies through L1 (few channels), else to L2 only.
template <int WG, bool L1>
__global__ void __launch_bounds__(WG * kWarpgroupThreads, tf32_wgmma_blocks_per_sm(WG))
tensor_core_gemm_tf32_wgmma(const float* __restrict__ Xr, const float* __restrict__ Wr, float* __restrict__ Y,
                            Geometry g, int k_tiles_per_split, bool atomic, int cp) {
  constexpr int BM = wgmma_block_m(WG), BN = kBlockN, BK = kNhwcSliceDepth, S = kTf32WgmmaStages;
  constexpr int STAGE = (BM + BN) * BK;  // floats of a stage: A's BM rows, then B's BN rows
  static_assert(WG == 1 || WG == 2, "64 or 128 filters per block");
  static_assert(BN == 128, "one m64n128k8 wgmma a k8-step covers the tile's columns");
  static_assert(S >= 2 && (BM * BK * 4) % 1024 == 0 && (STAGE * 4) % 1024 == 0,
                "every tile starts on a 1024-byte swizzle atom");
  extern __shared__ __align__(1024) float tf32_wgmma_smem[];
  const auto a_tile = [](int s) { return tf32_wgmma_smem + s * STAGE; };
  const auto b_tile = [](int s) { return tf32_wgmma_smem + s * STAGE + BM * BK; };

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int row = warp * 16 + lane / 4;  // this thread's rows of the block tile: row, row + 8
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int k_tiles = ceil_div(g.KK * cp, BK);
  const int kt_begin = blockIdx.z * k_tiles_per_split;
  const int kt_end = min(k_tiles, kt_begin + k_tiles_per_split);
  if (shared_address(tf32_wgmma_smem) % 1024 != 0) __trap();  // the swizzle's atoms would be misread
  if (kt_begin >= kt_end) return;
  nhwc::ChunkLoader<BM, BN, BK, WG * kWarpgroupThreads> load(g, cp, m0, n0, kt_begin);
  wait_for_previous_kernel();  // the passes that write Xr and Wr: their ends overlap this set-up
  const auto issue = [&](int s) {
    float* a = a_tile(s);
    float* b = b_tile(s);
    load.template issue_to<L1>([a](int r, int j) { return a + swizzled_chunk(r, j); },
                               [b](int r, int j) { return b + swizzled_chunk(r, j); }, Xr, Wr, g, cp);
  };

  float acc[BN / 2] = {};  // acc[i]: D's register i of the warpgroup's 64 × 128 tile (wgmma_tf32.cuh)

  // Prologue: slices kt_begin .. kt_begin + S - 2 in flight, one commit group each.
#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    if (kt_begin + s < kt_end) issue(s);
    tiles::copy_async_commit();
  }
  int stage = 0;
  for (int kt = kt_begin; kt < kt_end; ++kt) {
    tiles::copy_async_wait<S - 2>();  // slice kt has landed for this thread ...
    fence_proxy_async_shared();       // ... where the tensor cores will see it ...
    __syncthreads();                  // ... and for all; every warpgroup is done with slice kt - 1
    const int next_stage = stage == 0 ? S - 1 : stage - 1;
    if (kt + S - 1 < kt_end) issue(next_stage);
    tiles::copy_async_commit();
    wgmma_fence();  // acc's zeros (first slice) and last values before the wgmmas
    wgmma_slice_tf32(acc, a_tile(stage) + (warp / 4) * kWgmmaM * BK, b_tile(stage));
    wgmma_commit_group();
    wgmma_wait_group<0>();
    stage = stage == S - 1 ? 0 : stage + 1;
  }
  tiles::copy_async_wait<0>();
  store_warpgroup_tile<BN>(acc, Y, g, m0, n0, row, lane % 4, atomic);
}

}  // namespace convlab::lab08
