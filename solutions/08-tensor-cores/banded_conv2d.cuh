/// @file banded_conv2d.cuh
/// @brief Lab 08, steps 3 and 4 (reference): one image and a large mask (K ≥ 9) on tensor cores,
///        as banded GEMMs over image rows, in 3xTF32 (step 3) or with the two small products in
///        one BF16 MMA (step 4, K ≥ 13). Same file as labs/08-tensor-cores/banded_conv2d.cuh,
///        with the steps written.
///
/// Idea:      mask row i turns every image row into a 1D convolution, and a 1D convolution of
///            8 outputs is a product with an 8-column band of a Toeplitz matrix:
///
///              P[y][x + n] += Σ_k  N[y + i − r][x − r + 8s + k] · M[i][8s + k − n]      (n, k < 8)
///                                  └──── A[m = y][k] ─────────┘   └── B_s[k][n] ──┘
///
///            B_s is zero outside 0 ≤ 8s + k − n < K, so S = band_steps(K) = ⌈(K + 7)/8⌉ k-steps
///            cover the band, and K of every 8·S products are useful (band_useful_fraction).
///            A's 16 rows are 16 output rows: the input tile's rows g + i and g + 8 + i.
/// Adds:      over lab 07 (the same problem on CUDA cores), the tensor cores; over step 2, a B
///            that is the mask itself, split once per call into fragments that every warp reads;
///            an input tile split once as it lands in shared memory (each value then feeds about
///            K·16/(K + 15) fragments, unsplit); and an A fragment that serves S tiles: tile nb's
///            k-step s and tile nb + 1's k-step s − 1 read the same 8 input columns. Step 4: two
///            MMAs per k-step instead of three, spending BF16's 8 bits where 8 bits suffice.
/// Achieves:  on an H200 at 8192², K = 17: step 3 0.813–0.819 ms, step 4 0.647–0.651 ms, lab 07
///            0.732–0.734 ms
///            (results/bench/nvidia-h200/lab08.md); `grader analyze --lab lab08` gives their
///            MMAs, useful fraction and error bounds.
///
/// Shapes: N [height][width], M [K][K], P [height][width]; the band fragments [K][S][32 lanes]
/// in global memory; a block's output tile kBandTileRows × kBandTileCols, its input tile
/// (kBandTileRows + K − 1) × band_tile_cols(S) in shared memory, big and small parts
/// (lab08_config.hpp; the kernel's comment draws both steps' layouts).
#pragma once

#include <cuda_runtime.h>

#include "convlab/lab08_config.hpp"
#include "mma_bf16.cuh"
#include "mma_tf32.cuh"
#include "tensor_core_gemm.cuh"  // split_tf32 (step 2)

