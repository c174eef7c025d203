/// @file wgmma_gemm.cuh
/// @brief Lab 08, steps 5 and 6 (reference): step 2's 3xTF32 implicit GEMM on Hopper's warpgroup
///        MMA, then with step 4's arithmetic (the small products in one BF16 wgmma). Same file as
///        labs/08-tensor-cores/wgmma_gemm.cuh, with the steps written.
///
/// Idea:      step 2 is issue-bound: every warp loads and splits its fragments of A and B itself,
///            one float at a time, for 2 × 4 mma.sync of 16 × 8 × 8 per product and k8-step.
///            `wgmma.mma_async.m64n128k8` (wgmma_tf32.cuh) multiplies a warpgroup's 64 × 8 of A,
///            from its registers, by an 8 × 128 tile of B that the tensor cores read from shared
///            memory themselves: one instruction for the 64 × 128 tile that step 2's 8 warps
///            multiply with 64, and no thread loads B. Layers of few tiles take a narrow tile
///            instead, 64 columns (m64n64k8) and slices 32 deep (lab08_config.hpp, WgmmaTile).
/// Adds:      over step 2, B's split done **once per block**: each slice of the unrolled input,
///            gathered raw by cp.async as in step 2, is split by the whole block into a "big" and
///            a "small" plane in the core-matrix layout the wgmma's descriptor reads, while the
///            tensor cores multiply the slice before it (two buffers of planes). A's fragments are
///            loaded and split by the one thread that hands them in (a warp owns its 16 rows of W),
///            as step 2 splits them. Per k8-step three wgmmas, step 2's products with A = W and
///            B = the unrolled X (a_small·b_big, a_big·b_small, a_big·b_big), all chained into the
///            accumulators on the tensor cores over the block's whole share of the reduction: none
///            of step 2's float32 additions per slice, so 64 accumulators a thread instead of 128,
///            and two blocks fit an SM. The price is an error bound that grows with the slices a
///            block sums, 20 + 12 per 16 terms + 1 a split in units of 2^-24·S; the launcher runs
///            step 5 where that keeps the FP32 rule (lab08::wgmma_chain_fits, docs/design.md,
///            Tolerance), step 2's kernel elsewhere. With whole groups of DEPTH channels the slices
///            are gathered channel group × tap (tiles::GroupTapLoader), from weights the launcher
///            put in that order once per call. Step 6, over step 5: step 4's arithmetic, the two
///            small products in one BF16 wgmma of depth 16 (wgmma_bf16.cuh), two wgmmas a k8-step
///            instead of three and a third less of B read from shared memory; its products cost
///            132 units of the error budget where step 5's cost 20 (lab08::wgmma_mixed_chain_fits).
/// Achieves:  NVIDIA H200, 2026-11-30, conv_layer_bench (median of 20 runs, ms; step 5, step 6,
///            step 2): B32 C64→64 56×56 K3 0.124–0.125, 0.121–0.122 (0.199); B32 C256→256 14×14
///            K3 0.117–0.119, 0.113 (0.206–0.207, narrow tile); B8 C128→128 128×128 K3
///            0.462–0.466, 0.437–0.441 (0.966–0.973); B16 C3→64 224×224 K7 S2 0.109 (0.137, with
///            one warpgroup, three blocks an SM and, C = 3, the slice-by-slice gather; step 6 runs
///            step 5 there). Every output within 0.06 of the FP32 rule's allowance
///            (results/bench/nvidia-h200/lab08.md).
///
/// Block of W warpgroups (W = wgmma_warpgroups(M): 2 when the layer has more than 64 filters) and
/// tile Tile (WgmmaWide: N = 128, DEPTH = 16, 3 stages; WgmmaNarrow: 64, 32, 2): tile (64·W) × N
/// of Y, warpgroup i its rows 64i .. 64i + 63, warp w its 16 rows of those. Shared memory
/// (wgmma_shared_bytes): STAGES raw slices As (group-tap: [64W][DEPTH + 4], W's rows; else step
/// 2's [DEPTH][64W + 8]) and Bs[DEPTH][N + 8], and planes[2 buffers][big, small][DEPTH/8
/// k8-steps][Tile::PLANE_FLOATS].
///
/// Shapes: X [B][C][H][W], W [M][C][K][K] (A, M × C·K·K), Y [B][M][Ho][Wo].
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "convlab/ceil_div.hpp"
#include "convlab/lab08_config.hpp"
#include "layer_tiles.cuh"
#include "mma_bf16.cuh"          // pack_bf16x2, step 4's
#include "tensor_core_gemm.cuh"  // split_tf32, step 2's
#include "wgmma_bf16.cuh"
#include "wgmma_tf32.cuh"

