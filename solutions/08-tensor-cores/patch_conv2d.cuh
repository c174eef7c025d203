/// @file patch_conv2d.cuh
/// @brief Lab 08 step 3 on 2 × 4 output patches (given, do not edit): the kernel that runs step 3
///        from K = kPatchMinMask, with your patch_fragment and patch_pair_tf32x3
///        (banded_conv2d.cuh, STEP 3).
///
/// Idea:      the row band gives an MMA's 8 columns to 8 outputs of one row, so its k-steps
///            cover K + 7 input columns for K useful ones. Give them instead to a patch of 2 rows
///            × 4 columns (n = 4·oy + ox), and let a k-step read 2 input rows × 4 columns
///            (k = 4·ky + kx):
///
///              P[y + oy][x + ox] += Σ_k  N[y + 2p + ky − r][x + 4c + kx − r] · M[2p + ky − oy][4c + kx − ox]
///                                        └──────── A[m = patch][k] ────────┘   └──────── B_pc[k][n] ─────┘
///
///            for every row pair p < patch_pairs(K) and column group c < patch_groups(K): the
///            patch's window is (K + 1) × (K + 3), P·C k-steps where the row band takes
///            K·band_depth(K)/8 (K = 13: 28 against 32.5; patch_useful_fraction 169/224 against
///            13/20).
/// Adds:      over the row band (banded_conv2d.cuh), 2 × 4 patches: 19 % fewer MMA slots at
///            K = 13 (no half-depth k-step needed), 12 % at K = 17; and an input tile loaded by
///            threads that each keep one column group, so that its bounds are checked once (the
///            loads and splits were the first patch kernel's longest phase in instructions).
/// Achieves:  on an H200 at 8192² (grader bench, 2026-12-02), K = 13: 0.4285 ms against lab 07's
///            0.4482 (the row band took 0.5068 in the bench before); K = 17: 0.6331 against 0.7351
///            (0.6754) (results/bench/nvidia-h200/lab08.md).
///
/// Shapes: N [height][width], M [K][K], P [height][width]; the table
/// [2·patch_pairs(K)][patch_table_width(C)] (patch_fragment per entry) in global memory and copied
/// into each block's shared memory; a block's output tile kPatchTileRows × kPatchTileCols (the row
/// band's), its input tile patch_tile_rows(K) × patch_tile_cols(C), big and small parts
/// (lab08_config.hpp).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "banded_conv2d.cuh"
#include "convlab/lab08_config.hpp"
#include "ldmatrix.cuh"

namespace convlab::lab08 {

/// The mask's fragment table (given): T[(i + 1)·TW + j + 3] = patch_fragment(M, K, i, j) for
/// i = −1 .. 2P − 2 and j = −3 .. 4C − 1 (TW = patch_table_width(C)), one thread each; run once
/// per call, before patch_conv2d.
__global__ void patch_fragments(const float* __restrict__ M, int K, uint4* __restrict__ T) {
  const int TW = patch_table_width(patch_groups(K));
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= patch_table_count(K)) return;
  T[e] = patch_fragment(M, K, e / TW - 1, e % TW - 3);
}

