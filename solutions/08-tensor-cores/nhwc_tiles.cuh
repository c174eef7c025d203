/// @file nhwc_tiles.cuh
/// @brief Lab 08 (given, do not edit): step 1's feed. The layer's tensors reordered once per call
///        — X channels-last, W tap-major, both rounded to TF32 — and the loader that copies a
///        slice of each into K-major tiles, 16 bytes at a time (lab08_config.hpp, "Step 1's feed").
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
/// Wr: one cp.async each, straight into a row of the K-major tiles As[m][k] and Bs[n][k].
#pragma once

#include <climits>

#include "convlab/lab08_config.hpp"
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
/// a thread makes one position's Cp channels, reading channel c of 32 consecutive positions a warp
/// (128 bytes) and writing its Cp/4 chunks with 16-byte stores (a warp's stores are contiguous).
/// Grid-stride over the B·H·W positions. (A template, as order_weights_tap_channel below.)
template <int FEW = kFewChannels>
__global__ void __launch_bounds__(256) to_channels_last_few(const float* __restrict__ X, float* __restrict__ Xr,
                                                            Geometry g, int cp, long long positions) {
  for (long long i = blockIdx.x * 256LL + threadIdx.x; i < positions; i += static_cast<long long>(gridDim.x) * 256) {
    const long long b = i / g.HW;
    const float* x = X + b * g.CHW + (i - b * g.HW);  // X[b][0][position]
    float4* xr = reinterpret_cast<float4*>(Xr + i * cp);
#pragma unroll
    for (int c0 = 0; c0 < FEW; c0 += kChunkFloats) {
      if (c0 >= cp) break;
      float v[kChunkFloats];
#pragma unroll
      for (int e = 0; e < kChunkFloats; ++e) {
        v[e] = c0 + e < g.C ? tf32_value(to_tf32(x[static_cast<long long>(c0 + e) * g.HW])) : 0.0f;
      }
      xr[c0 / kChunkFloats] = make_float4(v[0], v[1], v[2], v[3]);
    }
  }
}

/// X [B][C][H·W] into Xr [B][H·W][Cp], each value rounded to TF32, for any Cp: each image is a C ×
/// H·W matrix, transposed in tiles of TILE channels × TILE positions through shared memory, so that
/// its reads (along the positions of one channel) and its writes (along the channels of one
/// position, a 16-byte chunk a thread) are both whole 128-byte lines. The positions run over whole
/// images, not rows: a small image (14 × 14) fills the tiles as a large one does.
/// Grid: (⌈H·W/TILE⌉·⌈Cp/TILE⌉, 1, images), counted from the image X and Xr point at (the launcher
/// splits a batch of more than 65535 images, a grid's z limit); block 256.
template <int TILE = 32>
__global__ void __launch_bounds__(256) to_channels_last(const float* __restrict__ X, float* __restrict__ Xr, Geometry g,
                                                        int cp) {
  static_assert(TILE == 32, "256 threads: 8 rows of the tile a pass as it is read, one chunk each as it is written");
  constexpr int CHUNKS = TILE / kChunkFloats;  // chunks of a position's row of the tile
  __shared__ float tile[TILE][TILE + 1];  // tile[c][position]; + 1: the reads down a column fall in 32 banks
  const int position_tiles = (g.HW + TILE - 1) / TILE;
  const int p0 = (blockIdx.x % position_tiles) * TILE, c0 = (blockIdx.x / position_tiles) * TILE;
  const float* x = X + static_cast<long long>(blockIdx.z) * g.CHW;
  float* xr = Xr + static_cast<long long>(blockIdx.z) * g.HW * cp;
  const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
#pragma unroll
  for (int i = 0; i < TILE / 8; ++i) {
    const int c = c0 + ty + 8 * i, p = p0 + tx;
    tile[ty + 8 * i][tx] = c < g.C && p < g.HW ? x[static_cast<long long>(c) * g.HW + p] : 0.0f;
  }
  __syncthreads();
  const int p = p0 + threadIdx.x / CHUNKS, j = threadIdx.x % CHUNKS;  // position, chunk of its channels
  if (p < g.HW && c0 + kChunkFloats * j < cp) {
    float v[kChunkFloats];
#pragma unroll
    for (int e = 0; e < kChunkFloats; ++e) v[e] = tf32_value(to_tf32(tile[kChunkFloats * j + e][p - p0]));
    *reinterpret_cast<float4*>(xr + static_cast<long long>(p) * cp + c0 + kChunkFloats * j) =
        make_float4(v[0], v[1], v[2], v[3]);
  }
}

/// W [M][C][K][K] into Wr [M][K·K·Cp], each value rounded to TF32: a thread makes one chunk of
/// CHUNK consecutive k' (CHUNK channels of one tap; Cp is a multiple of CHUNK), reading floats K·K
/// apart and writing them with one 16-byte store. Grid-stride over the chunks. (A template, so that
/// the files that include this header may each define it without a clash at link time.)
template <int CHUNK = kChunkFloats>
__global__ void order_weights_tap_channel(const float* __restrict__ W, float* __restrict__ Wr, Geometry g, int cp) {
  static_assert(CHUNK == 4, "one float4 a chunk");
  const int chunks_per_filter = g.KK * cp / CHUNK;
  const long long total = static_cast<long long>(g.M) * chunks_per_filter;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int i = static_cast<int>(e), m = i / chunks_per_filter, k = CHUNK * (i - m * chunks_per_filter);
    const int tap = k / cp, c0 = k - tap * cp;
    float v[CHUNK];
#pragma unroll
    for (int c = 0; c < CHUNK; ++c) {
      v[c] = c0 + c < g.C ? tf32_value(to_tf32(W[m * g.Kdim + (c0 + c) * g.KK + tap])) : 0.0f;
    }
    reinterpret_cast<float4*>(Wr)[i] = make_float4(v[0], v[1], v[2], v[3]);
  }
}

