/// @file nhwc_tiles.cuh
/// @brief Lab 08 (given, do not edit): step 1's feed. The layer's tensors reordered once per call
///        — X channels-last, W tap-major, both rounded to TF32 — and the loader that copies a
///        slice of each into K-major tiles, 16 bytes at a time (lab08_config.hpp, "Step 1's feed"),
///        for step 1 and for step 7.
///
/// The reduction index of step 1 is k' = tap·Cp + c, tap = p·K + q, c < Cp (Cp = C padded to a
/// multiple of 4 with zero channels):
///
///   Xr [B][H][W][Cp]        Xr[b][h][w][c]    = tf32(X[b][c][h][w])          (0 for c ≥ C)
///   Wr [M][K·K·Cp]          Wr[m][tap·Cp + c] = tf32(W[m][c][p][q])          (0 for c ≥ C)
///
///   element (k', n) of the unrolled matrix, n = b·Ho·Wo + h·Wo + w:
///                           Xr[b][h·S − P + p·D][w·S − P + q·D][c]           (0 outside X)
///
/// so k' = 4j .. 4j + 3 of one column are 16 contiguous bytes of Xr, and of one filter's row of
/// Wr: one cp.async each, straight into a row of the K-major tiles As[m][k] and Bs[n][k]. X's
/// passes are here; W's is weight_order.cuh's order_weights (each filter C × K·K to K·K × Cp).
#pragma once

#include <climits>

#include "convlab/lab08_config.hpp"
#include "kernel_overlap.cuh"
#include "layer_tiles.cuh"
#include "mma_tf32.cuh"

