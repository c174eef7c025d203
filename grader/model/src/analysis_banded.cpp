// Lab 08 steps 3 and 4's model, from the same configuration their kernel reads
// (convlab/lab08_config.hpp).
#include "convlab/analysis_banded.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "convlab/limits.hpp"

namespace convlab::analysis {
namespace {

constexpr double kMmaFlops = 2.0 * lab08::kMmaM * lab08::kMmaN * lab08::kMmaK;
constexpr double kHalfMmaFlops = kMmaFlops / 2;  // m16n8k4

// Seconds on the tensor pipe of `mmas` instructions, `half` of them at half depth: each depth at
// its measured rate, or (no k4 rate) the half ones' flops at the k8 rate.
double mma_seconds(long long mmas, long long half, const TensorCoreCeilings& c) {
  if (!(c.tf32_mma_flops_per_s > 0)) return 0.0;
  const double k4_rate = c.tf32_mma_k4_flops_per_s > 0 ? c.tf32_mma_k4_flops_per_s : c.tf32_mma_flops_per_s;
  return kMmaFlops * static_cast<double>(mmas - half) / c.tf32_mma_flops_per_s +
         kHalfMmaFlops * static_cast<double>(half) / k4_rate;
}

long long ceil_div_ll(long long a, long long b) { return (a + b - 1) / b; }

// Floats of [lo, lo + len) inside [0, size).
long long inside(long long lo, long long len, long long size) {
  return std::max(0LL, std::min(lo + len, size) - std::max(lo, 0LL));
}

}  // namespace

double banded_error_units(int mask_width) { return 20.0 + 18.0 + mask_width; }

double patch_error_units(int mask_width) {
  return 20.0 + 6.0 * lab08::patch_groups(mask_width) + lab08::patch_pairs(mask_width);
}

double banded_mixed_error_units(int mask_width) {
  return 132.0 + 4.0 * lab08::band_steps(mask_width) + mask_width;
}

BandedAnalysis analyze_lab08_banded(int height, int width, int mask_width) {
  if (height < 1 || width < 1) throw std::invalid_argument(fmt::format("analysis: a {}x{} image", height, width));
  if (mask_width < lab08::kBandMinMask || mask_width > kMaxMaskWidth) {
    throw std::invalid_argument(fmt::format("analysis: lab 08 step 3 takes masks of width {} to {}, not {}",
                                            lab08::kBandMinMask, kMaxMaskWidth, mask_width));
  }
  BandedAnalysis a;
  a.height = height;
  a.width = width;
  a.mask_width = mask_width;
  a.band_steps = lab08::band_steps(mask_width);
  a.half_step = lab08::band_last_step_half(mask_width);
  a.band_depth = lab08::band_depth(mask_width);
  a.useful_fraction = lab08::band_useful_fraction(mask_width);
  a.whole_steps_fraction = lab08::band_whole_steps_fraction(mask_width);
  a.patches = mask_width >= lab08::kPatchMinMask;
  a.patch_pairs = lab08::patch_pairs(mask_width);
  a.patch_groups = lab08::patch_groups(mask_width);
  a.patch_useful_fraction = lab08::patch_useful_fraction(mask_width);
  const long long rows = ceil_div_ll(height, lab08::kBandTileRows), cols = ceil_div_ll(width, lab08::kBandTileCols);
  a.blocks = rows * cols;
  constexpr long long kWarpTiles = lab08::kBandWarpsX * lab08::kBandWarpsY * lab08::kBandPhases * lab08::kBandWarpTiles;
  // The row band: (tile, mask row, k-step) triples of the whole grid, 3 MMAs each in step 3, 2 in
  // step 4; with the half step, those of each (tile, mask row)'s last k-step at half depth.
  const long long tile_rows = a.blocks * kWarpTiles * mask_width;
  const long long tile_steps = tile_rows * a.band_steps;
  a.row_band_mmas = 3 * tile_steps;
  a.row_band_half_mmas = a.half_step ? 3 * tile_rows : 0;
  a.mixed_mmas = 2 * tile_steps;
  a.mixed_half_mmas = a.half_step ? 2 * tile_rows : 0;
  // Patches: (warp, phase, strip, row pair, column group) of the whole grid, 3 MMAs each.
  constexpr long long kWarpStrips = lab08::kPatchWarps * lab08::kBandPhases * lab08::kPatchWarpStrips;
  const long long patch_mmas = 3 * a.blocks * kWarpStrips * a.patch_pairs * a.patch_groups;
  a.mmas = a.patches ? patch_mmas : a.row_band_mmas;
  a.half_mmas = a.patches ? 0 : a.row_band_half_mmas;
  a.mma_flops = kMmaFlops * static_cast<double>(a.mmas - a.half_mmas) + kHalfMmaFlops * static_cast<double>(a.half_mmas);
  const long long pixels = static_cast<long long>(height) * width;
  a.useful_fmas = pixels * mask_width * mask_width;
  // Each block's tile rows and columns inside the image (the rest are zeros, never read).
  const int r = (mask_width - 1) / 2;
  const long long in_rows = a.patches ? lab08::patch_tile_rows(mask_width) : lab08::kBandTileRows + mask_width - 1;
  const long long in_cols =
      a.patches ? lab08::patch_tile_cols(a.patch_groups) : lab08::band_tile_cols(a.band_steps);
  long long rows_in = 0, cols_in = 0;
  for (long long by = 0; by < rows; ++by) rows_in += inside(by * lab08::kBandTileRows - r, in_rows, height);
  for (long long bx = 0; bx < cols; ++bx) cols_in += inside(bx * lab08::kBandTileCols - r, in_cols, width);
  a.tile_loads = rows_in * cols_in;
  a.compulsory_bytes = kBytesPerFloat * 2.0 * static_cast<double>(pixels);
  a.error_bound_units = a.patches ? patch_error_units(mask_width) : banded_error_units(mask_width);
  a.allowed_units = static_cast<double>(mask_width) * mask_width;
  a.fp32_ratio = a.error_bound_units / a.allowed_units;
  a.mixed_takes = mask_width >= lab08::kBandMixedMinMask;
  a.mixed_error_bound_units = banded_mixed_error_units(mask_width);
  a.mixed_fp32_ratio = a.mixed_error_bound_units / a.allowed_units;
  return a;
}

TensorCoreBounds banded_bounds(const BandedAnalysis& a, const TensorCoreCeilings& c) {
  auto over = [](double work, double rate) { return rate > 0 ? work / rate : 0.0; };
  TensorCoreBounds b;
  b.memory_s = over(a.compulsory_bytes, c.copy_bytes_per_s);
  b.fma_s = over(2.0 * static_cast<double>(a.useful_fmas), c.fma_flops_per_s);
  b.mma_s = mma_seconds(a.mmas, a.half_mmas, c);
  return b;
}

TensorCoreBounds banded_mixed_bounds(const BandedAnalysis& a, const TensorCoreCeilings& c) {
  TensorCoreBounds b = banded_bounds(a, c);
  b.mma_s = mma_seconds(a.mixed_mmas, a.mixed_half_mmas, c);
  return b;
}

}  // namespace convlab::analysis