/// Copies slices of Wr and of the unrolled Xr into K-major tiles, As[m][k] and Bs[n][k], one
/// 16-byte chunk (4 consecutive k') per cp.async; slice kt is k' = kt·BK .. kt·BK + BK − 1. Who
/// copies what, for THREADS threads and CHUNKS = BK/4 chunks a row:
///
///   thread t copies chunk j = t % CHUNKS of rows r = t / CHUNKS + i·(THREADS/CHUNKS):
///     A: filter m0 + r, i < BM·CHUNKS/THREADS;   B: column n0 + r, i < BN·CHUNKS/THREADS
///
/// so 8 consecutive threads of a warp copy one row's 128 (BK = 32) contiguous bytes. A thread's
/// chunk j is the same in every row it copies, so it works out its tap (p, q) and channel c once
/// a slice, and tests its columns against X's edges once a chunk. Slices must be copied in
/// increasing order from `first_slice`.
template <int BM, int BN, int BK, int THREADS>
struct ChunkLoader {
  static constexpr int CHUNKS = BK / kChunkFloats;                 // chunks per tile row
  static constexpr int ROW_STEP = THREADS / CHUNKS;                // rows between a thread's copies
  static constexpr int A_PER_THREAD = BM / ROW_STEP;
  static constexpr int B_PER_THREAD = BN / ROW_STEP;
  static_assert(BK % kChunkFloats == 0 && THREADS % CHUNKS == 0, "whole chunks, evenly over threads");
  static_assert(BM % ROW_STEP == 0 && BN % ROW_STEP == 0, "the tiles' rows split evenly over threads");

  tiles::ColumnOrigin col[B_PER_THREAD];  // col[i]: column n0 + r_i; base in floats of Xr
  int row0, m0, cp, kp;
  int c, p, q;  // this thread's chunk in the next slice: channel c of tap (p, q); p ≥ K past the end

  __device__ ChunkLoader(const Geometry& g, int channels_padded, int block_m0, int block_n0, int first_slice) {
    const int j = static_cast<int>(threadIdx.x) % CHUNKS;
    row0 = static_cast<int>(threadIdx.x) / CHUNKS;
    m0 = block_m0;
    cp = channels_padded;
    kp = g.KK * cp;
#pragma unroll
    for (int i = 0; i < B_PER_THREAD; ++i) {
      col[i] = tiles::decode_column(block_n0 + row0 + i * ROW_STEP, g);
      // Xr's offset of position (ih0, iw0) of image b: tiles::decode_column's base, which counts
      // in X's NCHW floats (b·C·H·W + ih0·W + iw0), moved to Xr's (b·H·W + ih0·W + iw0)·Cp
      if (block_n0 + row0 + i * ROW_STEP < g.N) {
        const int b = (block_n0 + row0 + i * ROW_STEP) / g.HoWo;
        col[i].base = ((b * g.H + col[i].ih0) * g.W + col[i].iw0) * cp;
      }
    }
    const int k = first_slice * BK + j * kChunkFloats;
    const int tap = k / cp;
    c = k - tap * cp;
    p = tap / g.K;
    q = tap - p * g.K;
  }

  /// Slice kt of both operands into As[m][k] and Bs[n][k] (zeros past the reduction, past the
  /// tiles' edges and in the convolution's padding); then moves this thread's chunk on by BK.
  template <int LD>
  __device__ void issue(int kt, float (&As)[BM][LD], float (&Bs)[BN][LD], const float* Xr, const float* Wr,
                        const Geometry& g) {
    static_assert(LD % kChunkFloats == 0, "rows of whole 16-byte chunks");
    const int j = static_cast<int>(threadIdx.x) % CHUNKS;
    const int k = kt * BK + j * kChunkFloats;
    const bool in_reduction = p < g.K;
#pragma unroll
    for (int i = 0; i < A_PER_THREAD; ++i) {
      const int r = row0 + i * ROW_STEP;
      const bool ok = in_reduction && m0 + r < g.M;
      tiles::copy_async_or_zero<kChunkFloats>(&As[r][j * kChunkFloats], ok ? Wr + (m0 + r) * kp + k : Wr, ok);
    }
    const int dy = p * g.D, dx = q * g.D;
    const int tap_offset = (dy * g.W + dx) * cp + c;
#pragma unroll
    for (int i = 0; i < B_PER_THREAD; ++i) {
      const bool inside = in_reduction && static_cast<unsigned>(col[i].ih0 + dy) < static_cast<unsigned>(g.H) &&
                          static_cast<unsigned>(col[i].iw0 + dx) < static_cast<unsigned>(g.W);
      tiles::copy_async_or_zero<kChunkFloats>(&Bs[row0 + i * ROW_STEP][j * kChunkFloats],
                                              inside ? Xr + col[i].base + tap_offset : Xr, inside);
    }
    // on by BK: a chunk never straddles two taps (Cp % 4 == 0), so c stays a multiple of 4
    c += BK;
    while (c >= cp) {
      c -= cp;
      if (++q == g.K) q = 0, ++p;
    }
  }
};

}  // namespace convlab::lab08::nhwc