namespace convlab::lab08 {

// ==== BEGIN STEP 3: banded 3xTF32 ====
inline constexpr bool kStep3Written = true;  // true once band_fragment and band_row_tf32x3 are written

/// One lane's B fragment of mask row `taps` (K of them) at k-step s, split: {b0 big, b1 big,
/// b0 small, b1 small}, where b0 = B_s[t][g] and b1 = B_s[t + 4][g] (mma_tf32.cuh's drawing),
/// B_s[k][n] = taps[8s + k − n] inside the band and 0 outside it.
__device__ __forceinline__ uint4 band_fragment(const float* taps, int K, int s, int g, int t) {
  const int j0 = kMmaK * s + t - g, j1 = j0 + 4;
  unsigned b0_big, b0_small, b1_big, b1_small;
  split_tf32(j0 >= 0 && j0 < K ? taps[j0] : 0.0f, b0_big, b0_small);
  split_tf32(j1 >= 0 && j1 < K ? taps[j1] : 0.0f, b1_big, b1_small);
  return make_uint4(b0_big, b1_big, b0_small, b1_small);
}

/// One mask row for the warp's NB output tiles (16 rows × 8 columns each), 3xTF32.
/// `big` and `small` point at the input tile's element (row g + i, column t) of the warp's first
/// tile in its two parts, the tile's rows LD apart; column group q (8 columns from + 8q) is A of
/// tile nb = q − s at k-step s. b[s]: this lane's split B fragment of k-step s (band_fragment),
/// loaded by the kernel. acc[nb][e]: D's register e of tile nb.
///
/// Per tile, its S k-steps and three products each (big·big from zero first, then the small
/// ones) accumulate on the tensor cores into `part`, which is then added to acc in float32
/// (round to nearest): the tensor cores' truncating accumulation sees only 3·S MMAs, so its
/// error stays a few units of roundoff per mask row (docs/design.md, Tolerance).
template <int S, int NB, int LD>
__device__ __forceinline__ void band_row_tf32x3(const unsigned* big, const unsigned* small, const uint4 (&b)[S],
                                                float (&acc)[NB][4]) {
  unsigned a_big[NB + S - 1][4], a_small[NB + S - 1][4];  // [q][e]: column group q, A's register e
  auto load_group = [&](int q) {
    constexpr int kOffset[4] = {0, 8 * LD, 4, 8 * LD + 4};  // rows g, g + 8 at k = t; the same at k = t + 4
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      a_big[q][e] = big[kMmaK * q + kOffset[e]];
      a_small[q][e] = small[kMmaK * q + kOffset[e]];
    }
  };
#pragma unroll
  for (int q = 0; q < S - 1; ++q) load_group(q);
#pragma unroll
  for (int nb = 0; nb < NB; ++nb) {
    load_group(nb + S - 1);  // the window: groups nb .. nb + S − 1
    float part[4];
#pragma unroll
    for (int s = 0; s < S; ++s) {
      if (s == 0) {
        mma_tf32_from_zero(part, a_big[nb], b[0].x, b[0].y);
      } else {
        mma_tf32(part, a_big[nb + s], b[s].x, b[s].y);
      }
      mma_tf32(part, a_small[nb + s], b[s].x, b[s].y);
      mma_tf32(part, a_big[nb + s], b[s].z, b[s].w);
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) acc[nb][e] += part[e];
  }
}
// ==== END STEP 3 ====

// ==== BEGIN STEP 4: the small products in BF16 ====
inline constexpr bool kStep4Written = true;  // true once band_fragment_mixed and band_row_tf32_bf16 are written

// The BF16 MMA's k is a summation index like any other: which input column sits at which k is
// ours to choose, as long as A and B agree. Step 4 puts column t at k = 2t and column t + 4 at
// k = 2t + 1 (and the same columns again at 2t + 8, 2t + 9), so that lane (g, t) holds in its
// BF16 fragments exactly the columns its TF32 fragments hold, t and t + 4: its A registers for
// x_big are its TF32 ones, converted; only x_small comes from shared memory.

/// One lane's B fragments of mask row `taps` at k-step s for step 4: {b0 big, b1 big} as step 3's
/// (TF32, band entries j0 = 8s + t − g and j0 + 4), then the BF16 fragment of the small products'
/// B (mma_bf16, depth 16) for the same two entries: b0 = {w_small(j0), w_small(j0 + 4)} against
/// x_big, b1 = {w_big(j0), w_big(j0 + 4)} against x_small, where w_big = TF32(w) and
/// w_small = w − w_big.
__device__ __forceinline__ uint4 band_fragment_mixed(const float* taps, int K, int s, int g, int t) {
  const int j0 = kMmaK * s + t - g, j1 = j0 + 4;
  const float w0 = j0 >= 0 && j0 < K ? taps[j0] : 0.0f;
  const float w1 = j1 >= 0 && j1 < K ? taps[j1] : 0.0f;
  const unsigned w0_big = to_tf32(w0), w1_big = to_tf32(w1);
  return make_uint4(w0_big, w1_big, pack_bf16x2(w0 - tf32_value(w0_big), w1 - tf32_value(w1_big)),
                    pack_bf16x2(tf32_value(w0_big), tf32_value(w1_big)));
}

