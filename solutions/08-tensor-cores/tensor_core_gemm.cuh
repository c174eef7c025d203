/// @file tensor_core_gemm.cuh
/// @brief Lab 08, steps 1 and 2 (reference): lab 06's implicit GEMM with its multiply-adds on
///        tensor cores. Same file as labs/08-tensor-cores/tensor_core_gemm.cuh, with the steps
///        written.
///
/// Block tile BM × kBlockN of Y (BM = 128 for step 1 on layers of more than 64 filters, else 64),
/// kStages reduction slices in flight, 8 warps as 2 (m) × 4 (n). A warp owns a (BM/2) × 32 tile of
/// Y: MT × NT = (BM/32) × 4 MMA tiles of 16 × 8, whose accumulators its threads hold, 4 floats per
/// tile each (mma_tf32.cuh's drawing). Step 1 reads slices kNhwcSliceDepth = 32 deep (four
/// k-steps) from the reordered tensors, K-major, copied by every thread (nhwc_tiles.cuh) or, on
/// Hopper, by TMA at one thread's request (tma_feed.cuh); step 2 slices kSliceDepth = 16 deep (two
/// k-steps) from lab 06's loader, k-major rows (layer_tiles.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "convlab/ceil_div.hpp"
#include "convlab/lab08_config.hpp"
#include "layer_tiles.cuh"
#include "ldmatrix.cuh"
#include "mma_tf32.cuh"
#include "nhwc_tiles.cuh"
#include "tma_feed.cuh"

namespace convlab::lab08 {

using tiles::Geometry;

/// Where this thread's MMA fragments lie in the block tile.
struct WarpCoords {
  int warp_m;  ///< 0..kWarpsM-1: the warp's rows are warp_m · BM/2 .. + BM/2
  int warp_n;  ///< 0..kWarpsN-1: its columns are warp_n · 32 .. + 32
  int gid;     ///< lane / 4: row g of A (and g + 8), column g of B
  int tig;     ///< lane % 4: k = t and t + 4 of A and B; columns 2t, 2t + 1 of D
};

// ==== BEGIN STEP 1: TF32 fragments and MMAs ====
inline constexpr bool kStep1Written = true;  // true once mma_step_tf32 is written

/// Step 1: one k-step (k = kk .. kk + 7 of the slice) of the warp's MT × NT tiles, 1xTF32: one MMA
/// per tile. As and Bs are the slice's tiles in shared memory, A[m][k] and B[n][k], both K-major
/// (the layout the instruction's `.row.col` names), their values already rounded to TF32 by the
/// given passes before the kernel; `As.chunk(r, k)` is the shared address of row r's floats k ..
/// k + 3 (nhwc_tiles.cuh: PaddedTile for the cp.async feed, SwizzledTile for the TMA feed, so your
/// function serves both kernels). acc[mt][nt][e] is element e of tile (mt, nt) as the drawing in
/// mma_tf32.cuh numbers D's registers. Each fragment comes in one ldmatrix (ldmatrix.cuh): a 16 × 8
/// block of K-major floats is A's fragment of one tile row, or B's of two tile columns.
template <int MT, int NT, typename Tile>
__device__ __forceinline__ void mma_step_tf32(const Tile& As, const Tile& Bs, int kk, const WarpCoords& w,
                                              float (&acc)[MT][NT][4]) {
  static_assert(NT % 2 == 0, "B's fragments two tile columns at a time");
  const int lane = 4 * w.gid + w.tig;
  // b[nt]: column warp_n·32 + nt·8 + gid of B, k = kk + tig and kk + tig + 4. One ldmatrix takes the
  // 16 columns from nt = 2j, its registers in the pairs the MMA takes: b0, b1 of 2j, then of 2j + 1.
  const int brow = b_row(lane), bk = kk + b_column(lane);
  unsigned b[NT][2];
#pragma unroll
  for (int j = 0; j < NT / 2; ++j) {
    unsigned d[4];
    load_b_fragments(d, Bs.chunk(w.warp_n * 32 + j * 2 * kMmaN + brow, bk));
    b[2 * j][0] = d[0], b[2 * j][1] = d[1], b[2 * j + 1][0] = d[2], b[2 * j + 1][1] = d[3];
  }
  const int row = a_row(lane), k = kk + a_column(lane);  // the 16 × 8 block's row this lane points at
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
    unsigned a[4];  // rows warp_m·(MT·16) + mt·16 + gid and + 8, k = kk + tig and kk + tig + 4
    load_a_fragment(a, As.chunk(w.warp_m * (MT * kMmaM) + mt * kMmaM + row, k));
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) mma_tf32(acc[mt][nt], a, b[nt][0], b[nt][1]);
  }
}
// ==== END STEP 1 ====

