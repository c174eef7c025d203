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
/// Adds:      over lab 07 (the same problem on CUDA cores), the tensor cores; over step 2, a B
///            that is the mask itself, split once per call, and an input tile split once as it
///            lands in shared memory. Then every A fragment is made to serve as many MMAs as it
///            can: across, tile nb's k-step s and tile nb + 1's k-step s − 1 read the same 8 input
///            columns; down, a warp's 32 output rows are two interleaved phases (its even rows and
///            its odd rows), and at input offset j the same 16 input rows are A of phase 0 at mask
///            row j and of phase 1 at mask row j − 1. One ldmatrix loads a whole fragment. Step 4:
///            two MMAs per k-step instead of three, spending BF16's 8 bits where 8 bits suffice.
/// Achieves:  on an H200 at 8192², K = 17: the row band in 3xTF32 0.677–0.682 ms, step 4
///            0.538–0.543 ms, lab 07 0.734; K = 13: 0.508–0.513, 0.431–0.434, lab 07 0.447–0.448
///            (results/bench/nvidia-h200/lab08.md); `grader analyze --lab lab08` gives their
///            MMAs, useful fraction and error bounds. Step 3 runs the row band at K = 9 only:
///            from kPatchMinMask it gives an MMA's 8 columns to a 2 × 4 patch of outputs, whose
///            window wastes less of each MMA (patch_conv2d.cuh; you write its patch_fragment and
///            patch_pair_tf32x3 in STEP 3 too).
///
/// Shapes: N [height][width], M [K][K], P [height][width]; the band fragments [K][8S + 3] (one per
/// j0 = 8s + t − g, band_fragment_span) in global memory and copied into each block's shared
/// memory; a block's output tile kBandTileRows × kBandTileCols, its input tile
/// (kBandTileRows + K − 1) × band_tile_cols(S) in shared memory, big and small parts
/// (lab08_config.hpp; the kernel's comment draws both steps' layouts).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "convlab/lab08_config.hpp"
#include "ldmatrix.cuh"
#include "mma_bf16.cuh"
#include "mma_tf32.cuh"
#include "tensor_core_gemm.cuh"  // split_tf32 (step 2)

