/// @file analysis_banded.hpp
/// @brief The analysis model of lab 08 steps 3 and 4 (solutions/08-tensor-cores/banded_conv2d.cuh):
///        one image and a K × K mask as banded GEMMs on tensor cores, 3xTF32 (step 3) or with the
///        two small products in one BF16 MMA (step 4). What they issue (MMAs, loads), how much of
///        each MMA is the mask's (the useful fraction), their bounds against the measured
///        ceilings and their worst-case errors against the FP32 rule (docs/design.md, Tolerance).
///
/// ## The step, as written
/// Blocks of kBandTileRows × kBandTileCols outputs (whole tiles, ragged edges included), 8 warps.
/// Step 3 runs one of two layouts (banded_conv2d.cu):
/// - from K = kPatchMinMask, 2 × 4 output patches (patch_conv2d.cuh): each warp owns the block's 64
///   rows × 16 columns, two phases of 16 patches down 4 strips of 4 columns; for each phase, strip
///   and row pair p < P = patch_pairs(K) it issues 3 m16n8k8 per column group c < C =
///   patch_groups(K), so 24·P·C MMAs a warp. Its input tile is patch_tile_rows(K) ×
///   patch_tile_cols(C).
/// - below it (K = 9), the row band (banded_conv2d.cuh): warps of 32 × 32 (two interleaved phases
///   of 16 rows, 4 tiles of 8 columns); for each of the K mask rows 3 MMAs per k-step, S =
///   band_steps(K) k-steps per 16 × 8 tile; for K = 10 to 13 (band_last_step_half) the last
///   k-step's 3 are m16n8k4, half the depth, which takes the tensor pipe about two thirds of an
///   m16n8k8's time (measured: convlab::Ceilings), so the MMA bound times each depth at its own
///   measured rate. Its input tile is (rows + K − 1) × band_tile_cols(S).
/// Each block reads its input tile once from global memory (zero outside the image: those are
/// not read), and writes its outputs inside the image. Step 4 runs the row band with 2 MMAs per
/// k-step: one TF32 m16n8k8 and one BF16 m16n8k16, which an H200 issues at about the same rate
/// (measured: 153-154 and 148-150 billion a second), so its MMA bound counts both at the TF32
/// instruction rate; at a half k-step, one TF32 m16n8k4 and one BF16 m16n8k8, both at the m16n8k4
/// rate (the same multiply-adds of BF16 and of TF32 per second: results/bench/nvidia-h200/lab08.md).
#pragma once

#include "convlab/analysis_tensor_cores.hpp"

namespace convlab::analysis {

/// Lab 08 step 3 on one image (and step 4, on the row band).
struct BandedAnalysis {
  int height = 0;      ///< H
  int width = 0;       ///< W
  int mask_width = 0;  ///< K
  bool patches = false;          ///< step 3 runs on 2 × 4 output patches (K ≥ kPatchMinMask), else on the row band
  int patch_pairs = 0;           ///< P = ⌈(K + 1)/2⌉ row pairs of a patch's window
  int patch_groups = 0;          ///< C = ⌈(K + 3)/4⌉ 4-column groups of it
  double patch_useful_fraction = 0;  ///< K²/(8·P·C): the mask's share of a patch's products
  long long row_band_mmas = 0;   ///< what the row band issues in 3xTF32 (step 3 below kPatchMinMask), both depths
  long long row_band_half_mmas = 0;  ///< of those, m16n8k4
  // The row band (step 4's layout; step 3's below kPatchMinMask):
  int band_steps = 0;            ///< S = ⌈(K + 7)/8⌉ k-steps per mask row and tile
  bool half_step = false;        ///< the last k-step at half depth (K = 10 to 13)
  int band_depth = 0;            ///< 8·S, less 4 with the half step: products per mask row and output
  double useful_fraction = 0;    ///< K / band_depth: the mask's share of the band's products
  double whole_steps_fraction = 0;  ///< K / (8·S): the same with whole k-steps (the plain band)
  // Step 3 as it runs (patches or the row band):
  long long blocks = 0;          ///< ⌈W/128⌉·⌈H/64⌉ (both layouts)
  long long mmas = 0;            ///< mma.sync instructions (warp-level) issued, both depths: what ncu counts
  long long half_mmas = 0;       ///< of those, m16n8k4 (the row band's half k-steps; none on patches)
  double mma_flops = 0;          ///< 2·16·8·8 per m16n8k8, half that per m16n8k4: the tensor cores' work, band and edges included
  long long useful_fmas = 0;     ///< H·W·K²
  long long tile_loads = 0;      ///< floats the blocks read from global memory (their tiles, inside the image)
  double compulsory_bytes = 0;   ///< N read once and P written once
  double error_bound_units = 0;  ///< worst-case |error| of one output in units of 2^-24·S
  double allowed_units = 0;      ///< what the FP32 rule allows: n = K²
  double fp32_ratio = 0;         ///< error_bound_units / allowed_units: ≤ 1 means FP32-accurate
  /// Step 4 (banded_tf32_bf16), which takes K ≥ kBandMixedMinMask: the same blocks and band.
  bool mixed_takes = false;            ///< K ≥ kBandMixedMinMask
  long long mixed_mmas = 0;            ///< its MMAs: half TF32 m16n8k8, half BF16 m16n8k16 (k4 and k8 at half steps)
  long long mixed_half_mmas = 0;       ///< of those, the half k-steps' (TF32 m16n8k4 and BF16 m16n8k8)
  double mixed_error_bound_units = 0;  ///< its worst-case |error| in units of 2^-24·S
  double mixed_fp32_ratio = 0;         ///< mixed_error_bound_units / allowed_units
};

/// Step 3 on an H × W image with a K × K mask.
/// @throws std::invalid_argument for a bad shape or K outside kBandMinMask..kMaxMaskWidth
BandedAnalysis analyze_lab08_banded(int height, int width, int mask_width);

/// The worst-case error of step 3's arithmetic on the row band, in units of 2^-24·S: 20 per
/// product for the parts the split (step 2's split_tf32) drops, 18 for the tensor cores'
/// truncating chains of 3·S ≤ 9 MMAs per mask row, K for the float32 additions of the K rows'
/// partial sums.
double banded_error_units(int mask_width);

/// The same on patches: 20 per product, 6·C for the chains of 3·C ≤ 15 MMAs per row pair (2 units
/// of the pair's share of S per MMA), P for the float32 additions of the P pairs' partial sums.
double patch_error_units(int mask_width);

/// The worst-case error of step 4's arithmetic, in units of 2^-24·S: 132 per product (4 for
/// x_small·w_small, which it drops, and 64 for each small product's two BF16 roundings of at most
/// 2^-8), 4·S for its chains of 2·S MMAs per mask row, K for the float32 additions.
double banded_mixed_error_units(int mask_width);

/// Step 3's bounds with these ceilings (a zero ceiling gives a zero bound): memory, the FP32 FMA
/// bound lab 07 is held to, and its own MMAs at the TF32 peaks, m16n8k8's and m16n8k4's (without
/// the latter, the half k-steps' flops at m16n8k8's rate: a lower bound still).
TensorCoreBounds banded_bounds(const BandedAnalysis& a, const TensorCoreCeilings& c);

/// Step 4's bounds: as step 3's, with its MMAs (mixed_mmas) at the TF32 instruction rates: a whole
/// k-step's at m16n8k8's, a half k-step's at m16n8k4's.
TensorCoreBounds banded_mixed_bounds(const BandedAnalysis& a, const TensorCoreCeilings& c);

}  // namespace convlab::analysis