// ==== BEGIN STEP 2: 3xTF32 ====
inline constexpr bool kStep2Written = true;  // true once split_tf32 and mma_step_tf32x3 are written

/// x as the sum of two TF32 numbers: big = x rounded to the nearest TF32 (round_tf32_bits), small =
/// what is left, x − big — exact in float32, |x − big| ≤ 2^-11·|x| — truncated to TF32
/// (truncate_tf32), which loses less than 2^-10 of it: x − big − small ≤ 2^-21·|x|. Four
/// instructions; a NaN x leaves a NaN small, so a NaN input still reaches the output.
__device__ __forceinline__ void split_tf32(float x, unsigned& big, unsigned& small) {
  big = round_tf32_bits(x);
  small = truncate_tf32(x - tf32_value(big));
}

/// Step 2: the same k-step in 3xTF32, into `part`, the accumulators of the current slice.
/// A·B = (Ab + As)(Bb + Bs) ≈ Ab·Bb + Ab·Bs + As·Bb (As·Bs, ~2^-22 of the product, is dropped):
/// three MMAs per tile, the two small products first, all chained on the tensor core into
/// part[mt][nt]. The tensor core's additions truncate; chained over a whole reduction they would
/// drift, so (after Ootomo and Yokota) `part` holds one slice's sum only: the given kernel adds it to
/// `acc` with a float32 addition, which rounds to nearest, after every slice, and zeroes it.
template <int MT, int NT, int A_LD, int B_LD>
__device__ __forceinline__ void mma_step_tf32x3(const float (&As)[kSliceDepth][A_LD], const float (&Bs)[kSliceDepth][B_LD],
                                                int kk, const WarpCoords& w, float (&part)[MT][NT][4]) {
  unsigned b_big[NT][2], b_small[NT][2];  // as step 1's b[nt], split
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    const int n = w.warp_n * 32 + nt * kMmaN + w.gid;
    split_tf32(Bs[kk + w.tig][n], b_big[nt][0], b_small[nt][0]);
    split_tf32(Bs[kk + w.tig + 4][n], b_big[nt][1], b_small[nt][1]);
  }
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
    const int m = w.warp_m * (MT * kMmaM) + mt * kMmaM + w.gid;
    const float a[4] = {As[kk + w.tig][m], As[kk + w.tig][m + 8], As[kk + w.tig + 4][m], As[kk + w.tig + 4][m + 8]};
    unsigned a_big[4], a_small[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) split_tf32(a[e], a_big[e], a_small[e]);
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
      mma_tf32(part[mt][nt], a_small, b_big[nt][0], b_big[nt][1]);
      mma_tf32(part[mt][nt], a_big, b_small[nt][0], b_small[nt][1]);
      mma_tf32(part[mt][nt], a_big, b_big[nt][0], b_big[nt][1]);
    }
  }
}
// ==== END STEP 2 ====

/// Whether the epilogues may store outputs two at a time: where Ho·Wo is even, GEMM columns n and
/// n + 1 (n even) lie side by side in one image's row of Y, 8 bytes aligned.
__device__ __forceinline__ bool output_pairs_fit(const float* Y, const Geometry& g) {
  return g.HoWo % 2 == 0 && reinterpret_cast<uintptr_t>(Y) % 8 == 0;
}

/// Y's offset of GEMM column n, row 0: Y[b][0][h][w] with b = n / HoWo. A thread stores several
/// rows of each of its columns, so the epilogues divide once per column: dividing at every store
/// (about 25 instructions each, 32 stores a warp in step 1) took 2–7 % of steps 1, 5 and 6 on
/// three of the bench layers (results/bench/nvidia-h200/lab08.md).
__device__ __forceinline__ int output_column(const Geometry& g, int n) {
  const int b = n / g.HoWo;
  return b * g.M * g.HoWo + (n - b * g.HoWo);
}