namespace convlab::lab08 {

// ==== BEGIN STEP 3: banded 3xTF32 ====
inline constexpr bool kStep3Written = true;  // true once band_fragment, band_rows_tf32x3, patch_fragment and patch_pair_tf32x3 are written

/// The B fragment of mask row `taps` (K of them) for the lanes whose band entries are j0 and
/// j0 + 4 (lane (g, t) at k-step s: j0 = 8s + t − g; mma_tf32.cuh's b0 = B_s[t][g] = taps[j0],
/// b1 = B_s[t + 4][g] = taps[j0 + 4]), split: {b0 big, b1 big, b0 small, b1 small}; a tap
/// outside 0 ≤ j < K is 0.
__device__ __forceinline__ uint4 band_fragment(const float* taps, int K, int j0) {
  const int j1 = j0 + 4;
  unsigned b0_big, b0_small, b1_big, b1_small;
  split_tf32(j0 >= 0 && j0 < K ? taps[j0] : 0.0f, b0_big, b0_small);
  split_tf32(j1 >= 0 && j1 < K ? taps[j1] : 0.0f, b1_big, b1_small);
  return make_uint4(b0_big, b1_big, b0_small, b1_small);
}

/// One input offset j for the warp's NB output tiles (16 rows × 8 columns each) in P phases
/// (1 or 2), 3xTF32: phase 0 multiplies by mask row j (fragments b0, into acc0), phase 1 by mask
/// row j − 1 (b1, acc1; P = 1 leaves both alone). `big` and `small` are this lane's ldmatrix
/// addresses (ldmatrix.cuh) of column group 0 of A at offset j, in the input tile's two parts;
/// column group q is 32·q bytes on. Tile nb at k-step s multiplies group nb + s by b[s]
/// (band_fragment of that k-step); acc[nb][e]: D's register e of tile nb. One tile at a time.
/// Step 3 runs the row band at K = 9 (S = 2); from kPatchMinMask, patches (below).
///
/// Per tile and phase, its S k-steps and three products each (big·big from zero first, then the
/// small ones) accumulate on the tensor cores into `part`, which is then added to acc in float32
/// (round to nearest): the tensor cores' truncating accumulation sees only 3·S MMAs, so its error
/// stays a few units of roundoff per mask row (docs/design.md, Tolerance). The phases' chains are
/// independent, so one runs while the other waits for its last MMA.
template <int S, int NB, int P>
__device__ __forceinline__ void band_rows_tf32x3(unsigned big, unsigned small, const uint4 (&b0)[S],
                                                 const uint4 (&b1)[S], float (&acc0)[NB][4], float (&acc1)[NB][4]) {
  static_assert(P == 1 || P == 2, "one phase or both");
  auto b = [&](int p, int s) -> const uint4& { return p == 0 ? b0[s] : b1[s]; };  // phase p's fragment
  unsigned a_big[NB + S - 1][4], a_small[NB + S - 1][4];  // [q][e]: column group q, A's register e
  auto load_group = [&](int q) {
    load_a_fragment(a_big[q], big + 32 * q);
    load_a_fragment(a_small[q], small + 32 * q);
  };
  // part += product m (0: big·big, from zero at s = 0; 1: small·big; 2: big·small) of group q at
  // k-step s with phase p's fragment
  auto product = [&](float (&part)[4], int m, int q, int p, int s) {
    const unsigned(&a)[4] = m == 1 ? a_small[q] : a_big[q];
    const unsigned w0 = m == 2 ? b(p, s).z : b(p, s).x, w1 = m == 2 ? b(p, s).w : b(p, s).y;
    if (m == 0 && s == 0) {
      mma_tf32_from_zero(part, a, w0, w1);
    } else {
      mma_tf32(part, a, w0, w1);
    }
  };
#pragma unroll
  for (int q = 0; q < S - 1; ++q) load_group(q);
#pragma unroll
  for (int nb = 0; nb < NB; ++nb) {
    load_group(nb + S - 1);  // the window: groups nb .. nb + S − 1
    float part[P][4];
#pragma unroll
    for (int s = 0; s < S; ++s) {
#pragma unroll
      for (int m = 0; m < 3; ++m) {  // each product of both chains before the next product of either
#pragma unroll
        for (int p = 0; p < P; ++p) product(part[p], m, nb + s, p, s);
      }
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      acc0[nb][e] += part[0][e];
      if constexpr (P == 2) acc1[nb][e] += part[P - 1][e];
    }
  }
}

/// Step 3 on patches (patch_conv2d.cuh; the layout step 3 runs from K = kPatchMinMask): the
/// table's entry for mask rows i and i + 1 at column j, split: {w(i, j) big, w(i + 1, j) big,
/// w(i, j) small, w(i + 1, j) small}, 0 outside the mask. Lane (g, t) at row pair p and column
/// group c takes the entry i = 2p − oy, j = 4c + t − ox (oy = g / 4, ox = g % 4): its b0 =
/// B[k = t][n = g] = M[2p − oy][4c + t − ox] and b1 = B[t + 4][g], one mask row down.
__device__ __forceinline__ uint4 patch_fragment(const float* M, int K, int i, int j) {
  auto tap = [&](int row) { return row >= 0 && row < K && j >= 0 && j < K ? M[row * K + j] : 0.0f; };
  unsigned b0_big, b0_small, b1_big, b1_small;
  split_tf32(tap(i), b0_big, b0_small);
  split_tf32(tap(i + 1), b1_big, b1_small);
  return make_uint4(b0_big, b1_big, b0_small, b1_small);
}

/// Step 3 on patches: one row-pair offset j for the warp's NB strips (16 patches × 8 outputs
/// each) in PH phases (1 or 2), 3xTF32: phase 0 multiplies by row pair j (fragments b0, into
/// acc0), phase 1 by row pair j − 1 (b1, acc1; PH = 1 leaves both alone). `big` and `small` are
/// this lane's ldmatrix addresses of column group 0 of A at offset j in the tile's two parts;
/// group q is 16·q bytes on (4 floats). Strip nb at column group c multiplies group nb + c by
/// b[c] (patch_fragment of pair p, group c), one strip at a time.
///
/// Per strip and phase, its C groups' three products each (big·big from zero first, then the
/// small ones) chain on the tensor cores into `part`, then added to acc in float32: the chain
/// spans two mask rows, 3·C ≤ 15 MMAs (docs/design.md, Tolerance).
template <int C, int NB, int PH>
__device__ __forceinline__ void patch_pair_tf32x3(unsigned big, unsigned small, const uint4 (&b0)[C],
                                                  const uint4 (&b1)[C], float (&acc0)[NB][4], float (&acc1)[NB][4]) {
  static_assert(PH == 1 || PH == 2, "one phase or both");
  auto b = [&](int p, int c) -> const uint4& { return p == 0 ? b0[c] : b1[c]; };  // phase p's fragment
  unsigned a_big[NB + C - 1][4], a_small[NB + C - 1][4];  // [q][e]: column group q, A's register e
  auto load_group = [&](int q) {
    load_a_fragment(a_big[q], big + 16 * q);
    load_a_fragment(a_small[q], small + 16 * q);
  };
  // part += product m (0: big·big, from zero at c = 0; 1: small·big; 2: big·small) of group q
  // with phase p's fragment of column group c
  auto product = [&](float (&part)[4], int m, int q, int p, int c) {
    const unsigned(&a)[4] = m == 1 ? a_small[q] : a_big[q];
    const unsigned w0 = m == 2 ? b(p, c).z : b(p, c).x, w1 = m == 2 ? b(p, c).w : b(p, c).y;
    if (m == 0 && c == 0) {
      mma_tf32_from_zero(part, a, w0, w1);
    } else {
      mma_tf32(part, a, w0, w1);
    }
  };
#pragma unroll
  for (int q = 0; q < C - 1; ++q) load_group(q);
#pragma unroll
  for (int nb = 0; nb < NB; ++nb) {
    load_group(nb + C - 1);  // the window: groups nb .. nb + C − 1
    float part[PH][4];
#pragma unroll
    for (int c = 0; c < C; ++c) {
#pragma unroll
      for (int m = 0; m < 3; ++m) {  // each product of both chains before the next product of either
#pragma unroll
        for (int p = 0; p < PH; ++p) product(part[p], m, nb + c, p, c);
      }
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      acc0[nb][e] += part[0][e];
      if constexpr (PH == 2) acc1[nb][e] += part[PH - 1][e];
    }
  }
}
// ==== END STEP 3 ====

// ==== BEGIN STEP 4: the small products in BF16 ====
inline constexpr bool kStep4Written = true;  // true once band_fragment_mixed and band_rows_tf32_bf16 are written

// The BF16 MMA's k is a summation index like any other: which input column sits at which k is
// ours to choose, as long as A and B agree. Step 4 puts column t at k = 2t and column t + 4 at
// k = 2t + 1 (and the same columns again at 2t + 8, 2t + 9), so that lane (g, t) holds in its
// BF16 fragments exactly the columns its TF32 fragments hold, t and t + 4: its A registers for
// x_big are its TF32 ones, converted; only x_small comes from shared memory.

/// Step 4's B fragment of mask row `taps` for band entries j0 and j0 + 4: {b0 big, b1 big} as
/// step 3's (TF32), then the BF16 fragment of the small products' B (mma_bf16, depth 16) for the
/// same two entries: b0 = {w_small(j0), w_small(j0 + 4)} against x_big, b1 = {w_big(j0),
/// w_big(j0 + 4)} against x_small, where w_big = TF32(w) and w_small = w − w_big.
__device__ __forceinline__ uint4 band_fragment_mixed(const float* taps, int K, int j0) {
  const int j1 = j0 + 4;
  const float w0 = j0 >= 0 && j0 < K ? taps[j0] : 0.0f;
  const float w1 = j1 >= 0 && j1 < K ? taps[j1] : 0.0f;
  const unsigned w0_big = to_tf32(w0), w1_big = to_tf32(w1);
  return make_uint4(w0_big, w1_big, pack_bf16x2(w0 - tf32_value(w0_big), w1 - tf32_value(w1_big)),
                    pack_bf16x2(tf32_value(w0_big), tf32_value(w1_big)));
}

/// Step 3's band_rows_tf32x3 with the small products in BF16: per tile, phase and k-step, one
/// BF16 MMA of depth 16 (x_big · w_small + x_small · w_big) and one TF32 MMA (x_big · w_big), 2·S
/// MMAs per tile where step 3 issues 3·S. `big` as in step 3; `small2` this lane's ldmatrix
/// address (lanes 0–15: rows a_row, column 0) of the input tile's x_small in BF16, two columns per
/// word: word 4q + t holds columns 8q + t and 8q + t + 4, so column group q is 16·q bytes on.
/// Group q's BF16 A: a0 and a1 from its TF32 registers (rows g and g + 8: columns t, t + 4),
/// a2 and a3 from small2 (load_a_half). b0[s], b1[s]: band_fragment_mixed's fragments. TG tiles
/// at a time (1 or 2), each with its own chains. HALF (band_last_step_half, K = 10 to 13): an
/// 8-column tile reads K + 7 ≤ 20 input columns, so the last k-step's k ≥ 4 are all zero: its
/// TF32 product runs as mma_tf32_k4 (A's a0, a1; B's .x) and its BF16 products pair column t of
/// x_big and of x_small in one mma_bf16_k8 (k = 2t: x_big · w_small, 2t + 1: x_small · w_big).
///
/// Per tile and phase, its 2·S MMAs (the small products first, from zero) chain into `part`,
/// added to acc in float32 as in step 3.
template <int S, int NB, int P, int TG, bool HALF>
__device__ __forceinline__ void band_rows_tf32_bf16(unsigned big, unsigned small2, const uint4 (&b0)[S],
                                                    const uint4 (&b1)[S], float (&acc0)[NB][4],
                                                    float (&acc1)[NB][4]) {
  static_assert(P == 1 || P == 2, "one phase or both");
  static_assert(NB % TG == 0, "whole groups of tiles");
  auto b = [&](int p, int s) -> const uint4& { return p == 0 ? b0[s] : b1[s]; };  // phase p's fragment
  unsigned a_big[NB + S - 1][4], a_bf16[NB + S - 1][4];  // [q][e]: column group q, A's register e
  auto load_group = [&](int q) {
    load_a_fragment(a_big[q], big + 32 * q);
    a_bf16[q][0] = pack_bf16x2(tf32_value(a_big[q][0]), tf32_value(a_big[q][2]));  // row g:     columns t, t + 4
    a_bf16[q][1] = pack_bf16x2(tf32_value(a_big[q][1]), tf32_value(a_big[q][3]));  // row g + 8
    load_a_half(a_bf16[q][2], a_bf16[q][3], small2 + 16 * q);
  };
  // The low halves of two BF16 pairs, as one pair: column t of x_big (or w_small) and of x_small
  // (or w_big), for the half-depth MMA.
  auto low_halves = [](unsigned lo, unsigned hi) { return __byte_perm(lo, hi, 0x5410); };
#pragma unroll
  for (int q = 0; q < S - 1; ++q) load_group(q);
#pragma unroll
  for (int nb = 0; nb < NB; nb += TG) {
#pragma unroll
    for (int u = 0; u < TG; ++u) load_group(nb + u + S - 1);  // the window: groups nb .. nb + TG + S − 2
    float part[P][TG][4];  // part[p][u]: tile nb + u's products in phase p, the small ones first
#pragma unroll
    for (int s = 0; s < S; ++s) {
      const bool half = HALF && s == S - 1;
#pragma unroll
      for (int p = 0; p < P; ++p) {
#pragma unroll
        for (int u = 0; u < TG; ++u) {
          const unsigned(&a)[4] = a_bf16[nb + u + s];
          if (s == 0) {
            mma_bf16_from_zero(part[p][u], a, b(p, 0).z, b(p, 0).w);
          } else if (half) {
            mma_bf16_k8(part[p][u], low_halves(a[0], a[2]), low_halves(a[1], a[3]), low_halves(b(p, s).z, b(p, s).w));
          } else {
            mma_bf16(part[p][u], a, b(p, s).z, b(p, s).w);
          }
        }
      }
#pragma unroll
      for (int p = 0; p < P; ++p) {
#pragma unroll
        for (int u = 0; u < TG; ++u) {
          const unsigned(&a)[4] = a_big[nb + u + s];
          if (half) {
            mma_tf32_k4(part[p][u], a[0], a[1], b(p, s).x);
          } else {
            mma_tf32(part[p][u], a, b(p, s).x, b(p, s).y);
          }
        }
      }
    }
#pragma unroll
    for (int u = 0; u < TG; ++u) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        acc0[nb + u][e] += part[0][u][e];
        if constexpr (P == 2) acc1[nb + u][e] += part[P - 1][u][e];
      }
    }
  }
}
// ==== END STEP 4 ====