/// Step 3's band_row_tf32x3 with the small products in BF16: per tile and k-step, one TF32 MMA
/// (x_big · w_big) and one BF16 MMA of depth 16 (x_big · w_small + x_small · w_big), 2·S MMAs per
/// tile where step 3 issues 3·S. `big` points as in step 3; `small2` at the input tile's x_small
/// in BF16, two columns per word, row g + i, word t of the warp's first tile, rows LDP words
/// apart: word 4q + t holds columns 8q + t and 8q + t + 4. Column group q's BF16 A: a0 and a1
/// from the TF32 registers (rows g and g + 8), a2 = small2[4q], a3 = small2[4q + 8·LDP].
/// b[s]: band_fragment_mixed's fragment of k-step s.
///
/// Per tile, its 2·S MMAs (the small products first, from zero) chain into `part`, added to acc
/// in float32 as in step 3. Two tiles go at a time, their MMAs interleaved: a warp issues in
/// order, and an MMA that needs the one before it waits for it; a second chain keeps the tensor
/// cores busy meanwhile.
template <int S, int NB, int LD, int LDP>
__device__ __forceinline__ void band_row_tf32_bf16(const unsigned* big, const unsigned* small2, const uint4 (&b)[S],
                                                   float (&acc)[NB][4]) {
  static_assert(NB % 2 == 0, "tiles in pairs");
  unsigned a_big[NB + S - 1][4], a_bf16[NB + S - 1][4];  // [q][e]: column group q, A's register e
  auto load_group = [&](int q) {
    constexpr int kOffset[4] = {0, 8 * LD, 4, 8 * LD + 4};  // mma_tf32.cuh's a0..a3
#pragma unroll
    for (int e = 0; e < 4; ++e) a_big[q][e] = big[kMmaK * q + kOffset[e]];
    a_bf16[q][0] = pack_bf16x2(tf32_value(a_big[q][0]), tf32_value(a_big[q][2]));  // row g:     columns t, t + 4
    a_bf16[q][1] = pack_bf16x2(tf32_value(a_big[q][1]), tf32_value(a_big[q][3]));  // row g + 8
    a_bf16[q][2] = small2[4 * q];
    a_bf16[q][3] = small2[4 * q + 8 * LDP];
  };
#pragma unroll
  for (int q = 0; q < S - 1; ++q) load_group(q);
#pragma unroll
  for (int nb = 0; nb < NB; nb += 2) {
    load_group(nb + S - 1);  // the window: groups nb .. nb + S
    load_group(nb + S);
    float part[2][4];  // part[j]: tile nb + j's products, the small ones first
#pragma unroll
    for (int s = 0; s < S; ++s) {
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        if (s == 0) {
          mma_bf16_from_zero(part[j], a_bf16[nb + j], b[0].z, b[0].w);
        } else {
          mma_bf16(part[j], a_bf16[nb + j + s], b[s].z, b[s].w);
        }
      }
#pragma unroll
      for (int j = 0; j < 2; ++j) mma_tf32(part[j], a_big[nb + j + s], b[s].x, b[s].y);
    }
#pragma unroll
    for (int j = 0; j < 2; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[nb + j][e] += part[j][e];
    }
  }
}
// ==== END STEP 4 ====

/// The band fragments of every mask row (given): frags[(i·S + s)·32 + lane] for K rows, one
/// thread each, step 3's (Arith = tf32x3) or step 4's (tf32_bf16); run once per call, before
/// banded_conv2d.
template <Precision Arith>
__global__ void band_fragments(const float* __restrict__ M, int K, uint4* __restrict__ frags) {
  const int S = band_steps(K);
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= K * S * 32) return;
  const int lane = e % 32, s = e / 32 % S, i = e / (32 * S);
  frags[e] = Arith == Precision::tf32x3 ? band_fragment(M + i * K, K, s, lane / 4, lane % 4)
                                    : band_fragment_mixed(M + i * K, K, s, lane / 4, lane % 4);
}