/// Step 3's kernel on patches (given), in three phases: the input tile into shared memory, split
/// into its big and small parts (zero outside the image), and the table beside it; the MMAs, one
/// row-pair offset j = 0 .. P at a time (patch_pair_tf32x3); the outputs out. Block (x, y) computes
/// P's tile at row y·kPatchTileRows, column x·kPatchTileCols; C = patch_groups(K); F floats per
/// load (band_copy_floats(K, width)); dynamic shared memory patch_shared_bytes(K).
///
/// Warp w owns all 64 rows of the block's tile and columns 16w .. 16w + 15: kPatchWarpStrips strips
/// of 4 columns. MMA row m of phase d is the patch at rows 4m + 2d, 4m + 2d + 1; at pair p it reads
/// tile rows 4m + 2(d + p) + ky, so at offset j = d + p both phases read rows 4m + 2j + ky: one A,
/// two MMAs. The tile's rows are kept by their remainder mod 4 (row rr at shared row
/// (rr % 4)·⌈rows/4⌉ + rr/4), so the 16 rows of an A's half (ky = 0 or 1) are consecutive.
///
/// Shared memory, rows = patch_tile_rows(K), pitch LD = patch_tile_pitch(C):
///   tile_big   [4][⌈rows/4⌉][LD]   N rounded to TF32
///   tile_small [4][⌈rows/4⌉][LD]   what rounding left, rounded to TF32 again
///   table      [2P][4C + 3]        the fragments, a copy of `T`
template <int C, int F>
__global__ void __launch_bounds__(kPatchThreads, kMinBlocks)
patch_conv2d(const float* __restrict__ N, const uint4* __restrict__ T, float* __restrict__ P, int height, int width,
             int K) {
  constexpr int NB = kPatchWarpStrips, LD = patch_tile_pitch(C), GROUPS = patch_tile_cols(C) / 4;
  constexpr int TW = patch_table_width(C);
  constexpr int MAX_ROWS = patch_tile_rows(4 * C - 3);                  // at the widest mask of C groups
  constexpr int ROW_STEP = kPatchThreads / GROUPS;                       // rows a pass of the block loads
  constexpr int ITEMS = (MAX_ROWS + ROW_STEP - 1) / ROW_STEP;           // rows a thread loads
  static_assert(C >= 3 && C <= 5 && patch_groups(4 * C - 3) == C, "K = 9 .. 17: 3 to 5 column groups");
  static_assert(4 % F == 0, "a group is whole loads of F floats");
  static_assert(kPatchWarps * NB * 4 == kPatchTileCols && kPatchTileRows == 2 * 2 * kMmaM, "warps across the tile");
  extern __shared__ __align__(16) unsigned smem_u[];
  const int pairs = patch_pairs(K), rows = patch_tile_rows(K), quarter = patch_quarter_rows(K);
  unsigned* tile_big = smem_u;
  unsigned* tile_small = smem_u + 4 * quarter * LD;
  uint4* table = reinterpret_cast<uint4*>(smem_u + 2 * 4 * quarter * LD);
  const int r = (K - 1) / 2;
  const int y0 = blockIdx.y * kPatchTileRows, x0 = blockIdx.x * kPatchTileCols;

  // 1. The input tile, tile[rr][cc] = N[y0 − r + rr][x0 − r + cc], 0 outside the image. Thread
  //    (row0, q) loads column group q (4 floats) of rows row0, row0 + ROW_STEP, …: its columns'
  //    bounds are checked once. All loads first (each waits for memory), F floats at a time;
  //    then each group split in registers and stored, 16 bytes per part.
  for (int e = threadIdx.x; e < patch_table_count(K); e += kPatchThreads) table[e] = T[e];
  const int q = threadIdx.x % GROUPS, row0 = threadIdx.x / GROUPS;  // row0 ≥ ROW_STEP: the spare threads
  const int x = x0 - r + 4 * q;
  bool column_inside[4];
#pragma unroll
  for (int c = 0; c < 4; c += F) column_inside[c] = row0 < ROW_STEP && x + c >= 0 && x + c < width;
  float v[ITEMS][4];  // v[it]: row row0 + it·ROW_STEP, the group's 4 columns
  const float* row = N + static_cast<ptrdiff_t>(y0 - r + row0) * width + x;  // read only where inside
#pragma unroll
  for (int it = 0; it < ITEMS; ++it, row += static_cast<ptrdiff_t>(ROW_STEP) * width) {
    const int rr = row0 + it * ROW_STEP, y = y0 - r + rr;
    const bool row_inside = rr < rows && y >= 0 && y < height;
#pragma unroll
    for (int c = 0; c < 4; c += F) {
      const bool inside = row_inside && column_inside[c];  // all F floats, or none (band_copy_floats)
      if constexpr (F == 4) {
        const float4 w = inside ? __ldg(reinterpret_cast<const float4*>(row + c)) : make_float4(0, 0, 0, 0);
        v[it][c] = w.x, v[it][c + 1] = w.y, v[it][c + 2] = w.z, v[it][c + 3] = w.w;
      } else if constexpr (F == 2) {
        const float2 w = inside ? __ldg(reinterpret_cast<const float2*>(row + c)) : make_float2(0, 0);
        v[it][c] = w.x, v[it][c + 1] = w.y;
      } else {
        v[it][c] = inside ? __ldg(row + c) : 0.0f;
      }
    }
  }
  if (row0 < ROW_STEP) {
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) {
      const int rr = row0 + it * ROW_STEP;
      if (rr >= rows) break;
      const int sr = (rr % 4) * quarter + rr / 4;
      unsigned b[4], s[4];
#pragma unroll
      for (int c = 0; c < 4; ++c) split_tf32(v[it][c], b[c], s[c]);
      *reinterpret_cast<uint4*>(tile_big + sr * LD + 4 * q) = make_uint4(b[0], b[1], b[2], b[3]);
      *reinterpret_cast<uint4*>(tile_small + sr * LD + 4 * q) = make_uint4(s[0], s[1], s[2], s[3]);
    }
  }
  __syncthreads();

  // 2. The MMAs, one row-pair offset j = 0 .. P at a time: offset 0 has phase 0 only (pair 0),
  //    offset P phase 1 only (pair P − 1), the offsets between both. Two offsets per trip, so
  //    that the fragments of the pair read last stay where they are: b[0] and b[1] swap roles
  //    rather than values (an odd count of middle offsets leaves one, which copies them).
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = lane / 4, t = lane % 4;
  float acc[2][NB][4] = {};  // acc[d][nb]: D of phase d's strip nb (patches 4m + 2d, columns 16·warp + 4nb ..)
  const uint4* lane_table = table + (1 - g / 4) * TW + (t - g % 4 + 3);  // pair p, group c: [2p·TW + 4c]
  const int ky = a_column(lane) / 4;                                      // this lane's A rows: 4m + 2j + ky
  const unsigned big0 = shared_address(tile_big + a_row(lane) * LD + 16 * warp);
  const unsigned small_bytes = 4 * quarter * LD * 4;  // tile_small − tile_big
  auto a_at = [&](int j) {  // A at offset j, big part: rows 4m + 2j + ky
    const int tr = 2 * j + ky;
    return big0 + ((tr % 4) * quarter + tr / 4) * LD * 4;
  };
  auto load_pair = [&](uint4 (&b)[C], int p) {
#pragma unroll
    for (int c = 0; c < C; ++c) b[c] = lane_table[2 * p * TW + 4 * c];
  };
  // Offset j: phase 0 with b0 into acc0, phase 1 (PH = 2) with b1 into acc[1].
  auto offset = [&](int j, const uint4(&b0)[C], const uint4(&b1)[C], float(&acc0)[NB][4], auto phases) {
    constexpr int PH = decltype(phases)::value;
    const unsigned big = a_at(j);
    patch_pair_tf32x3<C, NB, PH>(big, big + small_bytes, b0, b1, acc0, acc[1]);
  };
  using One = std::integral_constant<int, 1>;
  using Both = std::integral_constant<int, 2>;
  uint4 b[2][C];  // the fragments of two consecutive row pairs
  load_pair(b[0], 0);
  offset(0, b[0], b[0], acc[0], One{});  // phase 0 alone, pair 0
  int j = 1;
