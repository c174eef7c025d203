/// @file banded_conv2d.cuh
/// @brief Lab 08, step 3 (reference): one image and a large mask (K ≥ 9) on tensor cores, in
///        3xTF32, as banded GEMMs over image rows. Same file as labs/08-tensor-cores/
///        banded_conv2d.cuh, with the step written.
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
///            k-step s and tile nb + 1's k-step s − 1 read the same 8 input columns.
/// Achieves:  `grader bench --only conv2d` times it against lab 07 and the FP32 FMA bound; the
///            analysis model (`grader analyze --lab lab08`) gives its MMAs and useful fraction.
///
/// Shapes: N [height][width], M [K][K], P [height][width]; the band fragments [K][S][32 lanes]
/// in global memory; a block's output tile kBandTileRows × kBandTileCols, its input tile
/// (kBandTileRows + K − 1) × band_tile_cols(S) in shared memory, big and small parts
/// (lab08_config.hpp).
#pragma once

#include <cuda_runtime.h>

#include "convlab/lab08_config.hpp"
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
/// tile nb = q − s at k-step s. `frag` points at this lane's fragment of k-step 0; k-step s is
/// 32 fragments further. acc[nb][e]: D's register e of tile nb.
///
/// Per tile, its S k-steps and three products each (big·big from zero first, then the small
/// ones) accumulate on the tensor cores into `part`, which is then added to acc in float32
/// (round to nearest): the tensor cores' truncating accumulation sees only 3·S MMAs, so its
/// error stays a few units of roundoff per mask row (docs/design.md, Tolerance).
template <int S, int NB, int LD>
__device__ __forceinline__ void band_row_tf32x3(const unsigned* big, const unsigned* small, const uint4* frag,
                                                float (&acc)[NB][4]) {
  uint4 b[S];  // b[s]: this lane's split B fragment of k-step s
#pragma unroll
  for (int s = 0; s < S; ++s) b[s] = frag[s * 32];
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

/// The band fragments of every mask row (given): frags[(i·S + s)·32 + lane] for K rows, one
/// thread each; run once per call, before banded_conv2d.
__global__ void band_fragments(const float* __restrict__ M, int K, uint4* __restrict__ frags) {
  const int S = band_steps(K);
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= K * S * 32) return;
  const int lane = e % 32, s = e / 32 % S, i = e / (32 * S);
  frags[e] = band_fragment(M + i * K, K, s, lane / 4, lane % 4);
}

/// The kernel (given), in three phases: the input tile into shared memory, split into its big
/// and small TF32 parts (zero outside the image); band_row_tf32x3 for each mask row; the outputs
/// out. Block (x, y) computes P's tile at row y·kBandTileRows, column x·kBandTileCols.
/// Dynamic shared memory: band_shared_bytes(K).
template <int S>
__global__ void __launch_bounds__(kBandThreads, kMinBlocks)
banded_conv2d(const float* __restrict__ N, const uint4* __restrict__ frags, float* __restrict__ P, int height,
              int width, int K) {
  constexpr int NB = kBandWarpTiles, LD = band_tile_pitch(S), COLS = band_tile_cols(S);
  static_assert(S >= 2 && S <= 3, "K = 9 .. 17: bands of 2 or 3 k-steps");
  extern __shared__ __align__(16) unsigned smem_u[];
  const int rows = kBandTileRows + K - 1;
  unsigned* tile_big = smem_u;                // [rows][LD]: N rounded to TF32
  unsigned* tile_small = smem_u + rows * LD;  // [rows][LD]: what rounding left, rounded again
  const int r = (K - 1) / 2;
  const int y0 = blockIdx.y * kBandTileRows, x0 = blockIdx.x * kBandTileCols;

  // 1. The input tile: tile[rr][cc] = N[y0 − r + rr][x0 − r + cc], 0 outside the image (the
  //    lecture's ghost cells), split; a warp per row, its lanes along it (coalesced).
  for (int rr = threadIdx.x / 32; rr < rows; rr += kBandThreads / 32) {
    const int y = y0 - r + rr;
    for (int cc = threadIdx.x % 32; cc < COLS; cc += 32) {
      const int x = x0 - r + cc;
      const float v = y >= 0 && y < height && x >= 0 && x < width ? N[static_cast<size_t>(y) * width + x] : 0.0f;
      split_tf32(v, tile_big[rr * LD + cc], tile_small[rr * LD + cc]);
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
    const int at = (wy + g + i) * LD + wx + t;
    band_row_tf32x3<S, NB, LD>(tile_big + at, tile_small + at, frags + i * S * 32 + lane, acc);
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