namespace convlab::lab08::nhwc {

using tiles::Geometry;

/// Up to this many channels (Cp), X goes channels-last by to_channels_last_few, one thread a
/// position; more, by to_channels_last's tiles. A tile of 32 channels would hold 4 of them on a
/// 3-channel layer and leave most of its threads idle: 0.040 against 0.012 ms on B16 C3 224×224
/// (NVIDIA H200, results/bench/nvidia-h200/lab08.md).
inline constexpr int kFewChannels = 16;

/// X [B][C][H·W] into Xr [B][H·W][Cp], each value rounded to TF32 (to_tf32), for Cp ≤ kFewChannels:
/// a thread makes AT_ONCE positions' Cp channels, each read as channel c of 32 consecutive
/// positions a warp (128 bytes), all of them before it writes any, and writes each position's Cp/4
/// chunks with 16-byte stores (a warp's stores are contiguous). Grid-stride over the B·H·W
/// positions. (A template, so that the files that include this header may each define it without
/// a clash at link time.)
template <int FEW = kFewChannels, int AT_ONCE = 2>
__global__ void __launch_bounds__(256) to_channels_last_few(const float* __restrict__ X, float* __restrict__ Xr,
                                                            Geometry g, int cp, int positions) {
  let_next_kernel_start();  // the GEMM's set-up may overlap this pass's last blocks
  for (int i0 = blockIdx.x * (AT_ONCE * 256) + threadIdx.x; i0 < positions; i0 += gridDim.x * (AT_ONCE * 256)) {
    float v[AT_ONCE][FEW];  // v[u][c]: channel c of position i0 + 256·u
#pragma unroll
    for (int u = 0; u < AT_ONCE; ++u) {
      const int i = i0 + 256 * u, b = i / g.HW;
      const float* x = X + (static_cast<long long>(b) * g.CHW + (i - b * g.HW));  // X[b][0][position]
#pragma unroll
      for (int c = 0; c < FEW; ++c) v[u][c] = i < positions && c < g.C ? x[static_cast<long long>(c) * g.HW] : 0.0f;
    }
#pragma unroll
    for (int u = 0; u < AT_ONCE; ++u) {
      const int i = i0 + 256 * u;
      if (i >= positions) break;
      float4* xr = reinterpret_cast<float4*>(Xr + static_cast<long long>(i) * cp);
#pragma unroll
      for (int c0 = 0; c0 < FEW; c0 += kChunkFloats) {
        if (c0 >= cp) break;
        xr[c0 / kChunkFloats] = make_float4(tf32_value(to_tf32(v[u][c0])), tf32_value(to_tf32(v[u][c0 + 1])),
                                            tf32_value(to_tf32(v[u][c0 + 2])), tf32_value(to_tf32(v[u][c0 + 3])));
      }
    }
  }
  wait_for_previous_kernel();
}

/// X [B][C][H·W] into Xr [B][H·W][Cp], each value rounded to TF32, for any Cp: X is a C × H·W
/// matrix per image, transposed in tiles of TILE channels × TILE positions through shared memory,
/// so that its reads (along the positions of one channel) and its writes (along the channels of
/// one position, a 16-byte chunk a thread) are both whole 128-byte lines. The positions run over
/// the whole batch, b·H·W + h·W + w (a tile may take the end of one image and the start of the
/// next): a small image (14 × 14) fills the tiles as a large one does. A block reads G tiles — the
/// channel tiles of one run of TILE positions, in order, then the next run's — before it writes
/// any: 4·G loads in flight a thread, where one tile a block kept one round trip of 4.
/// Grid: ⌈⌈positions/TILE⌉·⌈Cp/TILE⌉ / G⌉ blocks, 1D; block 256.
template <int TILE = 32, int G = 4>
__global__ void __launch_bounds__(256) to_channels_last(const float* __restrict__ X, float* __restrict__ Xr, Geometry g,
                                                        int cp, int positions) {
  let_next_kernel_start();  // the GEMM's set-up may overlap this pass's last blocks
  static_assert(TILE == 32, "256 threads: 8 rows of the tile a pass as it is read, one chunk each as it is written");
  constexpr int CHUNKS = TILE / kChunkFloats;  // chunks of a position's row of the tile
  __shared__ float tile[G][TILE][TILE + 1];  // tile[u][c][position]; + 1: the reads down a column fall in 32 banks
  const int channel_tiles = (cp + TILE - 1) / TILE;
  const int tiles = (positions + TILE - 1) / TILE * channel_tiles;
  const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
  float v[G][TILE / 8];  // v[u][i]: channel ty + 8i of tile u, position tx
#pragma unroll
  for (int u = 0; u < G; ++u) {
    const int t = blockIdx.x * G + u, c0 = t % channel_tiles * TILE, p = t / channel_tiles * TILE + tx;
    const int b = p / g.HW;
    const float* x = X + (static_cast<long long>(b) * g.CHW + (p - b * g.HW));  // X[b][0][p]
#pragma unroll
    for (int i = 0; i < TILE / 8; ++i) {
      const int c = c0 + ty + 8 * i;
      v[u][i] = t < tiles && p < positions && c < g.C ? x[static_cast<long long>(c) * g.HW] : 0.0f;
    }
  }
#pragma unroll
  for (int u = 0; u < G; ++u) {
#pragma unroll
    for (int i = 0; i < TILE / 8; ++i) tile[u][ty + 8 * i][tx] = v[u][i];
  }
  __syncthreads();
  const int pl = threadIdx.x / CHUNKS, j = threadIdx.x % CHUNKS;  // position in the tile, chunk of its channels
#pragma unroll
  for (int u = 0; u < G; ++u) {
    const int t = blockIdx.x * G + u, c0 = t % channel_tiles * TILE, p = t / channel_tiles * TILE + pl;
    if (t < tiles && p < positions && c0 + kChunkFloats * j < cp) {
      float w[kChunkFloats];
#pragma unroll
      for (int e = 0; e < kChunkFloats; ++e) w[e] = tf32_value(to_tf32(tile[u][kChunkFloats * j + e][pl]));
      *reinterpret_cast<float4*>(Xr + (static_cast<long long>(p) * cp + c0 + kChunkFloats * j)) =
          make_float4(w[0], w[1], w[2], w[3]);
    }
  }
  wait_for_previous_kernel();
}

/// A K-major tile in shared memory as step 1's fragment loads see it: `chunk(r, k)` is the
/// shared-memory address (ldmatrix.cuh's shared_address) of floats k .. k + 3 of row r (k a
/// multiple of 4). The cp.async feed below leaves its rows kNhwcPitch floats apart; the TMA feed
/// (tma_feed.cuh) leaves them 128 bytes apart in the 128-byte swizzle. Both keep a warp's 8 row
/// addresses of one ldmatrix matrix on 32 different banks.
struct PaddedTile {
  unsigned base;  ///< shared address of row 0
  __device__ __forceinline__ unsigned chunk(int r, int k) const { return base + 4u * (r * kNhwcPitch + k); }
};
/// Rows of kNhwcSliceDepth floats (128 bytes), chunk j of row r at chunk position j ^ (r % 8): the
/// layout a TMA copy with CU_TENSOR_MAP_SWIZZLE_128B writes (step 7's swizzled_chunk, in bytes).
struct SwizzledTile {
  unsigned base;  ///< shared address of row 0, 1024-byte aligned
  __device__ __forceinline__ unsigned chunk(int r, int k) const {
    return base + 4u * (r * kNhwcSliceDepth + ((k / kChunkFloats) ^ (r % 8)) * kChunkFloats);
  }
};
static_assert(kNhwcSliceDepth * 4 == 128, "a swizzled row is one 128-byte line");

/// Copies slices of Wr and of the unrolled Xr into K-major tiles, As[m][k] and Bs[n][k], one
/// 16-byte chunk (4 consecutive k') per cp.async; slice kt is k' = kt·BK .. kt·BK + BK − 1. Who
/// copies what, for THREADS threads and CHUNKS = BK/4 chunks a row:
///
///   thread t copies chunk j = t % CHUNKS of rows r = t / CHUNKS + i·(THREADS/CHUNKS):
///     A: filter m0 + r, i < BM·CHUNKS/THREADS;   B: column n0 + r, i < BN·CHUNKS/THREADS
///
/// so 8 consecutive threads of a warp copy one row's 128 (BK = 32) contiguous bytes. A thread's
/// chunk j is the same in every row it copies, so its tap (p, q), channel c and the chunk's offset
/// from a column's origin in Xr are worked out once a slice, for all its rows; what changes from
/// row to row is held as int offsets from Xr and Wr, which are the same for every thread. The
/// copies of a slice are then an add, an edge test and a cp.async each: built per copy instead,
/// the loop's address arithmetic outnumbered its MMAs two to one (results/bench/nvidia-h200/lab08.md).
/// Slices are copied one after another, from `first_slice`.
template <int BM, int BN, int BK, int THREADS>
struct ChunkLoader {
  static constexpr int CHUNKS = BK / kChunkFloats;                 // chunks per tile row
  static constexpr int ROW_STEP = THREADS / CHUNKS;                // rows between a thread's copies
  static constexpr int A_PER_THREAD = BM / ROW_STEP;
  static constexpr int B_PER_THREAD = BN / ROW_STEP;
  static_assert(BK % kChunkFloats == 0 && THREADS % CHUNKS == 0, "whole chunks, evenly over threads");
  static_assert(BM % ROW_STEP == 0 && BN % ROW_STEP == 0, "the tiles' rows split evenly over threads");

