/// @file lab08_config.hpp
/// @brief Lab 08's launch configuration on the host: the tensor-core implicit GEMM's block and
///        warp tiles, its pipeline depth, the split-K plan it launches a layer with and the
///        shortest reduction it gives the tensor cores at FP32 accuracy (steps 1 and 2); the
///        banded steps' tiles (3 and 4); steps 5 and 6's block tiles, warpgroups, planes, error
///        budgets and plan on Hopper's wgmma, step 7's, and the GPU they need; one place that the lab's
///        launchers and the analysis model both read, as lab06_config.hpp is for lab 06.
#pragma once

#include <algorithm>
#include <string>

#include "convlab/ceil_div.hpp"  // CONVLAB_HOST_DEVICE
#include "convlab/limits.hpp"  // kMaxMaskWidth
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

/// Shared memory of one step 2 block: kStages slices of As [kSliceDepth][BM + kPad] and
/// Bs [kSliceDepth][kBlockN + kPad] (step 1's: nhwc_shared_bytes).
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

/// What the split-K rules divide (split_k, nhwc_split_k, wgmma_plan).
struct SplitWork {
  long long tiles;   ///< block tiles of the layer's GEMM
  long long slices;  ///< `depth`-deep slices of each tile's reduction (C·K·K)
};
/// The layer's block tiles of `bm` filters × `bn` output positions (of the whole batch), and the
/// `depth`-deep slices of each tile's reduction.
inline SplitWork split_work(const ConvLayerShape& s, long long bm, long long bn, long long depth = kSliceDepth) {
  const long long n = static_cast<long long>(s.batch) * s.out_height() * s.out_width();
  const long long kdim = static_cast<long long>(s.channels) * s.mask_width * s.mask_width;
  return {((n + bn - 1) / bn) * ((s.filters + bm - 1) / bm), (kdim + depth - 1) / depth};
}

// ---- Split-K by a model of the kernels' measured times ----
//
// The rule the steps had before counted work: the blocks of the busiest SM, each 1/s of a tile,
// after enough splits to fill every slot (steps 1 and 2, and step 5's wide tile; its narrow tile
// took the fewest that fill them). Timed at every split count on layers of few tiles (NVIDIA
// H200; results/bench/nvidia-h200/lab08_step1_splits.csv and lab08_wgmma_splits.csv),
// those picks ran 1.03–1.22× the best split's time (geometric means), up to 1.6×. What the times
// showed that a count of work leaves out:
//   - a block alone on an SM is not half as fast as two: step 1's 132 blocks of 18 slices ran in
//     0.81 of the time of 264 of 9 (B8 C256→384 13×13), though both give every SM 18 slices;
//   - a block's fixed cost (its pipeline's first slices, its epilogue), and the atomic adds of a
//     split into Y, which load the L2 of the whole GPU;
//   - for step 1, a last round of fewer blocks than slots is not always spread one an SM: it can
//     run as a whole round (B32 C256→256 14×14: 392 blocks of 18 slices, 264 and then 128, took
//     0.0717 ms, 490 of 14.4 took 0.0657).
// The model: n = tiles·s blocks of slices/s slices each, b blocks an SM, times in slices of a block
// that shares its SM, F = block_fixed (b > 1) or block_fixed_alone (b = 1):
//
//   n ≤ SMs (and b > 1):  lone_block_slice · slices/s + F                    (one block an SM)
//   else, last_round_whole:  ⌈n / (b·SMs)⌉ · (slices/s + F)                (rounds of b an SM)
//   else:                    ⌈n / SMs⌉ / b · (slices/s + F)                (the busiest SM's)
//   + split_adds · n / SMs, where s > 1                                     (the atomic adds)
//
// The constants were chosen on a grid against one set of layers (the CSVs' `fit` sets) and
// checked on another of 18 (`check`): there the picks ran 1.002–1.009× the best split's time
// (geometric means), 1.01–1.10× at worst. Step 2 shares steps 5 and 6's constants. No layer of
// those sets ran one block an SM; block_fixed_alone was chosen on a third set of 13 such layers
// (`wide`), where the picks then ran 1.00× (1.01× at worst), and is checked on no other.

/// What a split costs a kernel, in slices (the model above).
struct SplitCosts {
  double lone_block_slice;   ///< a slice of a block alone on its SM, in slices of one that shares it
  double block_fixed;        ///< a block's fixed cost (its pipeline's start, its epilogue) where
                             ///< other blocks share its SM and hide part of it
  double block_fixed_alone;  ///< the same in a kernel of one block an SM, where nothing hides it
  double split_adds;         ///< a split block's atomic adds of its tile, in one SM's time
  bool last_round_whole;     ///< blocks past the first rounds take a whole round (step 1)
};
/// Step 1's kernel (tensor_core_gemm_tf32), always two blocks an SM.
inline constexpr SplitCosts kStep1SplitCosts{0.6, 2.0, 6.0, 2.0, true};
/// Step 2's kernel (tensor_core_gemm), and steps 5 and 6's (wgmma_gemm), either tile; one block an
/// SM is the wide tile of two warpgroups on a layer of few tiles (wgmma_blocks_per_sm).
inline constexpr SplitCosts kSplitCosts{0.6, 2.0, 6.0, 0.5, false};

/// The modelled time of a kernel of `tiles` block tiles of `slices` slices each in `splits` splits,
/// `blocks_per_sm` blocks an SM on `sms` SMs (the model above), in slices.
inline double modelled_split_time(const SplitCosts& c, long long tiles, long long slices, long long splits,
                                  long long sms, long long blocks_per_sm) {
  const long long blocks = tiles * splits;
  const double per_block = static_cast<double>(slices) / static_cast<double>(splits);
  const double fixed = blocks_per_sm > 1 ? c.block_fixed : c.block_fixed_alone;
  double compute;
  if (blocks <= sms && blocks_per_sm > 1) {
    compute = c.lone_block_slice * per_block + fixed;
  } else {
    const double rounds = c.last_round_whole
                              ? static_cast<double>((blocks + sms * blocks_per_sm - 1) / (sms * blocks_per_sm))
                              : static_cast<double>((blocks + sms - 1) / sms) / static_cast<double>(blocks_per_sm);
    compute = rounds * (per_block + fixed);
  }
  const double adds = splits > 1 ? c.split_adds * static_cast<double>(blocks) / static_cast<double>(sms) : 0.0;
  return compute + adds;
}