/// The band fragments of every mask row (given): frags[i·(8S + 3) + j0 + 7] for K rows and
/// j0 = −7 .. 8S − 5 (band_fragment_span), one thread each, step 3's (Arith = tf32x3) or step
/// 4's (tf32_bf16); run once per call, before banded_conv2d.
template <Precision Arith>
__global__ void band_fragments(const float* __restrict__ M, int K, uint4* __restrict__ frags) {
  const int span = band_fragment_span(band_steps(K));
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= K * span) return;
  const int i = e / span, j0 = e % span - 7;
  frags[e] = Arith == Precision::tf32x3 ? band_fragment(M + i * K, K, j0) : band_fragment_mixed(M + i * K, K, j0);
}

/// The kernel of steps 3 and 4 (given), in three phases: the input tile into shared memory, split
/// into its big and small parts (zero outside the image), and the band fragments beside it; the
/// MMAs, one input offset j at a time (band_rows_tf32x3 or band_rows_tf32_bf16); the outputs out.
/// Block (x, y) computes P's tile at row y·kBandTileRows, column x·kBandTileCols. F floats per
/// load: band_copy_floats(K, width). Dynamic shared memory: band_shared_bytes(K) for step 3,
/// band_mixed_shared_bytes(K) for step 4.
///
/// Warp w owns output rows wy .. wy + 31 (wy = 32·(w / 4)) and columns wx .. wx + 31
/// (wx = 32·(w % 4)), as kBandPhases = 2 phases of 16 rows: MMA row m of phase d is output row
/// wy + 2m + d. Phase d at mask row i reads input rows wy + 2m + d + i, so at input offset
/// j = d + i both phases read the same rows wy + 2m + j: one A, two MMAs. The tile's rows are
/// stored even rows first, then odd rows (tile row rr at shared row (rr % 2)·⌈rows/2⌉ + rr/2):
/// the 16 rows wy + 2m + j of an A are then 16 consecutive shared rows, as ldmatrix wants them.
///
/// Shared memory, rows = kBandTileRows + K − 1 of the input tile, in that row order:
///   tile_big  [rows][LD]   N rounded to TF32 (both steps)
///   step 3: tile_small [rows][LD]  what rounding left, rounded to TF32 again
///   step 4: small2     [rows][LDP] N minus its TF32 part, in BF16: word 4q + t holds columns
///                                  8q + t and 8q + t + 4 (band_rows_tf32_bf16's k order)
///   frags_s [K][8S + 3]            the band fragments, a copy of `frags`
///
/// HALF = band_last_step_half(K) (K = 10 to 13): step 4's last k-step at half depth. TG tiles at
/// a time: step 4 two, and one offset per loop trip; step 3 (K = 9 here) one tile and two offsets
/// per trip (each measured fastest where it ran, on an H200: results/bench/nvidia-h200/lab08.md).
template <Precision Arith, int S, int F, bool HALF>
__global__ void __launch_bounds__(kBandThreads, kMinBlocks)
banded_conv2d(const float* __restrict__ N, const uint4* __restrict__ frags, float* __restrict__ P, int height,
              int width, int K) {
  constexpr int NB = kBandWarpTiles, LD = band_tile_pitch(S), LDP = band_pair_pitch(S), COLS = band_tile_cols(S);
  constexpr int GROUPS = COLS / kMmaK;                                     // column groups of the tile
  constexpr int MAX_ROWS = kBandTileRows + kMaxMaskWidth - 1;              // its rows at the widest mask
  constexpr int ITEMS = (MAX_ROWS * GROUPS + kBandThreads - 1) / kBandThreads;  // (row, group)s a thread loads
  constexpr int SPAN = band_fragment_span(S);
  constexpr bool STEP3 = Arith == Precision::tf32x3;
  constexpr int TG = STEP3 && !HALF ? 1 : 2;  // tiles at a time (measured fastest: the kernel's comment)
  static_assert(!HALF || S == 3, "a half last k-step needs K = 10 .. 13: three k-steps");
  static_assert(!STEP3 || (S == 2 && !HALF), "step 3 runs the row band at K = 9 only (kPatchMinMask)");
  static_assert(S >= 2 && S <= 3, "K = 9 .. 17: bands of 2 or 3 k-steps");
  static_assert(STEP3 || Arith == Precision::tf32_bf16, "steps 3 and 4");
  static_assert(COLS % kMmaK == 0 && LD % 4 == 0 && LDP % 4 == 0, "whole column groups, 16-byte stores");
  static_assert(kMmaK % F == 0, "a group is whole loads of F floats");
  static_assert(kBandPhases == 2 && kBandWarpsX * NB * kMmaN == kBandTileCols, "two phases; warps across the tile");
  extern __shared__ __align__(16) unsigned smem_u[];
  const int rows = kBandTileRows + K - 1, half_rows = (rows + 1) / 2;
  unsigned* tile_big = smem_u;
  unsigned* tile_small = smem_u + rows * LD;  // step 3
  unsigned* small2 = smem_u + rows * LD;      // step 4
  uint4* frags_s = reinterpret_cast<uint4*>(smem_u + rows * (STEP3 ? 2 * LD : LD + LDP));
  const int r = (K - 1) / 2;
  const int y0 = blockIdx.y * kBandTileRows, x0 = blockIdx.x * kBandTileCols;

  // 1. The input tile, tile[rr][cc] = N[y0 − r + rr][x0 − r + cc], 0 outside the image (the
  //    lecture's ghost cells), as items (row rr, column group q) of 8 floats, q fastest: a warp
  //    reads consecutive groups of a row (coalesced). A thread issues the loads of all its items
  //    before it splits any (each load waits for memory: one at a time would take about as long
  //    as the MMAs), F floats at a time; then splits each in registers and stores its parts, 16
  //    bytes at a time. The block first copies the band fragments beside it.
  for (int e = threadIdx.x; e < K * SPAN; e += kBandThreads) frags_s[e] = frags[e];
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
    const int sr = (rr % 2) * half_rows + rr / 2;  // even rows first, then odd
    uint4* big = reinterpret_cast<uint4*>(tile_big + sr * LD + kMmaK * q);
    if constexpr (STEP3) {
      unsigned b[kMmaK], s[kMmaK];
#pragma unroll
      for (int c = 0; c < kMmaK; ++c) split_tf32(v[it][c], b[c], s[c]);
      uint4* small = reinterpret_cast<uint4*>(tile_small + sr * LD + kMmaK * q);
      big[0] = make_uint4(b[0], b[1], b[2], b[3]), big[1] = make_uint4(b[4], b[5], b[6], b[7]);
      small[0] = make_uint4(s[0], s[1], s[2], s[3]), small[1] = make_uint4(s[4], s[5], s[6], s[7]);
    } else {
      unsigned b[kMmaK], p[4];  // p[j]: word 4q + j of small2, columns j and j + 4
#pragma unroll
      for (int c = 0; c < kMmaK; ++c) b[c] = to_tf32(v[it][c]);
#pragma unroll
      for (int j = 0; j < 4; ++j) p[j] = pack_bf16x2(v[it][j] - tf32_value(b[j]), v[it][j + 4] - tf32_value(b[j + 4]));
      big[0] = make_uint4(b[0], b[1], b[2], b[3]), big[1] = make_uint4(b[4], b[5], b[6], b[7]);
      *reinterpret_cast<uint4*>(small2 + sr * LDP + 4 * q) = make_uint4(p[0], p[1], p[2], p[3]);
    }
  }
  __syncthreads();

  // 2. The MMAs, one input offset j = 0 .. K at a time (not unrolled: K is a run-time value):
  //    offset 0 has phase 0 only (mask row 0), offset K phase 1 only (mask row K − 1), the
  //    offsets between both. With one tile at a time, two offsets per trip, so that the
  //    fragments of the row read last stay where they are: b[0] and b[1] swap roles rather than
  //    values (an even K leaves one offset, which copies them); with two, one offset per trip.
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = lane / 4, t = lane % 4;
  const int wy = warp / kBandWarpsX * kBandPhases * kMmaM;  // the warp's first row in the block's tile
  const int wx = warp % kBandWarpsX * NB * kMmaN;           // and first column
  float acc[kBandPhases][NB][4] = {};  // acc[d][nb]: D of phase d's tile nb (rows wy + 2m + d, columns wx + 8nb .. +8)
  const uint4* lane_frags = frags_s + (t - g + 7);  // this lane's fragment of mask row i, k-step s: [i·SPAN + 8s]
  const unsigned a0 = shared_address(tile_big + (wy / 2 + a_row(lane)) * LD + wx + a_column(lane));
  const unsigned x0_ = STEP3 ? shared_address(tile_small + (wy / 2 + a_row(lane)) * LD + wx + a_column(lane))
                             : shared_address(small2 + (wy / 2 + a_row(lane)) * LDP + wx / 2);
  auto a_at = [&](int j, unsigned& big, unsigned& x) {  // A at offset j: shared rows of tile rows wy + 2m + j
    const int sr = (j % 2) * half_rows + j / 2;
    big = a0 + sr * LD * 4, x = x0_ + sr * (STEP3 ? LD : LDP) * 4;
  };
  auto load_row = [&](uint4 (&b)[S], int i) {
#pragma unroll
    for (int s = 0; s < S; ++s) b[s] = lane_frags[i * SPAN + kMmaK * s];
  };
  // Offset j: phase 0 with b0 into acc0, phase 1 (PH = 2) with b1 into acc[1].
  auto offset = [&](int j, const uint4(&b0)[S], const uint4(&b1)[S], float(&acc0)[NB][4], auto phases) {
    constexpr int PH = decltype(phases)::value;
    unsigned big, x;
    a_at(j, big, x);
    if constexpr (STEP3) {
      band_rows_tf32x3<S, NB, PH>(big, x, b0, b1, acc0, acc[1]);
    } else {
      band_rows_tf32_bf16<S, NB, PH, TG, HALF>(big, x, b0, b1, acc0, acc[1]);
    }
  };
  using One = std::integral_constant<int, 1>;
  using Both = std::integral_constant<int, 2>;
  uint4 b[2][S];  // the fragments of two consecutive mask rows
  load_row(b[0], 0);
  offset(0, b[0], b[0], acc[0], One{});  // phase 0 alone, mask row 0
  int j = 1;