  tiles::ColumnOrigin col[B_PER_THREAD];  // col[i]: column n0 + r_i; base: Xr's offset of its tap (0, 0), channel 0
  int a_offset;  // Wr's offset of this thread's chunk of filter m0 + r_0 in the next slice
  int a_step;    // ROW_STEP·K·K·Cp: Wr's floats between the filters of its copies
  int a_rows;    // its copies i < a_rows are of filters (m0 + r_i < M)
  int c, p, q;   // its chunk in the next slice: channel c of tap (p, q); p ≥ K past the end
  int tap;       // that chunk's offset in Xr from a column's base: (p·D·W + q·D)·Cp + c

  __device__ ChunkLoader(const Geometry& g, int cp, int block_m0, int block_n0, int first_slice) {
    const int j = static_cast<int>(threadIdx.x) % CHUNKS, row0 = static_cast<int>(threadIdx.x) / CHUNKS;
    const int kp = g.KK * cp;
#pragma unroll
    for (int i = 0; i < B_PER_THREAD; ++i) {
      const int n = block_n0 + row0 + i * ROW_STEP;
      col[i] = tiles::decode_column(n, g);
      // tiles::decode_column's base counts in X's NCHW floats (b·C·H·W + ih0·W + iw0); Xr's is
      // (b·H·W + ih0·W + iw0)·Cp
      if (n < g.N) col[i].base = ((n / g.HoWo * g.H + col[i].ih0) * g.W + col[i].iw0) * cp;
    }
    const int k = first_slice * BK + j * kChunkFloats;
    a_offset = (block_m0 + row0) * kp + k;
    a_step = ROW_STEP * kp;
    a_rows = g.M - block_m0 - row0 > 0 ? (g.M - block_m0 - row0 + ROW_STEP - 1) / ROW_STEP : 0;
    const int t = k / cp;
    c = k - t * cp;
    p = t / g.K;
    q = t - p * g.K;
    tap = (p * g.W + q) * g.D * cp + c;
  }