/// The split of the least modelled_split_time among those that `allowed` (a predicate on the split
/// count) and that keep at least 8 slices in every part; the smallest of equals; none when the
/// tiles fill every slot, or when no split is allowed.
template <typename Allowed>
int fitted_split(const SplitCosts& c, long long tiles, long long slices, long long sms, long long blocks_per_sm,
                 Allowed allowed) {
  if (tiles >= sms * blocks_per_sm) return 1;
  const long long most = std::max(1LL, slices / 8);
  long long best = 0;
  double best_time = 0.0;
  for (long long split = 1; split <= most; ++split) {
    if (!allowed(split)) continue;
    const double t = modelled_split_time(c, tiles, slices, split, sms, blocks_per_sm);
    if (best == 0 || t < best_time) best = split, best_time = t;
  }
  return best == 0 ? 1 : static_cast<int>(best);
}

/// How many blocks share one output's reduction in step 2 (split-K, atomic adds into a zeroed Y):
/// fitted_split with kSplitCosts, two blocks an SM.
/// @param s the layer (validated by the caller)
/// @param bm the block tile's rows (block_m)
/// @param sms streaming multiprocessors of the GPU
inline int split_k(const ConvLayerShape& s, int bm, int sms) {
  const SplitWork w = split_work(s, bm, kBlockN);
  return fitted_split(kSplitCosts, w.tiles, w.slices, sms, kMinBlocks, [](long long) { return true; });
}

// ---- Step 1's feed: the layer reordered once per call (nhwc_tiles.cuh) ----
//
// Step 1 does not gather lab 06's unrolled matrix one float at a time. Before its kernel, two
// passes over the tensors put X in channels-last order, Xr [B][H][W][Cp], and W in tap-major
// order, Wr [M][K·K·Cp], both rounded to TF32 once, with the channels padded by zeros to Cp, a
// multiple of 4. Reduction index k' = (p·K + q)·Cp + c: four consecutive k' are four channels of
// one tap, 16 contiguous bytes of Xr (one position) and of Wr (one filter), so each is one
// 16-byte cp.async into a K-major tile, As[m][k'] and Bs[n][k'], the layout `mma.sync ...
// .row.col` names. What it removes: the 4-byte gathers of lab 06's loader (16 per MMA on the
// bench's largest layer) and the conversion of every fragment value at every k-step.

/// Floats of one chunk: a cp.async of 16 bytes, four consecutive k' of one tap.
inline constexpr int kChunkFloats = 4;
/// Step 1's slice depth: 4 k-steps of the MMA per barrier, twice kSliceDepth.
inline constexpr int kNhwcSliceDepth = 32;
/// The K-major tiles' row pitch in floats: the slice plus 4, so that the pitch is 4 (mod 32)
/// and a warp's fragment load (rows base + g, columns kk + t) touches 32 different banks, and a
/// row stays a whole number of 16-byte chunks.
inline constexpr int kNhwcPitch = kNhwcSliceDepth + 4;
static_assert(kNhwcPitch % 32 == 4 && kNhwcPitch % kChunkFloats == 0, "conflict-free fragments, aligned chunks");