#pragma unroll 1
  for (; TG == 1 && j + 1 < K; j += 2) {  // b[0] holds mask row j − 1
    load_row(b[1], j);
    offset(j, b[1], b[0], acc[0], Both{});
    load_row(b[0], j + 1);
    offset(j + 1, b[0], b[1], acc[0], Both{});
  }
#pragma unroll 1
  for (; j < K; ++j) {  // with two tiles at a time every offset; else, K even, offset K − 1 alone
#pragma unroll
    for (int s = 0; s < S; ++s) b[1][s] = b[0][s];
    load_row(b[0], j);
    offset(j, b[0], b[1], acc[0], Both{});
  }
  offset(K, b[0], b[0], acc[1], One{});  // phase 1 alone, mask row K − 1 (in b[0])

  // 3. D's registers (mma_tf32.cuh): e = 0, 1 are MMA row g, columns 2t, 2t + 1; e = 2, 3 row
  //    g + 8; MMA row m of phase d is output row wy + 2m + d. Both columns in one 8-byte store
  //    where the row allows it: four lanes then fill a 32-byte sector of P, where two 4-byte
  //    stores each fill half of it (on an H200, 5–10 % off step 3 at K = 9 to 13, 2–9 % off step 4).
  const bool pairs = width % 2 == 0 && reinterpret_cast<uintptr_t>(P) % 8 == 0;  // x is even
#pragma unroll
  for (int d = 0; d < kBandPhases; ++d) {
#pragma unroll
    for (int nb = 0; nb < NB; ++nb) {
      const int x = x0 + wx + nb * kMmaN + 2 * t;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int y = y0 + wy + 2 * (g + 8 * half) + d;
        if (y >= height) continue;
        float* out = P + static_cast<size_t>(y) * width + x;
        if (pairs && x + 1 < width) {
          *reinterpret_cast<float2*>(out) = make_float2(acc[d][nb][2 * half], acc[d][nb][2 * half + 1]);
        } else {
          if (x < width) out[0] = acc[d][nb][2 * half];
          if (x + 1 < width) out[1] = acc[d][nb][2 * half + 1];
        }
      }
    }
  }
}

}  // namespace convlab::lab08