/// Outputs (m, n) and (m, n + 1) of the GEMM, n even, into Y [B][M][Ho][Wo], or added to it with
/// atomics (`atomic`: split-K, into a zeroed Y); a column past N is skipped. `column` is
/// output_column(g, n). With `pairs` (output_pairs_fit) one 8-byte store or atomic add takes both,
/// so four lanes fill a 32-byte sector where 4-byte stores each filled half of it: 2–14 % off step 5
/// (results/bench/nvidia-h200/lab08.md).
__device__ __forceinline__ void store_output_pair(float* Y, const Geometry& g, int m, int n, int column, float v0,
                                                  float v1, bool pairs, bool atomic) {
  if (pairs && n < g.N) {  // N = B·HoWo is even, so n + 1 < N too
    float2* y = reinterpret_cast<float2*>(Y + (column + m * g.HoWo));
    if (atomic) {
      atomicAdd(y, make_float2(v0, v1));
    } else {
      *y = make_float2(v0, v1);
    }
    return;
  }
  const float v[2] = {v0, v1};
#pragma unroll
  for (int e = 0; e < 2; ++e) {
    if (pairs || n + e >= g.N) continue;
    float* y = Y + (output_column(g, n + e) + m * g.HoWo);  // n and n + 1 may lie in two images
    if (atomic) {
      atomicAdd(y, v[e]);
    } else {
      *y = v[e];
    }
  }
}

/// A warp's MT × NT accumulator tiles into Y (given), or added to it (store_output_pair). D's
/// registers (mma_tf32.cuh): e = 0, 1 are row gid, columns 2·tig + e; e = 2, 3 the same of row
/// gid + 8.
template <int MT, int NT>
__device__ __forceinline__ void store_warp_tile(const float (&acc)[MT][NT][4], float* Y, const Geometry& g, int m0,
                                                int n0, const WarpCoords& w, bool atomic) {
  const bool pairs = output_pairs_fit(Y, g);
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    const int n = n0 + w.warp_n * 32 + nt * kMmaN + 2 * w.tig;  // even
    const int column = output_column(g, n);
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = m0 + w.warp_m * (MT * kMmaM) + mt * kMmaM + w.gid + 8 * half;
        if (row < g.M) {
          store_output_pair(Y, g, row, n, column, acc[mt][nt][2 * half], acc[mt][nt][2 * half + 1], pairs, atomic);
        }
      }
    }
  }
}

/// A warpgroup's 64 × N accumulator tile (wgmma_tf32.cuh's drawing of D) into Y, or added to it
/// (store_output_pair), steps 5, 6 and 7 (given): acc[4j + e] is column n0 + 8j + 2·tig + e % 2 of
/// row m0 + row + 8·(e / 2), where row = 16·warp + gid is the thread's first row of the block tile;
/// acc[i] and acc[i + 1] (i even) are one output pair.
template <int N>
__device__ __forceinline__ void store_warpgroup_tile(const float (&acc)[N / 2], float* Y, const Geometry& g, int m0,
                                                     int n0, int row, int tig, bool atomic) {
  const bool pairs = output_pairs_fit(Y, g);
#pragma unroll
  for (int j = 0; j < N / 8; ++j) {
    const int n = n0 + 8 * j + 2 * tig;
    const int column = output_column(g, n);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int m = m0 + row + 8 * h;
      if (m < g.M) store_output_pair(Y, g, m, n, column, acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1], pairs, atomic);
    }
  }
}