/// The kernel of steps 3 and 4 (given), in three phases: the input tile into shared memory, split
/// into its big and small parts (zero outside the image), with FRAGS_SHARED the band fragments
/// beside it; a band row (band_row_tf32x3 or band_row_tf32_bf16) for each mask row; the outputs
/// out. Block (x, y) computes P's tile at row y·kBandTileRows, column x·kBandTileCols. F floats
/// per load: band_copy_floats(K, width). Dynamic shared memory: band_shared_bytes(K) for step 3,
/// band_mixed_shared_bytes(K) for step 4, plus band_fragment_bytes(K) with FRAGS_SHARED (the
/// launcher asks lab08::band_fragments_shared).
///
/// Shared memory, rows = kBandTileRows + K − 1 of the input tile:
///   tile_big  [rows][LD]   N rounded to TF32 (both steps)
///   step 3: tile_small [rows][LD]  what rounding left, rounded to TF32 again
///   step 4: small2     [rows][LDP] N minus its TF32 part, in BF16: word 4q + t holds columns
///                                  8q + t and 8q + t + 4 (band_row_tf32_bf16's k order)
///   FRAGS_SHARED: frags_s [K·S·32]  the band fragments, a copy of `frags`, after the tile
template <Precision Arith, int S, int F, bool FRAGS_SHARED>
__global__ void __launch_bounds__(kBandThreads, kMinBlocks)
banded_conv2d(const float* __restrict__ N, const uint4* __restrict__ frags, float* __restrict__ P, int height,
              int width, int K) {
  constexpr int NB = kBandWarpTiles, LD = band_tile_pitch(S), LDP = band_pair_pitch(S), COLS = band_tile_cols(S);
  constexpr int GROUPS = COLS / kMmaK;                                     // column groups of the tile
  constexpr int MAX_ROWS = kBandTileRows + kMaxMaskWidth - 1;              // its rows at the widest mask
  constexpr int ITEMS = (MAX_ROWS * GROUPS + kBandThreads - 1) / kBandThreads;  // (row, group)s a thread loads
  static_assert(S >= 2 && S <= 3, "K = 9 .. 17: bands of 2 or 3 k-steps");
  static_assert(Arith == Precision::tf32x3 || Arith == Precision::tf32_bf16, "steps 3 and 4");
  static_assert(COLS % kMmaK == 0 && LD % 4 == 0 && LDP % 4 == 0, "whole column groups, 16-byte stores");
  static_assert(kMmaK % F == 0, "a group is whole loads of F floats");
  extern __shared__ __align__(16) unsigned smem_u[];
  const int rows = kBandTileRows + K - 1;
  unsigned* tile_big = smem_u;
  unsigned* tile_small = smem_u + rows * LD;  // step 3
  unsigned* small2 = smem_u + rows * LD;      // step 4
  uint4* frags_s = reinterpret_cast<uint4*>(smem_u + rows * (Arith == Precision::tf32x3 ? 2 * LD : LD + LDP));
  const int r = (K - 1) / 2;
  const int y0 = blockIdx.y * kBandTileRows, x0 = blockIdx.x * kBandTileCols;

  // 1. The input tile, tile[rr][cc] = N[y0 − r + rr][x0 − r + cc], 0 outside the image (the
  //    lecture's ghost cells), as items (row rr, column group q) of 8 floats, q fastest: a warp
  //    reads consecutive groups of a row (coalesced). A thread issues the loads of all its items
  //    before it splits any (each load waits for memory: one at a time would take about as long
  //    as the MMAs), F floats at a time; then splits each in registers and stores its parts, 16
  //    bytes at a time. With FRAGS_SHARED the block first copies the band fragments beside it.
  if constexpr (FRAGS_SHARED) {
    for (int e = threadIdx.x; e < K * S * 32; e += kBandThreads) frags_s[e] = frags[e];
  }
  float v[ITEMS][kMmaK];  // v[it]: item threadIdx.x + it·kBandThreads, its 8 columns
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    const int e = static_cast<int>(threadIdx.x) + it * kBandThreads, rr = e / GROUPS, q = e % GROUPS;
    const int y = y0 - r + rr, x = x0 - r + kMmaK * q;
    const bool row_inside = rr < rows && y >= 0 && y < height;
    const float* row = N + static_cast<size_t>(row_inside ? y : 0) * width;
#pragma unroll
    for (int c = 0; c < kMmaK; c += F) {
      const bool inside = row_inside && x + c >= 0 && x + c < width;  // all F floats, or none
      if constexpr (F == 4) {
        const float4 w = inside ? __ldg(reinterpret_cast<const float4*>(row + x + c)) : make_float4(0, 0, 0, 0);
        v[it][c] = w.x, v[it][c + 1] = w.y, v[it][c + 2] = w.z, v[it][c + 3] = w.w;
      } else if constexpr (F == 2) {
        const float2 w = inside ? __ldg(reinterpret_cast<const float2*>(row + x + c)) : make_float2(0, 0);
        v[it][c] = w.x, v[it][c + 1] = w.y;
      } else {
        v[it][c] = inside ? __ldg(row + x + c) : 0.0f;
      }
    }
  }
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    const int e = static_cast<int>(threadIdx.x) + it * kBandThreads, rr = e / GROUPS, q = e % GROUPS;
    if (rr >= rows) continue;
    uint4* big = reinterpret_cast<uint4*>(tile_big + rr * LD + kMmaK * q);
    if constexpr (Arith == Precision::tf32x3) {
      unsigned b[kMmaK], s[kMmaK];
#pragma unroll
      for (int c = 0; c < kMmaK; ++c) split_tf32(v[it][c], b[c], s[c]);
      uint4* small = reinterpret_cast<uint4*>(tile_small + rr * LD + kMmaK * q);
      big[0] = make_uint4(b[0], b[1], b[2], b[3]), big[1] = make_uint4(b[4], b[5], b[6], b[7]);
      small[0] = make_uint4(s[0], s[1], s[2], s[3]), small[1] = make_uint4(s[4], s[5], s[6], s[7]);
    } else {
      unsigned b[kMmaK], p[4];  // p[j]: word 4q + j of small2, columns j and j + 4
#pragma unroll
      for (int c = 0; c < kMmaK; ++c) b[c] = to_tf32(v[it][c]);
#pragma unroll
      for (int j = 0; j < 4; ++j) p[j] = pack_bf16x2(v[it][j] - tf32_value(b[j]), v[it][j + 4] - tf32_value(b[j + 4]));
      big[0] = make_uint4(b[0], b[1], b[2], b[3]), big[1] = make_uint4(b[4], b[5], b[6], b[7]);
      *reinterpret_cast<uint4*>(small2 + rr * LDP + 4 * q) = make_uint4(p[0], p[1], p[2], p[3]);
    }
  }
  __syncthreads();

  // 2. The MMAs, one mask row at a time (not unrolled: K is a run-time value).
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = lane / 4, t = lane % 4;
  const int wy = warp / kBandWarpsX * kMmaM;       // the warp's first row in the block's tile
  const int wx = warp % kBandWarpsX * NB * kMmaN;  // and first column
  float acc[NB][4] = {};  // acc[nb]: D of the warp's tile nb (rows wy .. +16, columns wx + 8nb .. +8)