/// Channels of Xr and Wr: C rounded up to a whole chunk.
CONVLAB_HOST_DEVICE constexpr int padded_channels(int channels) {
  return (channels + kChunkFloats - 1) / kChunkFloats * kChunkFloats;
}
/// Step 1's reduction length, K·K·Cp (Cp − C zero terms per tap).
constexpr long long nhwc_reduction(const ConvLayerShape& s) {
  return static_cast<long long>(s.mask_width) * s.mask_width * padded_channels(s.channels);
}
/// Dynamic shared memory of a step 1 block: kStages slices of As [BM][kNhwcPitch] and
/// Bs [kBlockN][kNhwcPitch]; two blocks of BM = 128 take 221 KB of an SM's 228.
constexpr int nhwc_shared_bytes(int bm) { return kStages * (bm + kBlockN) * kNhwcPitch * 4; }
static_assert(kMinBlocks * (nhwc_shared_bytes(128) + 1024) <= 233'472, "two blocks an H100 or H200 SM");

/// Step 1's split-K: fitted_split with kStep1SplitCosts over its slices, nhwc_reduction(s) deep
/// in kNhwcSliceDepth.
inline int nhwc_split_k(const ConvLayerShape& s, int bm, int sms) {
  SplitWork w = split_work(s, bm, kBlockN);
  w.slices = (nhwc_reduction(s) + kNhwcSliceDepth - 1) / kNhwcSliceDepth;
  return fitted_split(kStep1SplitCosts, w.tiles, w.slices, sms, kMinBlocks, [](long long) { return true; });
}

// ---- Step 1's feed on compute capability 9.0 and later: TMA (tma_feed.cuh) ----
//
// On Hopper the copies of a slice need not be every thread's work: the Tensor Memory Accelerator
// copies a whole tile on one thread's request, A (128 filters × 32 k' of Wr) as a 2D box and B
// (128 output positions × 32 channels of one tap) in its im2col mode, which walks the positions of
// the batch with the tap's offset and fills the convolution's padding with zeros; each writes
// 128-byte rows in the 128-byte swizzle (SwizzledTile) and signals a barrier. Measured on an H200
// (results/bench/nvidia-h200/lab08.md): the cp.async copies cost step 1's kernel 28 % of its time
// on B8 C128→128 128×128, and the TMA feed took it from 0.250 to 0.184 ms, B32 C256→256 14×14
// from 0.071 to 0.055.

/// Whether step 1 takes the TMA feed on a GPU that has it (compute capability 9.0 and later):
/// 128-row tiles (block_m: more than 64 filters; the 64-row cp.async kernel was faster on 64
/// filters), whole slices of one tap (Cp a multiple of kNhwcSliceDepth: the im2col box's channels
/// are one position's), stride 1 (the walk steps one position at a time), and the padding within
/// what a 4D im2col map's corners hold (signed 8-bit offsets: P ≤ 127, P − (K − 1)·D ≥ −128).
constexpr bool step1_tma_fits(const ConvLayerShape& s) {
  const int reach = (s.mask_width - 1) * s.dilation;
  return block_m(Precision::tf32, s.filters) == 128 && padded_channels(s.channels) % kNhwcSliceDepth == 0 &&
         s.stride == 1 && s.padding <= 127 && s.padding - reach >= -128;
}
/// Rows of a TMA-fed tile: 128 filters of A, kBlockN positions of B.
inline constexpr int kTmaBlockM = 128;
/// Bytes one stage's two TMA copies write: two tiles of 128-byte rows.
inline constexpr int kTmaStageBytes = (kTmaBlockM + kBlockN) * kNhwcSliceDepth * 4;
/// Step 1's kernel on the TMA feed, two blocks an SM: fitted (a grid search, as kStep1SplitCosts
/// was) to that kernel's times at every split on the 14 layers of the step 1 survey's `fit` set
/// that take the TMA feed (results/bench/nvidia-h200/lab08_step1_tma_splits.csv), the 15 of its
/// `check` set left out of the search. Its slices cost less than the cp.async kernel's, and a last
/// round of fewer blocks than slots no longer costs a whole round: on B32 C256→256 14×14 its
/// fastest split is 4 (392 blocks on 264 slots), where the cp.async kernel's is 5.
inline constexpr SplitCosts kStep1TmaSplitCosts{0.5, 2.0, 6.0, 1.5, false};

/// Step 1's split-K on the TMA feed: fitted_split with kStep1TmaSplitCosts over its 128-row tiles.
inline int tma_split_k(const ConvLayerShape& s, int sms) {
  SplitWork w = split_work(s, kTmaBlockM, kBlockN);
  w.slices = (nhwc_reduction(s) + kNhwcSliceDepth - 1) / kNhwcSliceDepth;
  return fitted_split(kStep1TmaSplitCosts, w.tiles, w.slices, sms, kMinBlocks, [](long long) { return true; });
}

/// Dynamic shared memory of a TMA-fed block: kStages stages, 1024-byte aligned (the swizzle's
/// period) inside the allocation.
inline constexpr int tma_shared_bytes() { return kStages * kTmaStageBytes + 1024; }
static_assert(kMinBlocks * (tma_shared_bytes() + 1024 + 64) <= 233'472, "two TMA-fed blocks an H100 or H200 SM");

// ---- Step 3: one image, a large mask, as banded GEMMs (banded_conv2d.cuh) ----
//
// For mask row i, the outputs of one image row are a 1D convolution of input row y + i − r:
// an 8-column MMA tile of outputs reads K + 7 inputs, so B (8 k × 8 outputs) is a band of a
// Toeplitz matrix, B_s[k][n] = mask[i][8s + k − n], spread over band_steps(K) k-steps of which
// a K-wide band is useful. A's 16 rows are 16 output rows of one phase: a warp's 32 rows are two
// phases, its even and its odd rows, and at input offset j both multiply the same A (the input
// tile's rows 2m + j): phase 0 by mask row j, phase 1 by mask row j − 1.

/// The smallest mask step 3 takes: below it the band wastes more than half of every MMA and
/// labs 05 and 07 are faster on CUDA cores.
inline constexpr int kBandMinMask = 9;
/// A warp's output rows come as kBandPhases interleaved 16-row MMA tiles: phase d holds rows
/// 2m + d (m < 16) of the warp's 32.
inline constexpr int kBandPhases = 2;
/// A warp's tile of P: kBandPhases × 16 rows down, kBandWarpTiles 8-column MMA tiles across.
inline constexpr int kBandWarpTiles = 4;
/// 8 warps as 2 (rows) × 4 (columns).
inline constexpr int kBandWarpsY = 2;
inline constexpr int kBandWarpsX = 4;  ///< warps across a block's tile
inline constexpr int kBandThreads = 32 * kBandWarpsY * kBandWarpsX;                 ///< threads per block
inline constexpr int kBandTileRows = kBandWarpsY * kBandPhases * kMmaM;            ///< a block's output rows
inline constexpr int kBandTileCols = kBandWarpsX * kBandWarpTiles * kMmaN;         ///< and columns

/// k-steps of one mask row's band: ⌈(K + 7) / 8⌉.
CONVLAB_HOST_DEVICE constexpr int band_steps(int k) { return (k + kMmaN - 1 + kMmaK - 1) / kMmaK; }
/// Whether the band's last k-step needs only its first 4 k: an 8-column tile reads K + 7 input
/// columns, so the last k-step's k ≥ 4 are all zero where K + 7 ≤ 8·(S − 1) + 4, K = 10 to 13.
/// Its MMAs then run at half the depth (m16n8k4 in TF32, m16n8k8 in BF16).
CONVLAB_HOST_DEVICE constexpr bool band_last_step_half(int k) {
  return k + kMmaN - 1 <= kMmaK * (band_steps(k) - 1) + kMmaK / 2;
}
/// The band's depth as the kernel multiplies it: 8·S products a mask row and output, less 4
/// where the last k-step is half (band_last_step_half).
CONVLAB_HOST_DEVICE constexpr int band_depth(int k) {
  return kMmaK * band_steps(k) - (band_last_step_half(k) ? kMmaK / 2 : 0);
}
/// The useful fraction of the band's MMAs: K of every band_depth(K) products are the mask's
/// (13/20 at K = 13, where whole k-steps would make it 13/24: band_whole_steps_fraction).
constexpr double band_useful_fraction(int k) { return static_cast<double>(k) / band_depth(k); }
/// The useful fraction of a band of whole k-steps, K / (8·S): the layout before the half step.
constexpr double band_whole_steps_fraction(int k) { return static_cast<double>(k) / (kMmaK * band_steps(k)); }
/// Columns of a block's input tile: a warp's last MMA tile reads 8·(S − 1) columns past its own.
CONVLAB_HOST_DEVICE constexpr int band_tile_cols(int steps) { return kBandTileCols + kMmaK * (steps - 1); }
/// The tile's row pitch in floats: its columns plus 4, 4 past a multiple of 8 (mod 32), so that
/// the eight 16-byte rows of an ldmatrix matrix (ldmatrix.cuh) fall on 32 different banks.
CONVLAB_HOST_DEVICE constexpr int band_tile_pitch(int steps) { return band_tile_cols(steps) + 4; }
/// Floats per load of the input tile (4, 2 or 1: one load of 16, 8 or 4 bytes): the widest that
/// divides both the mask's radius r = (K − 1)/2 and the image's width. A load then starts at a
/// column x0 − r + c·F (x0 a multiple of kBandTileCols) that is a multiple of F, and so does the
/// image's last column + 1: every load lies wholly inside the image or wholly in its zero
/// padding, and its global address is aligned to its size. Fewer, wider loads: the tile's copy
/// was a third of the kernel's instructions at one float each (results/bench/nvidia-h200/lab08.md).
CONVLAB_HOST_DEVICE constexpr int band_copy_floats(int k, int width) {
  const int r = (k - 1) / 2;
  return r % 4 == 0 && width % 4 == 0 ? 4 : r % 2 == 0 && width % 2 == 0 ? 2 : 1;
}
static_assert(kBandTileCols % 4 == 0, "x0 a multiple of every load width");
/// A lane's B fragment at k-step s depends on (s, g, t) only through j0 = 8s + t − g (B_s is
/// Toeplitz: band entries j0 and j0 + 4), so each mask row keeps one fragment per j0, from −7
/// (s = 0, t = 0, g = 7) to 8(S − 1) + 3: 8S + 3 of them where a fragment per lane and k-step
/// takes 32·S.
CONVLAB_HOST_DEVICE constexpr int band_fragment_span(int steps) { return kMmaK * steps + 3; }
/// The band fragments of mask width k: K·(8S + 3) of 4 registers, made once per call by their own
/// kernel and copied by every block into its shared memory.
CONVLAB_HOST_DEVICE constexpr int band_fragment_count(int k) { return k * band_fragment_span(band_steps(k)); }
/// Shared memory the band fragments of mask width k take in each block, 16 bytes each.
constexpr int band_fragment_bytes(int k) { return band_fragment_count(k) * 16; }
/// Dynamic shared memory of a step 3 block for mask width k: the input tile, (kBandTileRows + K − 1)
/// rows, twice (its big and its small TF32 parts, split once as the tile is loaded), and the band
/// fragments.
constexpr int band_shared_bytes(int k) {
  return 2 * (kBandTileRows + k - 1) * band_tile_pitch(band_steps(k)) * 4 + band_fragment_bytes(k);
}
static_assert(band_tile_pitch(2) % 32 == 12 && band_tile_pitch(3) % 32 == 20, "ldmatrix rows on 32 banks");

// ---- Step 3 on 2 × 4 output patches (patch_conv2d.cuh), the layout it runs from K = kPatchMinMask ----
//
// An MMA's 8 columns need not be 8 outputs of one row. As a patch of 2 rows × 4 columns
// (n = 4·oy + ox), its k-step is a row pair × 4 columns of input (k = 4·ky + kx: rows 2p + ky,
// columns 4c + kx of the patch's window), and B[k][n] = mask[2p + ky − oy][4c + kx − ox]. The
// window of a patch is (K + 1) × (K + 3): patch_pairs(K) row pairs × patch_groups(K) column
// groups, P·C k-steps for K rows' work where the row band takes K·band_depth(K)/8 — 28 against
// 32.5 at K = 13 — and each MMA then does more of the mask's work (patch_useful_fraction). A's 16
// rows are 16 patches down a 4-column strip; a warp's two phases are its even and its odd patch
// rows, so that at row-pair offset j both read the same input rows (phase 0 at pair j, phase 1 at
// pair j − 1), as the row band's phases do.

/// The smallest mask step 3 runs on patches; below it the row band (measured on an H200:
/// results/bench/nvidia-h200/lab08.md).
inline constexpr int kPatchMinMask = 10;
inline constexpr int kPatchWarpStrips = 4;  ///< 4-column MMA tiles (strips) across a warp
inline constexpr int kPatchWarps = 8;       ///< warps across a block, one down
inline constexpr int kPatchThreads = 32 * kPatchWarps;  ///< threads per block
inline constexpr int kPatchTileRows = kBandPhases * kMmaM * 2;                 ///< a block's output rows: 16 patches of 2 rows, 2 phases
inline constexpr int kPatchTileCols = kPatchWarps * kPatchWarpStrips * 4;      ///< and columns
static_assert(kPatchTileRows == kBandTileRows && kPatchTileCols == kBandTileCols, "the row band's blocks: the same grid");

/// Row pairs of a patch's window, ⌈(K + 1)/2⌉: mask rows 2p + ky − oy cover 0 .. K − 1.
CONVLAB_HOST_DEVICE constexpr int patch_pairs(int k) { return (k + 2) / 2; }
/// 4-column groups of a patch's window, ⌈(K + 3)/4⌉: mask columns 4c + kx − ox cover 0 .. K − 1.
CONVLAB_HOST_DEVICE constexpr int patch_groups(int k) { return (k + 6) / 4; }
/// The useful fraction of a patch's MMAs: 8 outputs × K² of every 64·P·C products (K = 13:
/// 169/224, where the row band's is 13/20).
constexpr double patch_useful_fraction(int k) {
  return static_cast<double>(k) * k / (kMmaK * patch_pairs(k) * patch_groups(k));
}
/// Rows of a block's input tile: phase 1 at pair P reads tile rows up to 4·15 + 2 + 2(P − 1) + 1.
CONVLAB_HOST_DEVICE constexpr int patch_tile_rows(int k) { return kPatchTileRows - 2 + 2 * patch_pairs(k); }
/// Its columns: a warp's last strip's window ends 4·(C − 1) columns past the block's own.
CONVLAB_HOST_DEVICE constexpr int patch_tile_cols(int groups) { return kPatchTileCols + 4 * (groups - 1); }
/// The row pitch in floats: at least the columns, 4 past a multiple of 8 (ldmatrix rows on 32 banks).
CONVLAB_HOST_DEVICE constexpr int patch_tile_pitch(int groups) {
  return patch_tile_cols(groups) + (12 - patch_tile_cols(groups) % 8) % 8;
}
/// The tile's rows are kept by their remainder mod 4 (rows 4m + q, m = 0, 1, … consecutive), so
/// that the 16 rows 4m + 2j + ky of an A fragment are 16 consecutive shared rows: ⌈rows/4⌉ each.
CONVLAB_HOST_DEVICE constexpr int patch_quarter_rows(int k) { return (patch_tile_rows(k) + 3) / 4; }
/// Width of the mask's fragment table: columns j = −3 .. 4C − 1 (j = 4c + t − ox).
CONVLAB_HOST_DEVICE constexpr int patch_table_width(int groups) { return 4 * groups + 3; }
/// Entries of the table, rows i = −1 .. 2P − 2 (i = 2p − oy), 16 bytes each: {w_big(i, j),
/// w_big(i + 1, j), w_small(i, j), w_small(i + 1, j)}.
CONVLAB_HOST_DEVICE constexpr int patch_table_count(int k) {
  return 2 * patch_pairs(k) * patch_table_width(patch_groups(k));
}
/// Dynamic shared memory of a block: the input tile's big and small parts, 4 quarters each, and the table.
constexpr int patch_shared_bytes(int k) {
  return 2 * 4 * patch_quarter_rows(k) * patch_tile_pitch(patch_groups(k)) * 4 + patch_table_count(k) * 16;
}
static_assert(patch_tile_pitch(3) % 8 == 4 && patch_tile_pitch(4) % 8 == 4 && patch_tile_pitch(5) % 8 == 4,
              "ldmatrix rows on 32 banks");
static_assert(kMinBlocks * (patch_shared_bytes(kMaxMaskWidth) + 1024) <= 233'472, "two blocks an H100 or H200 SM");

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
/// least half the tile's columns, and 4 (mod 8), so that the eight rows of an ldmatrix matrix fall
/// on 32 different banks.
CONVLAB_HOST_DEVICE constexpr int band_pair_pitch(int steps) {
  return band_tile_cols(steps) / 2 + (12 - band_tile_cols(steps) / 2 % 8) % 8;
}
/// Dynamic shared memory of a step 4 block for mask width k: the input tile's big TF32 parts (as
/// step 3), its small parts in BF16, two to a word, and the band fragments.
constexpr int band_mixed_shared_bytes(int k) {
  return (kBandTileRows + k - 1) * (band_tile_pitch(band_steps(k)) + band_pair_pitch(band_steps(k))) * 4 +
         band_fragment_bytes(k);
}
static_assert(band_pair_pitch(2) % 8 == 4 && band_pair_pitch(3) % 8 == 4, "ldmatrix rows on 32 banks");
/// Two blocks of either step fit an SM of compute capability 9.0 (228 KB, 1 KB reserved a block)
/// at the widest mask: the kernels are compiled for kMinBlocks of them.
static_assert(kMinBlocks * (band_shared_bytes(kMaxMaskWidth) + 1024) <= 233'472 &&
                  kMinBlocks * (band_mixed_shared_bytes(kMaxMaskWidth) + 1024) <= 233'472,
              "two blocks an H100 or H200 SM");

// ---- Step 5: step 2 on Hopper's wgmma (wgmma_gemm.cuh, wgmma_tf32.cuh) ----
//
// `wgmma.mma_async.m64nNk8.f32.tf32.tf32`: a warpgroup (4 warps, 128 threads) multiplies a
// 64×8 tile of A, from its registers, by an 8×N tile of B, read from shared memory through a
// descriptor, into N/2 float32 accumulators a thread. A block of W warpgroups (W from
// wgmma_warpgroups) owns a (64·W) × N tile of Y; each slice of the reduction is DEPTH/8 k8-steps
// of three wgmmas (x_small·w_big, x_big·w_small, x_big·w_big), all chained on the tensor cores
// into the accumulators over the block's whole share of the reduction: no float32 addition per
// slice, an error bound that grows with the terms a block sums (wgmma_chain_error_units), which
// the launcher checks against the FP32 rule before it runs step 5 (else step 2's kernel runs).
// Two block tiles (WgmmaTile): the wide one for layers of many tiles, the narrow one for layers
// whose wide tiles are too few to give every SM two blocks (wgmma_plan picks).

inline constexpr int kWgmmaM = 64;  ///< rows of A and D one warpgroup multiplies: 16 per warp
inline constexpr int kWgmmaK = 8;   ///< the wgmma's reduction depth (.tf32)
inline constexpr int kWarpgroupThreads = 128;  ///< 4 consecutive warps, warp 4i's the first

/// A block tile of steps 5 and 6, the kernel's template parameter (wgmma_gemm.cuh): N columns of Y (the
/// wgmma is m64nNk8), slices DEPTH deep (DEPTH/8 k8-steps), STAGES raw slices in flight.
template <int N_, int DEPTH_, int STAGES_>
struct WgmmaTile {
  static constexpr int N = N_;            ///< columns of B and D: the block tile's columns
  static constexpr int DEPTH = DEPTH_;    ///< a slice's depth: k of one raw slice and of its planes
  static constexpr int STAGES = STAGES_;  ///< raw slices in flight (cp.async)
  /// Accumulators a thread holds for one m64nN tile: 64·N / 128 threads.
  static constexpr int ACCUMULATORS = kWgmmaM * N / kWarpgroupThreads;
  /// Floats of one plane: one k8-step of B (8 × N), big or small parts, in the wgmma's K-major
  /// core-matrix layout (wgmma_tf32.cuh draws it).
  static constexpr int PLANE_FLOATS = kWgmmaK * N;
  /// Planes of a block: 2 buffers (one multiplied while the next slice is split into the other)
  /// × 2 parts (big, small) × the k8-steps of a slice.
  static constexpr int PLANES = 2 * 2 * (DEPTH / kWgmmaK);
  static_assert(N % 64 == 0 && N <= 128, "m64n64k8 or m64n128k8");
  static_assert(DEPTH % 16 == 0, "whole pairs of k8-steps: a thread splits 4 consecutive k of a column");
};
/// The wide tile: 128 columns, 16 deep, 3 stages; 64 accumulators a thread. Layers of many tiles.
using WgmmaWide = WgmmaTile<128, 16, 3>;
/// The narrow tile: 64 columns, 32 deep (one tap of 32 channels), 2 stages; 32 accumulators a
/// thread. Twice the tiles of the wide one for a layer too small to fill the GPU with those, and
/// half the barriers and waits per wgmma: B32 C256→256 14×14 took 0.119–0.121 ms in five bench
/// runs where the wide tile took 0.137 (H200, 2026-11-29, results/bench/nvidia-h200/lab08.md).
using WgmmaNarrow = WgmmaTile<64, 32, 2>;

/// Warpgroups of a block on a layer of `filters` output channels: 2 (a 128-row tile) when it has
/// more than 64, else 1 (a second warpgroup would multiply padding): the configuration measured on
/// an H200 (labs/08-tensor-cores/README.md, step 5).
CONVLAB_HOST_DEVICE constexpr int wgmma_warpgroups(int filters) { return filters > 64 ? 2 : 1; }
/// The block tile's rows: 64 per warpgroup.
CONVLAB_HOST_DEVICE constexpr int wgmma_block_m(int warpgroups) { return kWgmmaM * warpgroups; }
/// Blocks per SM of the wide tile (its kernel's __launch_bounds__). One warpgroup: 3, which holds
/// a thread to 170 registers; ptxas then fits the slice gather's kernel in 159 with no spill
/// (group-tap: 166), where at 2 it took 183 and so fitted only two blocks an SM: B16 C3→64
/// 224×224 K7 S2 took 0.108–0.109 ms at 3 against 0.128–0.129 at 2 (H200, same runs,
/// 2026-11-30); three blocks' shared memory fits (wgmma_fits_sm). Two warpgroups: 2, whose
/// registers fit a thread's 64 accumulators at 128 registers, except a layer of tiles too few to
/// give every SM two (`tiles` < 2·`sms`), which runs 1 block per SM, split-K: B32 C256→256 14×14's
/// 98 tiles took 0.137 ms at 1 block per SM in 4 splits and 0.151 at 2 in 8 (H200, 2026-11-29).
/// Such a layer takes the narrow tile instead where its channels allow (wgmma_plan).
CONVLAB_HOST_DEVICE constexpr int wgmma_blocks_per_sm(int warpgroups, long long tiles, int sms) {
  if (warpgroups == 1) return 3;
  return tiles >= 2LL * sms ? 2 : 1;
}
/// Padding of a group-tap A row in shared memory, As[m][DEPTH + kGroupTapPad]: rows of 80 (DEPTH
/// 16) or 144 bytes (32) start 16-byte aligned (16-byte copies), and a warp's fragment reads (8
/// rows × 4 k) fall in 32 different banks (row r starts at bank 20·r or 4·r mod 32).
inline constexpr int kGroupTapPad = 4;
/// Floats of one raw A slice `depth` deep: As [BM][depth + kGroupTapPad] for the group-tap loader
/// (the weights pre-ordered, each filter's `depth` of a slice contiguous), As [depth][BM + kPad]
/// (steps 1 and 2's transposed layout) for the slice loader.
CONVLAB_HOST_DEVICE constexpr int wgmma_a_slice_floats(int depth, int warpgroups, bool group_tap) {
  return group_tap ? wgmma_block_m(warpgroups) * (depth + kGroupTapPad) : depth * (wgmma_block_m(warpgroups) + kPad);
}
/// Dynamic shared memory of a block of tile `Tile`: its planes and STAGES raw slices of A
/// (wgmma_a_slice_floats) and of Bs [DEPTH][N + kPad] (steps 1 and 2's layout).
template <typename Tile>
CONVLAB_HOST_DEVICE constexpr int wgmma_shared_bytes(int warpgroups, bool group_tap) {
  return (Tile::PLANES * Tile::PLANE_FLOATS +
          Tile::STAGES * (wgmma_a_slice_floats(Tile::DEPTH, warpgroups, group_tap) + Tile::DEPTH * (Tile::N + kPad))) *
         4;
}
/// Shared memory of an SM of compute capability 9.0 that its blocks can have: 228 KB.
inline constexpr int kWgmmaSmBytes = 228 * 1024;
/// Of that, what the driver keeps for each block: 1 KB.
inline constexpr int kWgmmaBlockReservedBytes = 1024;
/// Whether `blocks` blocks of `bytes` of dynamic shared memory each fit an SM of compute capability
/// 9.0 (steps 5 to 7).
CONVLAB_HOST_DEVICE constexpr bool wgmma_fits_sm_bytes(int bytes, int blocks) {
  return blocks * (bytes + kWgmmaBlockReservedBytes) <= kWgmmaSmBytes;
}
/// Whether `blocks` blocks of tile `Tile` and `warpgroups` warpgroups (with the group-tap gather's
/// A slices or not) fit one SM's shared memory: every configuration of step 5 is asserted to fit
/// the blocks per SM it is compiled for.
template <typename Tile>
constexpr bool wgmma_fits_sm(int warpgroups, bool group_tap, int blocks) {
  return wgmma_fits_sm_bytes(wgmma_shared_bytes<Tile>(warpgroups, group_tap), blocks);
}
static_assert(wgmma_fits_sm<WgmmaWide>(1, false, wgmma_blocks_per_sm(1, 0, 1)) &&
                  wgmma_fits_sm<WgmmaWide>(1, true, wgmma_blocks_per_sm(1, 0, 1)),
              "the one-warpgroup blocks wgmma_blocks_per_sm asks for fit an SM's shared memory");
static_assert(wgmma_fits_sm<WgmmaWide>(2, false, 2) && wgmma_fits_sm<WgmmaWide>(2, true, 2) &&
                  wgmma_fits_sm<WgmmaNarrow>(2, true, 2),
              "two two-warpgroup blocks fit an SM's shared memory");

/// Whether step 5 gathers `depth`-deep slices as one tap of `depth` channels (tiles::GroupTapLoader:
/// the reduction ordered channel group × tap, a bounds test per column and tap instead of per
/// element, and the weights reordered once per call so that a slice's are contiguous), which needs
/// whole groups of `depth` channels; otherwise as steps 1 and 2 do (tiles::SliceLoader).
CONVLAB_HOST_DEVICE constexpr bool wgmma_group_tap(int channels, int depth = WgmmaWide::DEPTH) {
  return channels % depth == 0;
}

/// How a block's chain falls out of a reduction of `kdim` terms in `splits` parts of `depth`-deep
/// slices, as launch_split_k divides them.
struct WgmmaChain {
  long long per_block;  ///< slices a block sums: the length of its chain
  long long parts;      ///< blocks that share an output (empty parts dropped), each an atomic add
};
/// The chain of wgmma_chain_error_units and wgmma_mixed_chain_error_units.
CONVLAB_HOST_DEVICE constexpr WgmmaChain wgmma_chain(long long kdim, int splits, int depth) {
  const long long slices = (kdim + depth - 1) / depth;
  const long long per_block = (slices + splits - 1) / splits;
  return {per_block, (slices + per_block - 1) / per_block};
}

/// Step 5's error bound, in units of 2^-24·S (docs/design.md, Tolerance), for a reduction of
/// `kdim` terms summed in `splits` parts of `depth`-deep slices: 20 a product from the split (as
/// step 2), 2 for each of the 3 truncating wgmma additions of every k8-step a block sums (12 a
/// 16-deep slice), each off by at most 2^-23 of the block's partial sum, and 1 for each part's
/// float32 atomic addition into Y.
CONVLAB_HOST_DEVICE constexpr long long wgmma_chain_error_units(long long kdim, int splits,
                                                                int depth = WgmmaWide::DEPTH) {
  const WgmmaChain c = wgmma_chain(kdim, splits, depth);
  return 20 + 6 * (depth / kWgmmaK) * c.per_block + c.parts;
}
/// Whether step 5's chained sums keep the FP32 rule, n·2^-24·S with n = kdim: in one part of
/// 16-deep slices from n = 93 (6 slices: 20 + 72 + 1 = 93), not at 92; B32 C256→256 14×14,
/// n = 2304 in 2 parts of 36 slices 32 deep: 20 + 864 + 2 = 886 units.
CONVLAB_HOST_DEVICE constexpr bool wgmma_chain_fits(long long kdim, int splits, int depth = WgmmaWide::DEPTH) {
  return wgmma_chain_error_units(kdim, splits, depth) <= kdim;
}

/// Step 6's error bound, in units of 2^-24·S (docs/design.md, Tolerance): step 5's chain with step
/// 4's products. 132 a product (its two small products in BF16, and the dropped small·small, as
/// step 4's), 2 for each of the 2 truncating wgmma additions of every k8-step a block sums (8 a
/// 16-deep slice), and 1 for each part's float32 atomic addition into Y.
CONVLAB_HOST_DEVICE constexpr long long wgmma_mixed_chain_error_units(long long kdim, int splits,
                                                                      int depth = WgmmaWide::DEPTH) {
  const WgmmaChain c = wgmma_chain(kdim, splits, depth);
  return 132 + 4 * (depth / kWgmmaK) * c.per_block + c.parts;
}
/// Whether step 6's chained sums keep the FP32 rule: in one part of 16-deep slices from n = 269
/// (17 slices: 132 + 136 + 1 = 269), not at 268; B32 C256→256 14×14, n = 2304 in 2 parts of 36
/// slices 32 deep: 132 + 576 + 2 = 710 units; B16 C3→64 224×224 K7, n = 147: 213, over the rule.
CONVLAB_HOST_DEVICE constexpr bool wgmma_mixed_chain_fits(long long kdim, int splits, int depth = WgmmaWide::DEPTH) {
  return wgmma_mixed_chain_error_units(kdim, splits, depth) <= kdim;
}

/// How steps 5 and 6 run a layer: one source for the launchers and the analysis model.
struct WgmmaPlan {
  bool narrow;        ///< WgmmaNarrow's tile, else WgmmaWide's
  int n;              ///< the tile's columns (Tile::N)
  int depth;          ///< its slices' depth (Tile::DEPTH)
  int warpgroups;     ///< wgmma_warpgroups of the layer's filters
  int blocks_per_sm;  ///< the occupancy the kernel is compiled for
  int splits;         ///< parts of each output's reduction (split-K, atomic adds into a zeroed Y)
  bool group_tap;     ///< the gather of wgmma_group_tap
  bool chain_fits;    ///< wgmma_chain_fits: else step 5's launcher runs step 2's kernel
  bool mixed_fits;    ///< wgmma_mixed_chain_fits (and chain_fits): else step 6's launcher runs step 5's
};
/// Step 5's plan for layer `s` on `sms` SMs, and step 6's (the same tiles and splits).
///   - The wide tile, with wgmma_blocks_per_sm, unless:
///   - two-warpgroup tiles too few for 2 blocks an SM (< 2·sms) on whole groups of 32 channels:
///     the narrow tile, 2 blocks an SM.
///   Either split as fitted_split picks with kSplitCosts, among the splits whose chain keeps
///   step 5's FP32 rule (wgmma_chain_fits). The rules before (the narrow tile's fewest splits that
///   fill every slot, the wide tile's count of work) ran 1.11–1.19× the best split's time on
///   layers of few tiles (results/bench/nvidia-h200/lab08_wgmma_splits.csv); B32 C256→256 14×14
///   keeps its 2 splits.
inline WgmmaPlan wgmma_plan(const ConvLayerShape& s, int sms) {
  WgmmaPlan p{};
  p.warpgroups = wgmma_warpgroups(s.filters);
  const int bm = wgmma_block_m(p.warpgroups);
  const SplitWork wide = split_work(s, bm, WgmmaWide::N, WgmmaWide::DEPTH);
  p.narrow = p.warpgroups == 2 && wide.tiles < 2LL * sms && wgmma_group_tap(s.channels, WgmmaNarrow::DEPTH);
  const long long kdim = static_cast<long long>(s.channels) * s.mask_width * s.mask_width;
  SplitWork w = wide;
  if (p.narrow) {
    w = split_work(s, bm, WgmmaNarrow::N, WgmmaNarrow::DEPTH);
    p.n = WgmmaNarrow::N, p.depth = WgmmaNarrow::DEPTH, p.blocks_per_sm = 2;
  } else {
    p.n = WgmmaWide::N, p.depth = WgmmaWide::DEPTH;
    p.blocks_per_sm = wgmma_blocks_per_sm(p.warpgroups, wide.tiles, sms);
  }
  const int depth = p.depth;
  p.splits = fitted_split(kSplitCosts, w.tiles, w.slices, sms, p.blocks_per_sm,
                          [&](long long split) { return wgmma_chain_fits(kdim, static_cast<int>(split), depth); });
  p.group_tap = wgmma_group_tap(s.channels, p.depth);
  p.chain_fits = wgmma_chain_fits(kdim, p.splits, p.depth);
  p.mixed_fits = p.chain_fits && wgmma_mixed_chain_fits(kdim, p.splits, p.depth);
  return p;
}

// ---- Step 7: step 1 on wgmma, both operands read by the tensor cores (tf32_wgmma_gemm.cuh) ----
//
// Step 1's passes and its loader's 16-byte chunks, copied by cp.async straight into the layout a
// wgmma reads from shared memory, for A as for B: no thread loads a fragment, and no thread
// converts anything (the passes rounded X and W to TF32 once). The layout is K-major with the
// 128-byte swizzle (wgmma_tf32.cuh draws it): a slice's row of one filter or one column is its 32
// k', 128 bytes, and chunk j of row r lies at chunk j ^ (r % 8), so that 8 rows' chunk j fall in 32
// different banks. Without the swizzle (the layout steps 5 and 6 use) the same kernel ran at 0.49
// ms on B8 C128→128 128×128, with it 0.19 (NVIDIA H200, results/bench/nvidia-h200/lab08.md).

/// A slice row of step 7's tiles is one 128-byte swizzle row: kNhwcSliceDepth floats.
inline constexpr int kSwizzleBytes = 128;
static_assert(kNhwcSliceDepth * 4 == kSwizzleBytes, "a K-major slice row is one 128-byte swizzled row");
/// Slices in flight in step 7's blocks (cp.async), the one multiplied included.
inline constexpr int kTf32WgmmaStages = 3;
/// Warpgroups of a step 7 block: step 1's block tile of rows (block_m), 64 per warpgroup.
constexpr int tf32_wgmma_warpgroups(int filters) { return block_m(Precision::tf32, filters) / kWgmmaM; }
/// Blocks per SM step 7's kernel is compiled for: 3 of one warpgroup (72 KB of shared memory each),
/// 2 of two (96 KB each).
CONVLAB_HOST_DEVICE constexpr int tf32_wgmma_blocks_per_sm(int warpgroups) { return warpgroups == 1 ? 3 : 2; }
/// Up to this many channels (Cp), step 7's copies go through L1 (cp.async.ca): a slice then holds
/// several taps of the same pixels, which L1 keeps between them (B16 C3→64 224×224 K7: 0.072 ms
/// through L1, 0.091 without); with more, a slice is one tap and L1 would hold its chunks in vain,
/// so they go to L2 only (cp.async.cg; B8 C128→128 128×128: 0.186 ms, 0.213 through L1; H200).
inline constexpr int kTf32WgmmaL1Channels = 16;
/// Whether step 7's copies of a layer of `padded` channels (padded_channels) go through L1.
CONVLAB_HOST_DEVICE constexpr bool tf32_wgmma_copies_through_l1(int padded) { return padded <= kTf32WgmmaL1Channels; }
/// Dynamic shared memory of a step 7 block: kTf32WgmmaStages slices of A (64·W rows) and B
/// (kBlockN columns), 128 bytes a row.
CONVLAB_HOST_DEVICE constexpr int tf32_wgmma_shared_bytes(int warpgroups) {
  return kTf32WgmmaStages * (wgmma_block_m(warpgroups) + kBlockN) * kSwizzleBytes;
}
static_assert(wgmma_fits_sm_bytes(tf32_wgmma_shared_bytes(1), tf32_wgmma_blocks_per_sm(1)) &&
                  wgmma_fits_sm_bytes(tf32_wgmma_shared_bytes(2), tf32_wgmma_blocks_per_sm(2)),
              "step 7's blocks fit an SM's shared memory");
/// Step 7's error bound, in units of 2^-24·S (docs/design.md, Tolerance): step 1's product (its two
/// roundings to TF32, 2·2^13 + 4), 2 for each truncating wgmma addition of the k8-steps a block
/// sums, and 1 for each part's float32 atomic addition into Y; `kp` is step 1's reduction
/// (nhwc_reduction), `splits` its split. Far inside the 1xTF32 rule, max(n, 3)·2^13.
constexpr long long tf32_wgmma_error_units(long long kp, int splits) {
  const WgmmaChain c = wgmma_chain(kp, splits, kNhwcSliceDepth);
  return 2 * (1 << 13) + 4 + 2 * (kNhwcSliceDepth / kWgmmaK) * c.per_block + c.parts;
}

/// The compute capability steps 5, 6 and 7 run on, as the lab registry names it (major·10 + minor).
inline constexpr int kWgmmaComputeCapability = 90;

/// `wgmma` exists on compute capability 9.0 only (H100, H200), and only in code compiled for
/// sm_90a (the architecture-specific target: its PTX runs on no later GPU). Why `step` (5, 6 or 7,
/// as the runner names it) cannot run on a GPU of compute capability major.minor, or "" when it can.
inline std::string wgmma_refusal(int major, int minor, const std::string& step = "lab08 step 5 (tf32x3_wgmma)") {
  if (10 * major + minor == kWgmmaComputeCapability) return "";
  return step + " needs Hopper's wgmma: a GPU of compute capability 9.0 (H100, H200) and code built for sm_90a; "
         "this GPU is " + std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace convlab::lab08
