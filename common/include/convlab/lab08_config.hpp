/// @file lab08_config.hpp
/// @brief Lab 08's launch configuration on the host: the tensor-core implicit GEMM's block and
///        warp tiles, its pipeline depth, the split-K plan it launches a layer with and the
///        shortest reduction it gives the tensor cores at FP32 accuracy; one place that the
///        lab's launchers and the analysis model both read, as lab06_config.hpp is for lab 06.
#pragma once

#include <algorithm>

#include "convlab/ceil_div.hpp"  // CONVLAB_HOST_DEVICE
#include "convlab/shapes.hpp"

namespace convlab::lab08 {

/// The arithmetic a step runs on the tensor cores (docs/design.md, Tolerance).
enum class Precision {
  tf32,    ///< step 1, "1xTF32": both operands rounded to TF32, one product
  tf32x3,  ///< step 2, "3xTF32": both split into big + small TF32 parts, three products
  /// step 4: split as 3xTF32, the big product in TF32, the two small ones in BF16, both in one
  /// MMA of twice the depth (one image, K ≥ kBandMixedMinMask)
  tf32_bf16,
};

/// The tensor-core instruction: `mma.sync.aligned.m16n8k8` with TF32 operands and float32
/// accumulators multiplies a 16×8 tile of A by an 8×8 tile of B.
inline constexpr int kMmaM = 16;
inline constexpr int kMmaN = 8;  ///< columns of B and D in one MMA
inline constexpr int kMmaK = 8;  ///< the MMA's reduction depth (rows of B)

/// A block's tile of Y (rows: filters m; columns: output positions n of the whole batch):
/// BM × kBlockN, BM from block_m.
inline constexpr int kBlockN = 128;
/// Blocks resident per SM that the kernels are compiled for (__launch_bounds__): two blocks of
/// 8 warps hide the MMAs' latency where one cannot, and cap a thread's registers at 128.
inline constexpr int kMinBlocks = 2;
/// The depth of one reduction slice in shared memory: two k-steps of the MMA.
inline constexpr int kSliceDepth = 16;
/// Slices in flight (cp.async), one being multiplied.
inline constexpr int kStages = 3;
/// 8 warps as 2 (m) × 4 (n); a warp's tile is (BM/2) × 32: (BM/32) × 4 MMA tiles.
inline constexpr int kWarpsM = 2;
inline constexpr int kWarpsN = 4;                        ///< warps across a block tile's columns
inline constexpr int kThreads = 32 * kWarpsM * kWarpsN;  ///< threads per block
/// Shared-memory row pitch in floats: BM or kBlockN plus 8, so that the pitch is 8 (mod 32)
/// and a warp's fragment load (rows k + tig, columns base + gid, tig < 4, gid < 8) touches 32
/// different banks.
inline constexpr int kPad = 8;

/// Shared memory of one block: kStages slices of As [kSliceDepth][BM + kPad] and
/// Bs [kSliceDepth][kBlockN + kPad] (above the 48 KB of static shared memory for BM = 128, so
/// the launcher opts in to more).
constexpr int shared_bytes(int bm) { return kStages * kSliceDepth * (bm + kPad + kBlockN + kPad) * 4; }

/// 3xTF32 reaches FP32 accuracy only when the reduction is long enough: each product carries up
/// to 20 units of float32 roundoff from the parts its split drops, a slice's chained MMAs up to 12
/// more over the whole sum and the per-slice additions one each (docs/design.md, Tolerance):
/// 32 + ⌈n/16⌉ units, within the FP32 rule's n from n = 35. Shorter reductions (C·K·K < this) run
/// on the FP32 CUDA cores instead; they are a few dozen multiply-adds per output, not tensor-core work.
inline constexpr int kMinTensorCoreTerms = 35;

/// Block tile rows of a step on a layer of `filters` output channels: 128, or 64 when the layer
/// has at most 64 filters; always 64 for 3xTF32, whose two sets of accumulators (acc and part)
/// would not fit a 128-row tile's thread in 128 registers.
constexpr int block_m(Precision p, int filters) { return p == Precision::tf32x3 || filters <= 64 ? 64 : 128; }

/// How many blocks share one output's reduction (split-K, atomic adds into a zeroed Y). A layer
/// with at least kMinBlocks tiles per SM is not split. One with fewer is split at least enough that
/// every SM gets kMinBlocks blocks, and among such splits s (each split keeps at least 8 slices to
/// pipeline) the one whose busiest SM has the least work: ⌈tiles·s / sms⌉ blocks of 1/s of a tile
/// each; the smallest s of equals, for the fewest atomic adds. Filling the slots alone is not enough:
/// B32 C256→256 14×14's 98 tiles of 128 rows in 3 splits give some of an H200's 132 SMs three
/// blocks of 1/3 each (a whole tile's work), in 4 splits three of 1/4: step 1 took 0.187 ms at 3
/// splits, 0.149 at 4, 0.160 at 2 and 0.166 at 6 (H200, 2026-11-29).
/// @param s the layer (validated by the caller)
/// @param bm the block tile's rows (block_m)
/// @param sms streaming multiprocessors of the GPU
inline int split_k(const ConvLayerShape& s, int bm, int sms) {
  const long long n = static_cast<long long>(s.batch) * s.out_height() * s.out_width();
  const long long tiles = ((n + kBlockN - 1) / kBlockN) * ((s.filters + bm - 1) / bm);
  const long long kdim = static_cast<long long>(s.channels) * s.mask_width * s.mask_width;
  const long long slices = (kdim + kSliceDepth - 1) / kSliceDepth;
  const long long slots = static_cast<long long>(sms) * kMinBlocks;
  if (tiles >= slots) return 1;
  const long long most = std::max(1LL, slices / 8);
  const long long fill = std::min(most, (slots + tiles - 1) / tiles);  // the fewest that fill every slot
  long long best = fill;
  // busiest SM's work, in tiles: ⌈tiles·s / sms⌉ / s, compared as cross products to stay exact
  const auto busiest = [&](long long split) { return (tiles * split + sms - 1) / sms; };
  for (long long split = fill + 1; split <= most; ++split) {
    if (busiest(split) * best < busiest(best) * split) best = split;
  }
  return static_cast<int>(best);
}

// ---- Step 3: one image, a large mask, as banded GEMMs (banded_conv2d.cuh) ----
//
// For mask row i, the outputs of one image row are a 1D convolution of input row y + i − r:
// an 8-column MMA tile of outputs reads K + 7 inputs, so B (8 k × 8 outputs) is a band of a
// Toeplitz matrix, B_s[k][n] = mask[i][8s + k − n], spread over band_steps(K) k-steps of which
// a K-wide band is useful. A's 16 rows are 16 output rows: A[m][k] is the input tile's row m + i.

/// The smallest mask step 3 takes: below it the band wastes more than half of every MMA and
/// labs 05 and 07 are faster on CUDA cores.
inline constexpr int kBandMinMask = 9;
/// A warp's tile of P: one 16-row MMA tile down, kBandWarpTiles 8-column MMA tiles across.
inline constexpr int kBandWarpTiles = 8;
/// 8 warps as 4 (rows) × 2 (columns).
inline constexpr int kBandWarpsY = 4;
inline constexpr int kBandWarpsX = 2;  ///< warps across a block's tile
inline constexpr int kBandThreads = 32 * kBandWarpsY * kBandWarpsX;           ///< threads per block
inline constexpr int kBandTileRows = kBandWarpsY * kMmaM;                     ///< a block's output rows
inline constexpr int kBandTileCols = kBandWarpsX * kBandWarpTiles * kMmaN;   ///< and columns

/// k-steps of one mask row's band: ⌈(K + 7) / 8⌉.
CONVLAB_HOST_DEVICE constexpr int band_steps(int k) { return (k + kMmaN - 1 + kMmaK - 1) / kMmaK; }
/// The useful fraction of the band's MMAs: K of every 8·band_steps(K) products are the mask's.
constexpr double band_useful_fraction(int k) { return static_cast<double>(k) / (kMmaK * band_steps(k)); }
/// Columns of a block's input tile: a warp's last MMA tile reads 8·(S − 1) columns past its own.
CONVLAB_HOST_DEVICE constexpr int band_tile_cols(int steps) { return kBandTileCols + kMmaK * (steps - 1); }
/// The tile's row pitch in floats: its columns plus 4, an odd multiple of 4 (mod 32), so that a
/// warp's fragment load (rows g, columns t, g < 8, t < 4) touches 32 different banks.
CONVLAB_HOST_DEVICE constexpr int band_tile_pitch(int steps) { return band_tile_cols(steps) + 4; }
/// The mask's band fragments: K·S·32 of 4 registers (a lane's b0, b1, big and small), made once
/// per call by their own kernel and read by every block through the L1 cache.
CONVLAB_HOST_DEVICE constexpr int band_fragment_count(int k) { return k * band_steps(k) * 32; }
/// Dynamic shared memory of a block for mask width k: the input tile, (kBandTileRows + K − 1)
/// rows, twice: its big and its small TF32 parts, split once as the tile is loaded.
constexpr int band_shared_bytes(int k) { return 2 * (kBandTileRows + k - 1) * band_tile_pitch(band_steps(k)) * 4; }
static_assert(band_tile_pitch(2) % 32 == 12 && band_tile_pitch(3) % 32 == 20, "fragment loads on 32 banks");

// ---- Step 4: step 3 with its two small products in BF16 (banded_conv2d.cuh) ----
//
// The big product stays TF32 (T MMAs of depth 8 per mask row and tile); the small products
// x_big·w_small + x_small·w_big, which need only a few bits, become one BF16 product of depth 16
// (x_big's and x_small's 8 columns side by side, against w_small's and w_big's band): T BF16
// MMAs, which take the tensor cores about as long as T TF32 ones (measured on an H200). 2T MMAs
// where step 3 issues 3T.

/// The smallest mask step 4 takes: its error bound, (132 + 12 + K)·2^-24·S (docs/design.md,
/// Tolerance), is within the float32 rule K²·2^-24·S from K = 13 on.
inline constexpr int kBandMixedMinMask = 13;
/// The pitch of step 4's BF16 copy of the input tile's small parts, in words of two columns: at
/// least half the tile's columns, and 4 (mod 8), so that a warp's fragment load (rows g < 8,
/// words t < 4) touches 32 different banks.
CONVLAB_HOST_DEVICE constexpr int band_pair_pitch(int steps) {
  return band_tile_cols(steps) / 2 + (12 - band_tile_cols(steps) / 2 % 8) % 8;
}
/// Dynamic shared memory of a step 4 block for mask width k: the input tile's big TF32 parts
/// (as step 3) and its small parts in BF16, two to a word.
constexpr int band_mixed_shared_bytes(int k) {
  return (kBandTileRows + k - 1) * (band_tile_pitch(band_steps(k)) + band_pair_pitch(band_steps(k))) * 4;
}
static_assert(band_pair_pitch(2) % 8 == 4 && band_pair_pitch(3) % 8 == 4, "fragment loads on 32 banks");

}  // namespace convlab::lab08