#pragma unroll 1
  for (; j + 1 < pairs; j += 2) {  // b[0] holds pair j − 1
    load_pair(b[1], j);
    offset(j, b[1], b[0], acc[0], Both{});
    load_pair(b[0], j + 1);
    offset(j + 1, b[0], b[1], acc[0], Both{});
  }
  if (j < pairs) {
#pragma unroll
    for (int c = 0; c < C; ++c) b[1][c] = b[0][c];
    load_pair(b[0], j);
    offset(j, b[0], b[1], acc[0], Both{});
  }
  offset(pairs, b[0], b[0], acc[1], One{});  // phase 1 alone, pair P − 1 (in b[0])

  // 3. D's registers (mma_tf32.cuh): e = 0, 1 are MMA row g, columns 2t, 2t + 1; e = 2, 3 row
  //    g + 8. Column n of patch m is output row 4m + 2d + n/4, column n % 4 of the strip: lane
  //    (g, t) holds row t / 2, columns 2(t % 2) and 2(t % 2) + 1, one 8-byte store where the row
  //    allows it.
  const bool pairs_fit = width % 2 == 0 && reinterpret_cast<uintptr_t>(P) % 8 == 0;  // x is even
#pragma unroll
  for (int d = 0; d < 2; ++d) {
#pragma unroll
    for (int nb = 0; nb < NB; ++nb) {
      const int xo = x0 + 16 * warp + 4 * nb + 2 * (t % 2);
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int y = y0 + 4 * (g + 8 * half) + 2 * d + t / 2;
        if (y >= height) continue;
        float* out = P + static_cast<size_t>(y) * width + xo;
        if (pairs_fit && xo + 1 < width) {
          *reinterpret_cast<float2*>(out) = make_float2(acc[d][nb][2 * half], acc[d][nb][2 * half + 1]);
        } else {
          if (xo < width) out[0] = acc[d][nb][2 * half];
          if (xo + 1 < width) out[1] = acc[d][nb][2 * half + 1];
        }
      }
    }
  }
}

}  // namespace convlab::lab08