/// Step 1's kernel (given): lab 06 step 3c's pipeline — kStages slices in flight by cp.async, one
/// multiplied — fed from the reordered tensors (nhwc_tiles.cuh) in kNhwcSliceDepth-deep slices
/// of 16-byte chunks, with the multiply done by mma_step_tf32. Xr and Wr are X and W as
/// nhwc::to_channels_last and order_weights (weight_order.cuh) leave them, with `cp` channels; the
/// launcher starts this kernel as those passes end, so it waits for them before its first copy
/// (wait_for_previous_kernel). Block (x, y, z) sums the slices [z·k_tiles_per_split,
/// (z + 1)·k_tiles_per_split) of the reduction; with more than one split (`atomic`) it adds its
/// tile into a zeroed Y.
/// Dynamic shared memory: nhwc_shared_bytes(BM) (lab08_config.hpp).
template <int BM>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
tensor_core_gemm_tf32(const float* __restrict__ Xr, const float* __restrict__ Wr, float* __restrict__ Y, Geometry g,
                      int k_tiles_per_split, bool atomic, int cp) {
  constexpr int BN = kBlockN, BK = kNhwcSliceDepth, LD = kNhwcPitch;
  constexpr int MT = BM / kWarpsM / kMmaM;  // MMA tiles per warp, down
  constexpr int NT = BN / kWarpsN / kMmaN;  // and across
  static_assert(BM == 64 || BM == 128, "two warp rows of 16-row MMA tiles");
  static_assert(NT == 4 && BK % kMmaK == 0, "a warp's 32 columns are four 8-column MMA tiles");
  using ATile = float[BM][LD];  // As[m][k] = Wr[m0 + m][k0 + k]
  using BTile = float[BN][LD];  // Bs[n][k] = unrolled (k0 + k, n0 + n) of Xr
  extern __shared__ __align__(16) float smem[];
  ATile* As = reinterpret_cast<ATile*>(smem);                      // [kStages]
  BTile* Bs = reinterpret_cast<BTile*>(smem + kStages * BM * LD);  // [kStages]

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const WarpCoords w{warp / kWarpsN, warp % kWarpsN, lane / 4, lane % 4};
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const int k_tiles = ceil_div(g.KK * cp, BK);
  const int kt_begin = blockIdx.z * k_tiles_per_split;
  const int kt_end = min(k_tiles, kt_begin + k_tiles_per_split);
  if (kt_begin >= kt_end) return;
  nhwc::ChunkLoader<BM, BN, BK, kThreads> load(g, cp, m0, n0, kt_begin);
  wait_for_previous_kernel();  // the passes that write Xr and Wr: their ends overlap this set-up

  float acc[MT][NT][4] = {};  // acc[mt][nt]: MMA tile (mt, nt) of the warp's tile of Y

  // Prologue: slices kt_begin .. kt_begin + kStages - 2 in flight, one commit group each.
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (kt_begin + s < kt_end) load.issue(As[s], Bs[s], Xr, Wr, g, cp);
    tiles::copy_async_commit();
  }
  int stage = 0;
  for (int kt = kt_begin; kt < kt_end; ++kt) {
    tiles::copy_async_wait<kStages - 2>();  // slice kt has landed for this thread ...
    __syncthreads();                        // ... and for all; everyone is done with slice kt - 1
    const int next = kt + kStages - 1;
    const int next_stage = stage == 0 ? kStages - 1 : stage - 1;
    if (next < kt_end) load.issue(As[next_stage], Bs[next_stage], Xr, Wr, g, cp);
    tiles::copy_async_commit();
    const nhwc::PaddedTile a_tile{shared_address(As[stage])}, b_tile{shared_address(Bs[stage])};
#pragma unroll
    for (int kk = 0; kk < BK; kk += kMmaK) mma_step_tf32(a_tile, b_tile, kk, w, acc);
    stage = stage == kStages - 1 ? 0 : stage + 1;
  }
  tiles::copy_async_wait<0>();
  store_warp_tile(acc, Y, g, m0, n0, w, atomic);
}