namespace convlab::lab08 {

// ==== BEGIN STEP 5: 3xTF32 on wgmma ====
inline constexpr bool kStep5Written = true;  // true once split_into_planes and wgmma_step_tf32x3 are written

/// Step 5, the split: the raw slice Bs[k][n] (Tile::DEPTH k × Tile::N columns, as the loader
/// gathered it) into its big and small TF32 parts (split_tf32), each in DEPTH/8 planes (k = 0..7,
/// 8..15, ...) of the layout drawn in wgmma_tf32.cuh: `big` and `small` each point at a buffer's
/// planes, Tile::PLANE_FLOATS apart. Once per slice by the whole block, where step 2 splits every
/// value in every warp that reads it. A thread takes one column's 4 consecutive k per pass, a core
/// matrix's row of 16 bytes: one 16-byte store per part, and a quarter of a warp fills one core
/// matrix's 128 contiguous bytes (no bank conflict); its loads read 32 consecutive columns of a row.
template <typename Tile, int THREADS, int B_LD>
__device__ __forceinline__ void split_into_planes(const float (&Bs)[Tile::DEPTH][B_LD], float* big, float* small) {
  constexpr int N = Tile::N, kQuads = Tile::DEPTH / 4 * N;  // (4 k of one column) per slice
  static_assert(kQuads % THREADS == 0, "every thread takes as many column quads");
#pragma unroll
  for (int i = 0; i < kQuads / THREADS; ++i) {
    const int quad = static_cast<int>(threadIdx.x) + i * THREADS;
    const int n = quad % N, kq = quad / N;  // column n, k = 4·kq .. 4·kq + 3
    unsigned b[4], s[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) split_tf32(Bs[4 * kq + j][n], b[j], s[j]);
    // plane kq / 2 (the k8-step); core matrix (kq % 2, n / 8); its row n % 8
    const int at = (kq / 2) * Tile::PLANE_FLOATS + (n / 8) * 64 + (kq % 2) * 32 + (n % 8) * 4;
    *reinterpret_cast<uint4*>(big + at) = make_uint4(b[0], b[1], b[2], b[3]);
    *reinterpret_cast<uint4*>(small + at) = make_uint4(s[0], s[1], s[2], s[3]);
  }
}

/// Step 5, the products: one k8-step of the warpgroup's 64 × Tile::N tile in 3xTF32, added to `acc`.
/// a_big and a_small: this thread's A fragment (wgmma_tf32.cuh's drawing: W's rows, k of this
/// k8-step), split; big and small: the k8-step's planes of B. Step 2's three products in its
/// order, the small ones first, chained on the tensor core: a_small·b_big, a_big·b_small,
/// a_big·b_big, each adding to `acc` (the kernel zeroes it once, before the first slice).
template <typename Tile>
__device__ __forceinline__ void wgmma_step_tf32x3(float (&acc)[Tile::ACCUMULATORS], const unsigned (&a_big)[4],
                                                  const unsigned (&a_small)[4], const float* big, const float* small) {
  wgmma_tf32<Tile::N>(acc, a_small, wgmma_descriptor(big), true);
  wgmma_tf32<Tile::N>(acc, a_big, wgmma_descriptor(small), true);
  wgmma_tf32<Tile::N>(acc, a_big, wgmma_descriptor(big), true);
}
// ==== END STEP 5 ====

// ==== BEGIN STEP 6: step 4's small products on wgmma ====
// true once split_into_planes_mixed and wgmma_step_tf32_bf16 are written
inline constexpr bool kStep6Written = true;

// Step 4's arithmetic on step 5's kernel: per k8-step the big product w_big·x_big in TF32 (one
// wgmma_tf32) and both small products in one BF16 wgmma of depth 16 (wgmma_bf16.cuh):
// A = [w_big | w_small], B = [x_small ; x_big]. Its k order is step 4's, chosen so that a thread's
// BF16 A is its own TF32 fragment packed: column t of the k8-step at k = 2t, column t + 4 at
// 2t + 1 (the given kernel packs A: a0 = {w_big(g, t), w_big(g, t + 4)}, a1 the same of row g + 8,
// a2 and a3 the same of w_small). Two wgmmas a k8-step where step 5 issues three, and a third less
// of B to read from shared memory.

/// Step 6, the split: the raw slice Bs[k][n] into, per k8-step, a TF32 plane of x_big (as step 5's
/// `big`: wgmma_tf32.cuh's layout) and a BF16 plane of [x_small ; x_big] (wgmma_bf16.cuh's layout,
/// the same bytes as a TF32 plane) in step 6's k order: k = 2j and 2j + 1 hold columns j and j + 4
/// of the k8-step (j = 0..3) of x_small, k = 8 + 2j and 9 + 2j the same of x_big, where x_big =
/// tf32(x) and x_small = x − x_big, each rounded to BF16. `big` and `pairs` each point at a
/// buffer's DEPTH/8 planes, Tile::PLANE_FLOATS apart. A thread takes one column's 8 k of one
/// k8-step per pass: two 16-byte stores per plane, and a quarter of a warp fills a core matrix's
/// 128 contiguous bytes, as in step 5.
template <typename Tile, int THREADS, int B_LD>
__device__ __forceinline__ void split_into_planes_mixed(const float (&Bs)[Tile::DEPTH][B_LD], float* big,
                                                        float* pairs) {
  constexpr int N = Tile::N, kItems = Tile::DEPTH / kWgmmaK * N;  // (a column's 8 k of one k8-step) per slice
  static_assert(kItems % THREADS == 0, "every thread takes as many items");
#pragma unroll
  for (int i = 0; i < kItems / THREADS; ++i) {
    const int item = static_cast<int>(threadIdx.x) + i * THREADS;
    const int n = item % N, ks = item / N;  // column n, k = 8·ks .. 8·ks + 7
    unsigned b[kWgmmaK];
    float x_small[kWgmmaK];
#pragma unroll
    for (int j = 0; j < kWgmmaK; ++j) {
      const float x = Bs[kWgmmaK * ks + j][n];
      b[j] = to_tf32(x);
      x_small[j] = x - tf32_value(b[j]);
    }
    // core matrix (0, n / 8) of plane ks, its row n % 8; core matrix (1, n / 8) 128 bytes on
    const int at = ks * Tile::PLANE_FLOATS + (n / 8) * 64 + (n % 8) * 4;
    *reinterpret_cast<uint4*>(big + at) = make_uint4(b[0], b[1], b[2], b[3]);
    *reinterpret_cast<uint4*>(big + at + 32) = make_uint4(b[4], b[5], b[6], b[7]);
    *reinterpret_cast<uint4*>(pairs + at) =
        make_uint4(pack_bf16x2(x_small[0], x_small[4]), pack_bf16x2(x_small[1], x_small[5]),
                   pack_bf16x2(x_small[2], x_small[6]), pack_bf16x2(x_small[3], x_small[7]));
    *reinterpret_cast<uint4*>(pairs + at + 32) =
        make_uint4(pack_bf16x2(tf32_value(b[0]), tf32_value(b[4])), pack_bf16x2(tf32_value(b[1]), tf32_value(b[5])),
                   pack_bf16x2(tf32_value(b[2]), tf32_value(b[6])), pack_bf16x2(tf32_value(b[3]), tf32_value(b[7])));
  }
}

/// Step 6, the products: one k8-step of the warpgroup's 64 × Tile::N tile, added to `acc`: the two
/// small products in one BF16 wgmma (a_pairs, this thread's A = [w_big | w_small] packed by the
/// kernel, with the `pairs` plane), then the big one in TF32 (a_big with the `big` plane), both
/// chained into acc as step 5's.
template <typename Tile>
__device__ __forceinline__ void wgmma_step_tf32_bf16(float (&acc)[Tile::ACCUMULATORS], const unsigned (&a_big)[4],
                                                     const unsigned (&a_pairs)[4], const float* big,
                                                     const float* pairs) {
  wgmma_bf16<Tile::N>(acc, a_pairs, wgmma_descriptor(pairs));
  wgmma_tf32<Tile::N>(acc, a_big, wgmma_descriptor(big), true);
}
// ==== END STEP 6 ====

/// The kernel of steps 5 and 6 (given), Arith = tf32x3 (step 5) or tf32_bf16 (step 6). A slice's
/// DEPTH/8 k8-steps go to the tensor cores in two halves, each its own commit group, so that the
/// threads ready one half's A registers while the other half's wgmmas run. Per slice kt, in this
/// order:
///
///   1. wait until slice kt − 1's first half is done (wgmma_wait_group<1>: its second may still
///      run), which frees the first half's A registers; split the first half's A fragments of
///      slice kt from the raw As into them, as step 2 does (step 6: the big parts in TF32, and
///      [w_big | w_small] packed in BF16 pairs); wgmma_fence, three wgmmas per k8-step
///      (wgmma_step_tf32x3; step 6: two, wgmma_step_tf32_bf16) on the planes of buffer `buf`,
///      commit;
///   2. the same for the second half, once slice kt − 1's second half is done;
///   3. wait for slice kt + 1's copies, barrier (every warpgroup is then past slice kt − 1's
///      wgmmas, which read the other buffer); split slice kt + 1 into the other buffer's planes
///      (split_into_planes; step 6: split_into_planes_mixed), fence.proxy.async (the wgmmas read
///      the planes through the async proxy); reuse slice kt's raw stage for slice kt + STAGES
///      (cp.async); barrier (the other buffer's planes are complete).
///
/// The wgmmas add into `acc` itself: the whole reduction a block sums is chained on the tensor
/// cores. Waiting for the whole slice before the next one's A (one group a slice) left the tensor
/// cores idle while the threads split it: the halves took 2–2.5 % off step 5 on B32 C256→256
/// 14×14 and about 1 % on B16 C3→64 224×224, less elsewhere; step 6 moved within the runs' spread
/// (NVIDIA H200, results/bench/nvidia-h200/lab08.md).
///
/// Block (x, y, z) sums the slices [z·k_tiles_per_split, (z + 1)·k_tiles_per_split) of the
/// reduction; with more than one split (`atomic`) it adds its tile into a zeroed Y. GROUP_TAP:
/// tiles::GroupTapLoader (C % DEPTH == 0; Wt is then W in its order, order_weights,
/// and A's raw slice is As[m][k]), else tiles::SliceLoader (Wt is W; As[k][m], transposed).
/// BLOCKS_PER_SM: the occupancy it is compiled for (lab08::wgmma_plan).
template <Precision Arith, typename Tile, int WG, bool GROUP_TAP, int BLOCKS_PER_SM>
__global__ void __launch_bounds__(WG * kWarpgroupThreads, BLOCKS_PER_SM)
wgmma_gemm(const float* __restrict__ X, const float* __restrict__ Wt, float* __restrict__ Y, Geometry g,
           int k_tiles_per_split, bool atomic) {
  constexpr int BM = wgmma_block_m(WG), BN = Tile::N, BK = Tile::DEPTH, S = Tile::STAGES, KS = BK / kWgmmaK;
  constexpr int THREADS = WG * kWarpgroupThreads, PLANE = Tile::PLANE_FLOATS;
  constexpr bool STEP5 = Arith == Precision::tf32x3;
  static_assert(STEP5 || Arith == Precision::tf32_bf16, "steps 5 and 6");
  static_assert(WG == 1 || WG == 2, "64 or 128 filters per block");
  static_assert(S >= 2, "a raw slice lands while the one before is split");
  static_assert((BM + kPad) % 32 == 8, "A fragment loads on 32 banks, as step 2's");
  static_assert(BM * (BK + kGroupTapPad) == wgmma_a_slice_floats(BK, WG, true) &&
                    BK * (BM + kPad) == wgmma_a_slice_floats(BK, WG, false), "lab08_config.hpp's A slice");
  // A's raw slice: As[m][k] (group-tap) or As[k][m], = W[m0 + m][the slice's row k] either way.
  using ATile = std::conditional_t<GROUP_TAP, float[BM][BK + kGroupTapPad], float[BK][BM + kPad]>;
  using BTile = float[BK][BN + kPad];  // Bs[k][n] = the slice's row k of the unrolled input, column n0 + n
  using Loader = std::conditional_t<GROUP_TAP, tiles::GroupTapLoader<BM, BN, BK, THREADS>,
                                    tiles::SliceLoader<BM, BN, BK, THREADS>>;
  extern __shared__ __align__(128) float wgmma_smem[];
  float* planes = wgmma_smem;  // [buf 2][big, small][k8-step KS][PLANE]
  ATile* As = reinterpret_cast<ATile*>(wgmma_smem + Tile::PLANES * PLANE);  // [S]
  BTile* Bs = reinterpret_cast<BTile*>(wgmma_smem + Tile::PLANES * PLANE + S * wgmma_a_slice_floats(BK, WG, GROUP_TAP));
  // Element (k, m) of A's raw slice, in the loader's layout.
  const auto a_at = [](const ATile& A, int k, int m) -> float {
    if constexpr (GROUP_TAP) {
      return A[m][k];
    } else {
      return A[k][m];
    }
  };
  // The big (part 0) or small (part 1; step 6: the BF16 pairs) planes of buffer `buf`: its KS
  // k8-steps, one after the other.
  const auto plane = [planes](int buf, int part) { return planes + (2 * buf + part) * KS * PLANE; };
  const auto split_planes = [&](const BTile& B, int buf) {
    if constexpr (STEP5) {
      split_into_planes<Tile, THREADS>(B, plane(buf, 0), plane(buf, 1));
    } else {
      split_into_planes_mixed<Tile, THREADS>(B, plane(buf, 0), plane(buf, 1));
    }
  };

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int gid = lane / 4, tig = lane % 4;
  const int row = warp * 16 + gid;  // this thread's rows of the block tile: row, row + 8 (drawing's 16w + g)
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int k_tiles = ceil_div(g.Kdim, BK);
  const int kt_begin = blockIdx.z * k_tiles_per_split;
  const int kt_end = min(k_tiles, kt_begin + k_tiles_per_split);
  // With GROUP_TAP, launched to overlap W's reordering pass (launch_overlapping), which writes Wt
  // and zeroes a split's Y; without it, an ordinary launch, and the wait returns at once. (Copying
  // X's first slices before the wait gained nothing measurable: lab08.md.)
  wait_for_previous_kernel();
  if (kt_begin >= kt_end) return;
  Loader load(g, m0, n0, kt_begin);

  float acc[Tile::ACCUMULATORS] = {};  // acc[i]: D's register i of the warpgroup's tile (wgmma_tf32.cuh)

  // Prologue: slices kt_begin .. kt_begin + S - 1 in flight, one commit group each; the first
  // split into buffer 0.
#pragma unroll
  for (int s = 0; s < S; ++s) {
    if (kt_begin + s < kt_end) load.template issue<true>(kt_begin + s, As[s], Bs[s], X, Wt, g);
    tiles::copy_async_commit();
  }
  tiles::copy_async_wait<S - 1>();
  __syncthreads();
  split_planes(Bs[0], 0);
  fence_proxy_async_shared();
  __syncthreads();

  // a_big[h][kh], a_small[h][kh]: half h's k8-step kh (k8-step h·KH + kh of the slice):
  // A[row][t], A[row + 8][t], A[row][t + 4], A[row + 8][t + 4], split; step 6's a_small: the BF16
  // pairs {w_big(row, t), w_big(row, t + 4)}, the same of row + 8, then of w_small
  constexpr int KH = KS / 2;
  static_assert(KS % 2 == 0, "a slice's k8-steps in two halves");
  unsigned a_big[2][KH][4], a_small[2][KH][4];
  const auto split_a = [&](int h, const ATile& A) {
#pragma unroll
    for (int kh = 0; kh < KH; ++kh) {
      const int k = (h * KH + kh) * kWgmmaK + tig;
      const float w[4] = {a_at(A, k, row), a_at(A, k, row + 8), a_at(A, k + 4, row), a_at(A, k + 4, row + 8)};
      unsigned(&big)[4] = a_big[h][kh];
      unsigned(&small)[4] = a_small[h][kh];
      if constexpr (STEP5) {
#pragma unroll
        for (int e = 0; e < 4; ++e) split_tf32(w[e], big[e], small[e]);
      } else {
        float w_small[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) big[e] = to_tf32(w[e]), w_small[e] = w[e] - tf32_value(big[e]);
        small[0] = pack_bf16x2(tf32_value(big[0]), tf32_value(big[2]));
        small[1] = pack_bf16x2(tf32_value(big[1]), tf32_value(big[3]));
        small[2] = pack_bf16x2(w_small[0], w_small[2]);
        small[3] = pack_bf16x2(w_small[1], w_small[3]);
      }
    }
  };
  const auto multiply = [&](int h, int b) {  // half h's wgmmas on buffer b's planes, one commit group
    wgmma_fence();  // the A registers (and, before the first, acc's zeros) before the wgmmas
#pragma unroll
    for (int kh = 0; kh < KH; ++kh) {
      const int ks = h * KH + kh;
      if constexpr (STEP5) {
        wgmma_step_tf32x3<Tile>(acc, a_big[h][kh], a_small[h][kh], plane(b, 0) + ks * PLANE, plane(b, 1) + ks * PLANE);
      } else {
        wgmma_step_tf32_bf16<Tile>(acc, a_big[h][kh], a_small[h][kh], plane(b, 0) + ks * PLANE,
                                   plane(b, 1) + ks * PLANE);
      }
    }
    wgmma_commit_group();
  };

  int stage = 0, buf = 0;
  for (int kt = kt_begin; kt < kt_end; ++kt) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      wgmma_wait_group<1>();  // slice kt − 1's half h is done: its registers are free
      split_a(h, As[stage]);
      multiply(h, buf);
    }

    // While the tensor cores multiply slice kt: slice kt + 1 into the other buffer's planes, then
    // slice kt + S into slice kt's raw stage (its A is in registers, its B in planes).
    tiles::copy_async_wait<S - 2>();  // slice kt + 1 has landed for this thread ...
    __syncthreads();  // ... and for all; all have read slice kt's As and are past slice kt − 1's wgmmas
    const int next_stage = stage == S - 1 ? 0 : stage + 1;
    if (kt + 1 < kt_end) split_planes(Bs[next_stage], buf ^ 1);
    fence_proxy_async_shared();  // before the copies below: no fresh copy in flight to order
    if (kt + S < kt_end) load.template issue<true>(kt + S, As[stage], Bs[stage], X, Wt, g);
    tiles::copy_async_commit();
    __syncthreads();  // buffer buf ^ 1 is whole for every warpgroup
    stage = next_stage;
    buf ^= 1;
  }
  wgmma_wait_group<0>();  // the last slice's wgmmas: acc is final
  tiles::copy_async_wait<0>();

  store_warpgroup_tile<Tile::N>(acc, Y, g, m0, n0, row, tig, atomic);
}

}  // namespace convlab::lab08
