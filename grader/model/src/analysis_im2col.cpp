// Lab 06's three steps, counted (see analysis_im2col.hpp).
//
// Every count is a product of per-axis sums: a tap (p, q) of output (h, w) is in X iff its row
// is and its column is, so "in-X taps over all outputs" is (Σ_h rows in) × (Σ_w columns in), and
// a GEMM tile loop over a dimension of n elements in steps of T covers each element once per
// tile of the other dimension.
#include "convlab/analysis_im2col.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <vector>
#include <stdexcept>

namespace convlab::analysis {

namespace {

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

/// Σ over the n_out outputs of one axis of the K taps whose input index o·S-P+p·D is in [0, n_in).
long long axis_taps_inside(int n_out, int n_in, int k, int s, int p, int d) {
  long long total = 0;
  for (int o = 0; o < n_out; ++o) {
    for (int t = 0; t < k; ++t) {
      const long long i = static_cast<long long>(o) * s - p + static_cast<long long>(t) * d;
      total += i >= 0 && i < n_in;
    }
  }
  return total;
}

// The solution's 16×16 tile of steps 1 and 2, and step 1's unroll buffer limit.
constexpr int kTile = lab06::kGemmTileWidth;
constexpr long long kMaxUnrollBytes = lab06::kUnrollBufferBytes;

/// Step 2's words read twice in one warp instruction, per image and per row tile of the grid.
///
/// A warp of the 16×16 block is rows ty, ty+1 (ty even) of the B tile: X_unroll rows kb and
/// kb+1 (kb even, since slices start at multiples of 16) over the tile's 16 columns. Lanes of
/// one row read distinct words (distinct outputs, one tap); a word of row kb+1 is also read in
/// row kb only when both rows are taps j, j+1 of one channel. For each column tile this counts,
/// per tap j, the in-X words that taps j and j+1 share, times the channels whose row c·K²+j is
/// even.
long long fused_shared_words(const ConvLayerShape& s) {
  const int K = s.mask_width, KK = K * K, Wo = s.out_width();
  const long long HoWo = static_cast<long long>(s.out_height()) * Wo;
  // Channels c with c·K² + j even: all or none when K² is even; every other one when it is odd.
  auto channels_pairing = [&](int j) -> long long {
    if (KK % 2 == 0) return j % 2 == 0 ? s.channels : 0;
    return j % 2 == 0 ? (s.channels + 1) / 2 : s.channels / 2;
  };
  long long shared = 0;
  std::vector<long long> words[2];
  for (long long col0 = 0; col0 < HoWo; col0 += kTile) {
    const long long cols = std::min<long long>(kTile, HoWo - col0);
    for (int j = 0; j + 1 < KK; ++j) {
      const long long n = channels_pairing(j);
      if (n == 0) continue;
      for (int side = 0; side < 2; ++side) {  // the in-X words (ih·W + iw) of taps j and j+1
        const int p = (j + side) / K, q = (j + side) % K;
        words[side].clear();
        for (long long col = col0; col < col0 + cols; ++col) {
          const long long ih = (col / Wo) * s.stride - s.padding + static_cast<long long>(p) * s.dilation;
          const long long iw = (col % Wo) * s.stride - s.padding + static_cast<long long>(q) * s.dilation;
          if (ih >= 0 && ih < s.height && iw >= 0 && iw < s.width) words[side].push_back(ih * s.width + iw);
        }
        std::sort(words[side].begin(), words[side].end());
      }
      std::vector<long long> both;
      std::set_intersection(words[0].begin(), words[0].end(), words[1].begin(), words[1].end(),
                            std::back_inserter(both));
      shared += n * static_cast<long long>(both.size());
    }
  }
  return shared;
}

}  // namespace

const Im2colStep& Im2colAnalysis::step(const std::string& name) const {
  for (const Im2colStep& s : steps) {
    if (s.name == name) return s;
  }
  throw std::out_of_range("analysis: lab 06 has no step " + name);
}

int im2col_unroll_chunk(const ConvLayerShape& s) {
  const long long per_image = static_cast<long long>(s.channels) * s.mask_width * s.mask_width *
                              static_cast<long long>(s.out_height()) * s.out_width();
  const long long fit = kMaxUnrollBytes / 4 / per_image;
  return static_cast<int>(std::clamp<long long>(fit, 1, std::min<long long>(s.batch, 65535)));
}

Im2colAnalysis analyze_im2col(const ConvLayerShape& s, const GemmPlan& plan, int unroll_chunk_images) {
  s.validate();
  if (plan.bm < 32 || plan.bn < 32 || plan.bm % 32 != 0 || plan.bn % 32 != 0 || plan.bk < 1 || plan.splits < 1) {
    throw std::invalid_argument(fmt::format("analysis: step 3 plan {}x{}x{} split {}: tiles are multiples of 32, "
                                            "slices and splits at least 1",
                                            plan.bm, plan.bn, plan.bk, plan.splits));
  }
  Im2colAnalysis a;
  a.layer = s;
  a.traffic = im2col_traffic(s);
  a.plan = plan;
  const long long B = s.batch, C = s.channels, M = s.filters;
  const long long Ho = s.out_height(), Wo = s.out_width(), HoWo = Ho * Wo;
  const long long KK = static_cast<long long>(s.mask_width) * s.mask_width;
  const long long Kdim = C * KK;
  const long long rows_in = axis_taps_inside(s.out_height(), s.height, s.mask_width, s.stride, s.padding, s.dilation);
  const long long cols_in = axis_taps_inside(s.out_width(), s.width, s.mask_width, s.stride, s.padding, s.dilation);
  a.in_x_taps = B * C * rows_in * cols_in;
  const long long useful = B * M * HoWo * Kdim;
  const long long outputs = B * M * HoWo;
  auto per_fma = [](long long floats, long long fmas) {
    return fmas == 0 ? 0.0 : static_cast<double>(floats) / static_cast<double>(fmas);
  };

  // Steps 1 and 2 share the 16×16 GEMM: grid ⌈Ho·Wo/16⌉ × ⌈M/16⌉ × B, ⌈Kdim/16⌉ slices.
  const long long gx = ceil_div(HoWo, kTile), gy = ceil_div(M, kTile), slices = ceil_div(Kdim, kTile);
  const long long gemm_fmas = gx * gy * B * kTile * kTile * kTile * slices;
  const long long weight_loads = gx * B * M * Kdim;  // each weight once per column tile and image

  Im2colStep unroll;
  unroll.name = "unroll_gemm";
  unroll.gemm = "unroll kernel, then the 16×16 shared-memory tiled GEMM on X_unroll";
  const int chunk = unroll_chunk_images > 0 ? unroll_chunk_images : im2col_unroll_chunk(s);
  unroll.kernels = 2 * ceil_div(B, chunk);
  unroll.weight_loads = weight_loads;
  unroll.input_loads = a.in_x_taps + gy * B * Kdim * HoWo;  // the unroll's reads + the GEMM's
  unroll.global_loads = unroll.weight_loads + unroll.input_loads;
  unroll.load_words = unroll.global_loads;  // the unroll's lanes read distinct taps, the GEMM's distinct elements
  unroll.global_stores = a.traffic.unrolled_elements + outputs;
  unroll.fmas = gemm_fmas;
  unroll.tile_global_per_fma = 2.0 / kTile;
  unroll.tile_shared_per_fma = 2.0;

  Im2colStep fused = unroll;
  fused.name = "fused_gemm";
  fused.gemm = "the 16×16 shared-memory tiled GEMM, its X_unroll tile gathered from X";
  fused.kernels = 1;
  fused.input_loads = gy * a.in_x_taps;
  fused.global_loads = fused.weight_loads + fused.input_loads;
  fused.load_words = fused.global_loads - gy * B * fused_shared_words(s);
  fused.global_stores = outputs;

  Im2colStep tiled;
  tiled.name = "register_tiled";
  tiled.gemm = fmt::format("{}×{}×{} block tile, 8×8 outputs per thread, cp.async", plan.bm, plan.bn, plan.bk);
  const long long k_tiles = ceil_div(Kdim, plan.bk);
  const long long splits = std::clamp<long long>(plan.splits, 1, k_tiles);
  const long long per_split = ceil_div(k_tiles, splits);
  a.effective_splits = static_cast<int>(ceil_div(k_tiles, per_split));
  tiled.kernels = 1;
  const long long tx = ceil_div(B * HoWo, plan.bn), ty = ceil_div(M, plan.bm);
  // Every slice of every (row tile, column tile) is issued once, by the split that owns it.
  const long long a_copies = tx * ty * plan.bm * plan.bk * k_tiles;
  const long long b_copies = tx * ty * plan.bn * plan.bk * k_tiles;
  tiled.weight_loads = tx * M * Kdim;       // copies with m < M and k < Kdim
  tiled.input_loads = ty * a.in_x_taps;     // copies of an in-X tap of a column n < B·Ho·Wo
  tiled.async_copies = a_copies + b_copies;
  tiled.async_copies_read = tiled.weight_loads + tiled.input_loads;
  tiled.global_stores = outputs * a.effective_splits;  // split-K: one atomic add per split
  tiled.fmas = tx * ty * plan.bm * plan.bn * plan.bk * k_tiles;
  tiled.tile_global_per_fma = 1.0 / plan.bm + 1.0 / plan.bn;
  tiled.tile_shared_per_fma = (8.0 + 8.0) / 64.0;

  for (Im2colStep* st : {&unroll, &fused, &tiled}) {
    st->useful_fmas = useful;
    st->global_per_fma = per_fma(st->global_loads + st->async_copies_read, st->fmas);
  }
  a.steps = {unroll, fused, tiled};
  return a;
}

Im2colAnalysis analyze_lab06(const ConvLayerShape& layer, int sms) {
  layer.validate();
  return analyze_im2col(layer, lab06::choose_register_tile_plan(layer, sms, /*allow_split=*/true));
}

}  // namespace convlab::analysis