/// Step 1's kernel on the TMA feed (given; tma_feed.cuh), compute capability 9.0 and later, for
/// the layers step1_tma_fits takes: the same 128 × kBlockN tiles, warps, split and MMAs as
/// tensor_core_gemm_tf32<128> (and the same sums, bit for bit), but one thread copies each slice,
/// two TMA copies into swizzled tiles, and the others only wait for its barrier. kStages slices in
/// flight; stage s's barrier completes once per trip round the stages, so a thread waits on the
/// parity of that round. The block barrier after the wait still guards the stage the next copy
/// refills: everyone must be done reading slice kt − 1 first.
/// Dynamic shared memory: tma_shared_bytes() (lab08_config.hpp). (BM a template parameter, as the
/// other kernels' is, so that every file that includes this header may define it.)
template <int BM>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
tensor_core_gemm_tf32_tma(const __grid_constant__ CUtensorMap x_map, const __grid_constant__ CUtensorMap w_map,
                          float* __restrict__ Y, Geometry g, int k_tiles_per_split, bool atomic, int cp) {
  constexpr int BN = kBlockN, BK = kNhwcSliceDepth;
  constexpr int MT = BM / kWarpsM / kMmaM, NT = BN / kWarpsN / kMmaN;
  static_assert(BM == kTmaBlockM, "W's box is kTmaBlockM filters (tma_feed.cuh)");
  static_assert(NT == 4 && BK % kMmaK == 0, "a warp's 32 columns are four 8-column MMA tiles");
  using ATile = float[BM][BK];  // A[m][k] = Wr[m0 + m][k0 + k], 128-byte rows in the 128-byte swizzle
  using BTile = float[BN][BK];  // B[n][k] = unrolled (k0 + k, n0 + n) of Xr, the same
  extern __shared__ __align__(16) unsigned char tma_smem[];
  __shared__ std::uint64_t landed[kStages];  // landed[s]: stage s's copies have arrived
  float* stages = reinterpret_cast<float*>((reinterpret_cast<std::uintptr_t>(tma_smem) + 1023) & ~std::uintptr_t{1023});
  ATile* As = reinterpret_cast<ATile*>(stages);                      // [kStages]
  BTile* Bs = reinterpret_cast<BTile*>(stages + kStages * BM * BK);  // [kStages], 1024-byte aligned too

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const WarpCoords w{warp / kWarpsN, warp % kWarpsN, lane / 4, lane % 4};
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const int k_tiles = ceil_div(g.KK * cp, BK);
  const int kt_begin = blockIdx.z * k_tiles_per_split;
  const int kt_end = min(k_tiles, kt_begin + k_tiles_per_split);
  if (kt_begin >= kt_end) return;
  // the im2col walk starts at the tile's first output position, (image, ho·S − P, wo·S − P)
  const int image = n0 / g.HoWo, hw = n0 - image * g.HoWo, ho = hw / g.Wo, wo = hw - ho * g.Wo;
  const int hs = ho * g.S - g.P, ws = wo * g.S - g.P;
  auto copy = [&](int kt, int s) {  // slice kt into stage s: k' = kt·BK is channel c of tap (p, q)
    const int k = kt * BK, tap = k / cp, c = k - tap * cp, p = tap / g.K, q = tap - p * g.K;
    tma::copy_slice(&landed[s], kTmaStageBytes, &As[s][0][0], &w_map, k, m0, &Bs[s][0][0], &x_map, c, ws, hs, image,
                    q * g.D, p * g.D);
  };
  if (threadIdx.x == 0) tma::init_barriers(landed, kStages);
  __syncthreads();
  wait_for_previous_kernel();  // the passes that write Xr and Wr (and zero a split's Y)

  float acc[MT][NT][4] = {};  // acc[mt][nt]: MMA tile (mt, nt) of the warp's tile of Y
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages - 1; ++s) {
      if (kt_begin + s < kt_end) copy(kt_begin + s, s);
    }
  }
  int stage = 0;
  unsigned parity = 0;
  for (int kt = kt_begin; kt < kt_end; ++kt) {
    tma::wait_for_copies(&landed[stage], parity);  // slice kt has landed ...
    __syncthreads();                                // ... and everyone is done with slice kt - 1
    const int next = kt + kStages - 1;
    if (threadIdx.x == 0 && next < kt_end) {
      tma::order_reads_before_copies();
      copy(next, stage == 0 ? kStages - 1 : stage - 1);
    }
    const nhwc::SwizzledTile a_tile{shared_address(As[stage])}, b_tile{shared_address(Bs[stage])};
#pragma unroll
    for (int kk = 0; kk < BK; kk += kMmaK) mma_step_tf32(a_tile, b_tile, kk, w, acc);
    if (++stage == kStages) stage = 0, parity ^= 1;
  }
  store_warp_tile(acc, Y, g, m0, n0, w, atomic);
}