  /// The next slice of both operands into As[m][k] and Bs[n][k] (zeros past the reduction, past the
  /// tiles' edges and in the convolution's padding); then moves this thread's chunk on by BK.
  template <int LD>
  __device__ void issue(float (&As)[BM][LD], float (&Bs)[BN][LD], const float* Xr, const float* Wr, const Geometry& g,
                        int cp) {
    static_assert(LD % kChunkFloats == 0, "rows of whole 16-byte chunks");
    issue_to<true>([&](int r, int j) { return &As[r][j * kChunkFloats]; },
                   [&](int r, int j) { return &Bs[r][j * kChunkFloats]; }, Xr, Wr, g, cp);
  }

  /// The same, chunk j of row r of A (a filter) to a_at(r, j) and of B (a column) to b_at(r, j):
  /// step 7 places them in the wgmma's swizzled layout. L1: the copies go through L1 (.ca), else
  /// to L2 only (.cg).
  template <bool L1, typename AAt, typename BAt>
  __device__ void issue_to(AAt a_at, BAt b_at, const float* Xr, const float* Wr, const Geometry& g, int cp) {
    const int j = static_cast<int>(threadIdx.x) % CHUNKS, row0 = static_cast<int>(threadIdx.x) / CHUNKS;
    const bool in_reduction = p < g.K;
#pragma unroll
    for (int i = 0; i < A_PER_THREAD; ++i) {
      const bool ok = in_reduction && i < a_rows;
      tiles::copy_async_or_zero<kChunkFloats, L1>(a_at(row0 + i * ROW_STEP, j), Wr + (ok ? a_offset + i * a_step : 0),
                                                  ok);
    }
    const int dy = p * g.D, dx = q * g.D;
#pragma unroll
    for (int i = 0; i < B_PER_THREAD; ++i) {
      const bool inside = in_reduction && static_cast<unsigned>(col[i].ih0 + dy) < static_cast<unsigned>(g.H) &&
                          static_cast<unsigned>(col[i].iw0 + dx) < static_cast<unsigned>(g.W);
      tiles::copy_async_or_zero<kChunkFloats, L1>(b_at(row0 + i * ROW_STEP, j), Xr + (inside ? col[i].base + tap : 0),
                                                  inside);
    }
    // on by BK: a chunk never straddles two taps (Cp % 4 == 0), so c stays a multiple of 4
    a_offset += BK;
    c += BK;
    while (c >= cp) {
      c -= cp;
      if (++q == g.K) q = 0, ++p;
    }
    tap = (p * g.W + q) * g.D * cp + c;
  }
};

}  // namespace convlab::lab08::nhwc
