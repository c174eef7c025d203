/// @file analysis_banded.hpp
/// @brief The analysis model of lab 08 step 3 (solutions/08-tensor-cores/banded_conv2d.cuh): one
///        image and a K × K mask as banded GEMMs on tensor cores, 3xTF32. What it issues (MMAs,
///        loads), how much of each MMA is the mask's (the useful fraction), its bounds against
///        the measured ceilings and its worst-case error against the FP32 rule (docs/design.md,
///        Tolerance).
///
/// ## The step, as written
/// Blocks of kBandTileRows × kBandTileCols outputs (whole tiles, ragged edges included), 8 warps
/// of 16 × 64; for each of the K mask rows a warp issues 3 MMAs per k-step, S = band_steps(K)
/// k-steps per 8-column tile, 8 tiles. Each block reads its input tile, (rows + K − 1) ×
/// band_tile_cols(S), once from global memory (zero outside the image: those are not read), and
/// writes its outputs inside the image.
#pragma once

#include "convlab/analysis_tensor_cores.hpp"

namespace convlab::analysis {

/// Lab 08 step 3 on one image.
struct BandedAnalysis {
  int height = 0;      ///< H
  int width = 0;       ///< W
  int mask_width = 0;  ///< K
  int band_steps = 0;            ///< S = ⌈(K + 7)/8⌉ k-steps per mask row and tile
  double useful_fraction = 0;    ///< K / (8·S): the mask's share of every banded MMA
  long long blocks = 0;          ///< ⌈W/128⌉·⌈H/64⌉
  long long mmas = 0;            ///< mma.sync.m16n8k8 instructions (warp-level) issued
  double mma_flops = 0;          ///< 2·16·8·8 per MMA: the tensor cores' work, band and edges included
  long long useful_fmas = 0;     ///< H·W·K²
  long long tile_loads = 0;      ///< floats the blocks read from global memory (their tiles, inside the image)
  double compulsory_bytes = 0;   ///< N read once and P written once
  double error_bound_units = 0;  ///< worst-case |error| of one output in units of 2^-24·S
  double allowed_units = 0;      ///< what the FP32 rule allows: n = K²
  double fp32_ratio = 0;         ///< error_bound_units / allowed_units: ≤ 1 means FP32-accurate
};

/// Step 3 on an H × W image with a K × K mask.
/// @throws std::invalid_argument for a bad shape or K outside kBandMinMask..kMaxMaskWidth
BandedAnalysis analyze_lab08_banded(int height, int width, int mask_width);

/// The worst-case error of step 3's arithmetic, in units of 2^-24·S: 12 per product for the
/// parts the split drops, 18 for the tensor cores' truncating chains of 3·S ≤ 9 MMAs per mask
/// row, K for the float32 additions of the K rows' partial sums.
double banded_error_units(int mask_width);

/// Step 3's bounds with these ceilings (a zero ceiling gives a zero bound): memory, the FP32 FMA
/// bound lab 07 is held to, and its own MMAs at the TF32 peak.
TensorCoreBounds banded_bounds(const BandedAnalysis& a, const TensorCoreCeilings& c);

}  // namespace convlab::analysis