/// Step 2's kernel (given): lab 06 step 3c's pipeline fed by lab 06's loader (layer_tiles.cuh,
/// As[k][m] and Bs[k][n], unrounded), the multiply done by mma_step_tf32x3, whose slice sum `part`
/// it adds into `acc`, rounding to nearest, after every slice. Block (x, y, z) sums the slices
/// [z·k_tiles_per_split, (z + 1)·k_tiles_per_split) of the reduction; with more than one split
/// (`atomic`) it adds its tile into a zeroed Y.
/// Dynamic shared memory: shared_bytes(BM) (lab08_config.hpp).
template <int BM>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
tensor_core_gemm(const float* __restrict__ X, const float* __restrict__ Wt, float* __restrict__ Y, Geometry g,
                 int k_tiles_per_split, bool atomic) {
  constexpr int BN = kBlockN, BK = kSliceDepth;
  constexpr int MT = BM / kWarpsM / kMmaM;  // MMA tiles per warp, down
  constexpr int NT = BN / kWarpsN / kMmaN;  // and across
  static_assert(BM == 64, "two sets of accumulators: 64-row tiles (lab08::block_m)");
  static_assert(NT == 4 && BK % kMmaK == 0, "a warp's 32 columns are four 8-column MMA tiles");
  static_assert((BM + kPad) % 32 == 8 && (BN + kPad) % 32 == 8, "fragment loads on 32 banks");
  using ATile = float[BK][BM + kPad];  // As[k][m] = W[m0 + m][k0 + k]
  using BTile = float[BK][BN + kPad];  // Bs[k][n] = unrolled (k0 + k, n0 + n)
  extern __shared__ __align__(16) float smem[];
  ATile* As = reinterpret_cast<ATile*>(smem);                                 // [kStages]
  BTile* Bs = reinterpret_cast<BTile*>(smem + kStages * BK * (BM + kPad));  // [kStages]

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const WarpCoords w{warp / kWarpsN, warp % kWarpsN, lane / 4, lane % 4};
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const int k_tiles = ceil_div(g.Kdim, BK);
  const int kt_begin = blockIdx.z * k_tiles_per_split;
  const int kt_end = min(k_tiles, kt_begin + k_tiles_per_split);
  if (kt_begin >= kt_end) return;
  tiles::SliceLoader<BM, BN, BK, kThreads> load(g, m0, n0, kt_begin);

  float acc[MT][NT][4] = {};   // acc[mt][nt]: MMA tile (mt, nt) of the warp's tile of Y
  float part[MT][NT][4] = {};  // the current slice's sum

  // Prologue: slices kt_begin .. kt_begin + kStages - 2 in flight, one commit group each.
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (kt_begin + s < kt_end) load.template issue<true>(kt_begin + s, As[s], Bs[s], X, Wt, g);
    tiles::copy_async_commit();
  }
  int stage = 0;
  for (int kt = kt_begin; kt < kt_end; ++kt) {
    tiles::copy_async_wait<kStages - 2>();  // slice kt has landed for this thread ...
    __syncthreads();                        // ... and for all; everyone is done with slice kt - 1
    const int next = kt + kStages - 1;
    const int next_stage = stage == 0 ? kStages - 1 : stage - 1;
    if (next < kt_end) load.template issue<true>(next, As[next_stage], Bs[next_stage], X, Wt, g);
    tiles::copy_async_commit();
#pragma unroll
    for (int kk = 0; kk < BK; kk += kMmaK) mma_step_tf32x3(As[stage], Bs[stage], kk, w, part);
    // the slice's sum into acc, rounded to nearest
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[mt][nt][e] += part[mt][nt][e], part[mt][nt][e] = 0.0f;
      }
    }
    stage = stage == kStages - 1 ? 0 : stage + 1;
  }
  tiles::copy_async_wait<0>();
  store_warp_tile(acc, Y, g, m0, n0, w, atomic);
}

}  // namespace convlab::lab08