#pragma unroll 1
  for (int i = 0; i < K; ++i) {
    uint4 b[S];  // this lane's band fragments of mask row i
#pragma unroll
    for (int s = 0; s < S; ++s) b[s] = FRAGS_SHARED ? frags_s[(i * S + s) * 32 + lane] : frags[(i * S + s) * 32 + lane];
    const int row = wy + g + i;
    if constexpr (Arith == Precision::tf32x3) {
      band_row_tf32x3<S, NB, LD>(tile_big + row * LD + wx + t, tile_small + row * LD + wx + t, b, acc);
    } else {
      band_row_tf32_bf16<S, NB, LD, LDP>(tile_big + row * LD + wx + t, small2 + row * LDP + wx / 2 + t, b, acc);
    }
  }

  // 3. D's registers (mma_tf32.cuh): e = 0, 1 are row g, columns 2t, 2t + 1; e = 2, 3 row g + 8.
#pragma unroll
  for (int nb = 0; nb < NB; ++nb) {
    const int x = x0 + wx + nb * kMmaN + 2 * t;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int y = y0 + wy + g + 8 * half;
      if (y >= height) continue;
      float* out = P + static_cast<size_t>(y) * width + x;
      if (x < width) out[0] = acc[nb][2 * half];
      if (x + 1 < width) out[1] = acc[nb][2 * half + 1];
    }
  }
}

}  // namespace convlab::lab08
