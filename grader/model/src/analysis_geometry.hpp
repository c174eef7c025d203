// Private to the analysis model: one block seen along one axis.
//
// Every count the model makes is a product of per-axis quantities, because a block's outputs
// are a rectangle (valid_x × valid_y outputs) and a tap (p,q) is in the image iff its row is
// and its column is. So the model first reduces each block to two AxisWindows.
#pragma once

#include <algorithm>
#include <tuple>

#include "convlab/analysis.hpp"

namespace convlab::analysis::detail {

/// A block along one axis, in the block's *footprint* coordinates: footprint position f is
/// input position `out_start - r + f`, f in [0, span). Output t of the block reads footprint
/// positions t .. t+k-1.
struct AxisWindow {
  int n = 1;         // image extent along the axis
  int k = 1;         // mask taps along the axis
  int r = 0;         // (K-1)/2 (0 for the y axis of a 1D problem)
  int out_tile = 1;  // outputs per block
  int span = 1;      // footprint length, out_tile + k - 1
  int valid = 0;     // outputs of this block inside the image: t in [0, valid)
  int in_lo = 0;     // footprint positions inside the image: f in [in_lo, in_hi)
  int in_hi = 0;

  bool interior() const { return valid == out_tile && in_lo == 0 && in_hi == span; }
  // Blocks with equal signatures behave identically along this axis.
  auto signature() const { return std::make_tuple(valid, in_lo, in_hi); }
};

/// Block `b` along an axis of extent n, mask k, output tile `out_tile`.
inline AxisWindow axis_window(int n, int k, int out_tile, int b) {
  AxisWindow w;
  w.n = n;
  w.k = k;
  w.r = (k - 1) / 2;
  w.out_tile = out_tile;
  w.span = out_tile + k - 1;
  const long long out_start = static_cast<long long>(b) * out_tile;
  const long long in_start = out_start - w.r;
  w.valid = static_cast<int>(std::clamp<long long>(n - out_start, 0, out_tile));
  w.in_lo = static_cast<int>(std::clamp<long long>(-in_start, 0, w.span));
  w.in_hi = static_cast<int>(std::clamp<long long>(n - in_start, 0, w.span));
  return w;
}

/// Length of [a0, a1) ∩ [b0, b1).
inline long long overlap(long long a0, long long a1, long long b0, long long b1) {
  return std::max(0LL, std::min(a1, b1) - std::max(a0, b0));
}

/// Σ over outputs t in [0, valid) of the taps p in [0, k) whose footprint position t+p lies
/// in [lo, hi). Summed tap by tap: tap p is used by outputs whose t+p falls in the window.
inline long long taps_in(int valid, int k, long long lo, long long hi) {
  long long total = 0;
  for (int p = 0; p < k; ++p) total += overlap(p, p + static_cast<long long>(valid), lo, hi);
  return total;
}

/// The two axes of one block of a configuration.
struct BlockWindows {
  AxisWindow x;
  AxisWindow y;
};

inline BlockWindows block_windows(const Config& c, int bx, int by) {
  return {axis_window(c.width, c.mask_x(), c.out_tile_x(), bx),
          axis_window(c.height, c.mask_y(), c.out_tile_y(), by)};
}

/// Warps with control divergence in one block (see analysis.hpp for the definition).
struct Divergence {
  long long load = 0;
  long long compute = 0;
  long long any = 0;
};

/// Implemented in analysis_divergence.cpp.
Divergence block_divergence(const Config& c, const BlockWindows& w);

}  // namespace convlab::analysis::detail
