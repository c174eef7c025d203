// The analysis model's access counts: closed forms per block, summed over block classes.
//
// Per axis a block is an AxisWindow (analysis_geometry.hpp); every count below is a product
// of an x factor and a y factor. Warp divergence lives in analysis_divergence.cpp.
#include "convlab/analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <vector>

#include "analysis_geometry.hpp"
#include "convlab/lab_config.hpp"
#include "convlab/lab_registry.hpp"

namespace convlab::analysis {

using detail::AxisWindow;
using detail::BlockWindows;

// ---- Strategy names --------------------------------------------------------------------

const char* strategy_name(Strategy s) {
  switch (s) {
    case Strategy::untiled_global_mask: return "untiled-global-mask";
    case Strategy::untiled: return "untiled";
    case Strategy::tiled1: return "tiled1";
    case Strategy::tiled2: return "tiled2";
    case Strategy::tiled3: return "tiled3";
  }
  return "?";
}

const char* strategy_description(Strategy s) {
  switch (s) {
    case Strategy::untiled_global_mask:
      return "untiled: one thread per output, image and mask in global memory (lab 01)";
    case Strategy::untiled:
      return "untiled: one thread per output, mask in constant memory (lab 02)";
    case Strategy::tiled1:
      return "strategy 1: block covers the output tile, input tile loaded in several steps "
             "(lab 03)";
    case Strategy::tiled2:
      return "strategy 2: block covers the input tile, some threads idle when computing "
             "(lab 04)";
    case Strategy::tiled3:
      return "strategy 3: block covers the output tile, only the core in shared memory, halo "
             "read through the caches (lab 05)";
  }
  return "?";
}

std::optional<Strategy> parse_strategy(std::string_view name) {
  for (Strategy s : all_strategies()) {
    if (name == strategy_name(s)) return s;
  }
  return std::nullopt;
}

std::vector<Strategy> all_strategies() {
  return {Strategy::untiled_global_mask, Strategy::untiled, Strategy::tiled1, Strategy::tiled2,
          Strategy::tiled3};
}

// ---- Config ------------------------------------------------------------------------------

void Config::validate() const {
  auto positive = [](const char* what, int v) {
    if (v < 1) throw std::invalid_argument(fmt::format("analysis: {} must be >= 1 (got {})", what, v));
  };
  if (dims != 1 && dims != 2) {
    throw std::invalid_argument(fmt::format("analysis: dims must be 1 or 2 (got {})", dims));
  }
  positive("height", height);
  positive("width", width);
  positive("mask width", mask_width);
  if (dims == 1) {
    if (height != 1) throw std::invalid_argument("analysis: a 1D problem has height 1");
    if (tile_y != 1 || block_y != 1) {
      throw std::invalid_argument("analysis: a 1D problem has tile_y = block_y = 1");
    }
  }
  if (untiled()) {
    positive("block x", block_x);
    positive("block y", block_y);
  } else {
    positive("tile x", tile_x);
    positive("tile y", tile_y);
    if (strategy == Strategy::tiled2) {
      // The output tile is IN_TILE - K + 1 along each axis that has a K-tap mask.
      if (tile_x < mask_x() || tile_y < mask_y()) {
        throw std::invalid_argument(fmt::format(
            "analysis: strategy 2 needs an input tile of at least the mask width (tile {}x{}, "
            "K {}): its output tile is IN_TILE-K+1",
            tile_x, tile_y, mask_width));
      }
    }
  }
}

int Config::out_tile_x() const {
  if (untiled()) return block_x;
  return strategy == Strategy::tiled2 ? tile_x - mask_x() + 1 : tile_x;
}

int Config::out_tile_y() const {
  if (untiled()) return block_y;
  return strategy == Strategy::tiled2 ? tile_y - mask_y() + 1 : tile_y;
}

int Config::grid_x() const { return ceil_div(width, out_tile_x()); }
int Config::grid_y() const { return ceil_div(height, out_tile_y()); }

std::string Config::describe() const {
  std::string s = fmt::format("{} {}D ", strategy_name(strategy), dims);
  s += dims == 2 ? fmt::format("{}×{} K={}", height, width, mask_width)
                 : fmt::format("N={} K={}", width, mask_width);
  if (!untiled()) {
    s += dims == 2 ? fmt::format(" tile {}×{}", tile_x, tile_y) : fmt::format(" tile {}", tile_x);
  }
  s += dims == 2 ? fmt::format(" block {}×{} grid {}×{}", threads_x(), threads_y(), grid_x(), grid_y())
                 : fmt::format(" block {} grid {}", threads_x(), grid_x());
  return s;
}

Config config_2d(Strategy s, int height, int width, int mask_width, int tile) {
  Config c;
  c.strategy = s;
  c.dims = 2;
  c.height = height;
  c.width = width;
  c.mask_width = mask_width;
  c.tile_x = c.tile_y = tile;
  return c;
}

Config config_1d(Strategy s, int length, int mask_width, int tile) {
  Config c;
  c.strategy = s;
  c.dims = 1;
  c.height = 1;
  c.width = length;
  c.mask_width = mask_width;
  c.tile_x = tile;
  c.tile_y = 1;
  return c;
}

Config untiled_config(int dims, int height, int width, int mask_width, int block_x, int block_y,
                      bool mask_in_global) {
  Config c;
  c.strategy = mask_in_global ? Strategy::untiled_global_mask : Strategy::untiled;
  c.dims = dims;
  c.height = dims == 2 ? height : 1;
  c.width = width;
  c.mask_width = mask_width;
  c.block_x = block_x;
  c.block_y = dims == 2 ? block_y : 1;
  return c;
}

std::optional<Config> config_for_lab(const std::string& lab, int height, int width, int mask_width) {
  using namespace convlab::config;
  const labs::LabEntry* entry = labs::find_lab(lab);
  if (!entry) return std::nullopt;
  switch (entry->config) {  // the lab registry says which lab_config.hpp entry the lab launches with
    case labs::LabConfig::untiled_global_mask:
    case labs::LabConfig::untiled:
      return untiled_config(2, height, width, mask_width, kUntiledBlockX, kUntiledBlockY,
                            entry->config == labs::LabConfig::untiled_global_mask);
    case labs::LabConfig::tiled_output:
      return config_2d(Strategy::tiled1, height, width, mask_width, kLab03TileWidth);
    case labs::LabConfig::tiled_input:
      return config_2d(Strategy::tiled2, height, width, mask_width, kLab04InTile);
    case labs::LabConfig::tiled_cached_halo:
      return config_2d(Strategy::tiled3, height, width, mask_width, kLab05TileWidth);
    case labs::LabConfig::im2col:
    case labs::LabConfig::register_tiling:
    case labs::LabConfig::tensor_cores:
      return std::nullopt;  // conv2d tiling configurations only
  }
  return std::nullopt;
}

// ---- Counts ------------------------------------------------------------------------------

Counts& Counts::operator+=(const Counts& o) {
  blocks += o.blocks;
  threads += o.threads;
  warps += o.warps;
  outputs += o.outputs;
  global_input_loads += o.global_input_loads;
  global_mask_loads += o.global_mask_loads;
  shared_stores += o.shared_stores;
  shared_loads += o.shared_loads;
  untiled_equivalent += o.untiled_equivalent;
  divergent_warps_load += o.divergent_warps_load;
  divergent_warps_compute += o.divergent_warps_compute;
  divergent_warps_any += o.divergent_warps_any;
  return *this;
}

Counts Counts::scaled(long long times) const {
  Counts c = *this;
  for (long long* f : {&c.blocks, &c.threads, &c.warps, &c.outputs, &c.global_input_loads,
                       &c.global_mask_loads, &c.shared_stores, &c.shared_loads,
                       &c.untiled_equivalent, &c.divergent_warps_load,
                       &c.divergent_warps_compute, &c.divergent_warps_any}) {
    *f *= times;
  }
  return c;
}

double Counts::bandwidth_reduction() const {
  if (global_input_loads == 0) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(untiled_equivalent) / static_cast<double>(global_input_loads);
}

double Counts::global_bytes() const {
  return kBytesPerFloat * static_cast<double>(global_input_loads + global_mask_loads + outputs);
}

bool Counts::operator==(const Counts& o) const {
  return blocks == o.blocks && threads == o.threads && warps == o.warps &&
         outputs == o.outputs && global_input_loads == o.global_input_loads &&
         global_mask_loads == o.global_mask_loads && shared_stores == o.shared_stores &&
         shared_loads == o.shared_loads && untiled_equivalent == o.untiled_equivalent &&
         divergent_warps_load == o.divergent_warps_load &&
         divergent_warps_compute == o.divergent_warps_compute &&
         divergent_warps_any == o.divergent_warps_any;
}

// ---- One block ---------------------------------------------------------------------------

namespace {

/// Lab 01's loads of the mask, counted as the hardware issues them. All lanes of a warp read
/// the same M[p][q], so one load instruction serves the warp (Nsight Compute's thread-level
/// byte count, smsp__sass_data_bytes_mem_global_op_ld.sum, also counts it once: measured on
/// an H200). The kernel reads M only for a tap inside the image, so a warp issues the load
/// for tap (p, q) when at least one of its active threads has that tap inside.
long long warp_mask_loads(const Config& c, const BlockWindows& w) {
  const AxisWindow& x = w.x;
  const AxisWindow& y = w.y;
  const int threads = c.threads_per_block();
  long long loads = 0;
  std::vector<char> issued(static_cast<std::size_t>(x.k) * y.k);
  for (int first = 0; first < threads; first += kWarpSize) {
    std::fill(issued.begin(), issued.end(), 0);
    const int last = std::min(first + kWarpSize, threads);
    // A warp is a run of consecutive thread indices: a few row segments of the block.
    for (int tid = first; tid < last;) {
      const int ty = tid / c.block_x;
      const int tx_begin = tid % c.block_x;
      const int tx_end = std::min(c.block_x, tx_begin + (last - tid));
      tid += tx_end - tx_begin;
      const int active_end = std::min(tx_end, x.valid);
      if (ty >= y.valid || tx_begin >= active_end) continue;
      // Output t (footprint-local) reads position t + tap; inside when in [in_lo, in_hi).
      const int p_lo = std::max(0, y.in_lo - ty), p_hi = std::min(y.k, y.in_hi - ty);
      const int q_lo = std::max(0, x.in_lo - (active_end - 1)), q_hi = std::min(x.k, x.in_hi - tx_begin);
      for (int p = p_lo; p < p_hi; ++p) {
        for (int q = q_lo; q < q_hi; ++q) issued[static_cast<std::size_t>(p) * x.k + q] = 1;
      }
    }
    loads += std::count(issued.begin(), issued.end(), 1);
  }
  return loads;
}

/// The access counts of one block, as products of per-axis closed forms.
Counts block_counts(const Config& c, const BlockWindows& w) {
  const AxisWindow& x = w.x;
  const AxisWindow& y = w.y;
  Counts n;
  n.blocks = 1;
  n.threads = c.threads_per_block();
  n.warps = c.warps_per_block();
  n.outputs = static_cast<long long>(x.valid) * y.valid;

  // Taps of the block's outputs that fall inside the image: what the untiled kernel loads.
  const long long ux = detail::taps_in(x.valid, x.k, x.in_lo, x.in_hi);
  const long long uy = detail::taps_in(y.valid, y.k, y.in_lo, y.in_hi);
  n.untiled_equivalent = ux * uy;
  const long long taps = static_cast<long long>(x.k) * y.k;

  switch (c.strategy) {
    case Strategy::untiled_global_mask:
      n.global_mask_loads = warp_mask_loads(c, w);
      [[fallthrough]];
    case Strategy::untiled:
      n.global_input_loads = n.untiled_equivalent;
      break;
    case Strategy::tiled1:
    case Strategy::tiled2:
      // Each in-image element of the input tile is loaded exactly once; every computing thread
      // then reads K² values from shared memory.
      n.global_input_loads = static_cast<long long>(x.in_hi - x.in_lo) * (y.in_hi - y.in_lo);
      n.shared_stores = c.strategy == Strategy::tiled1
                            ? static_cast<long long>(x.span) * y.span  // the strided loop's IN²
                            : n.threads;                              // one per thread
      n.shared_loads = n.outputs * taps;
      break;
    case Strategy::tiled3: {
      // The core occupies footprint positions [r, r + T) along each axis. Taps inside it are
      // shared loads (ghost zeros of a clipped core included); taps outside it are global
      // loads if in the image.
      const long long sx = detail::taps_in(x.valid, x.k, x.r, x.r + x.out_tile);
      const long long sy = detail::taps_in(y.valid, y.k, y.r, y.r + y.out_tile);
      const long long bx = detail::taps_in(x.valid, x.k, std::max(x.r, x.in_lo),
                                           std::min(x.r + x.out_tile, x.in_hi));
      const long long by = detail::taps_in(y.valid, y.k, std::max(y.r, y.in_lo),
                                           std::min(y.r + y.out_tile, y.in_hi));
      n.shared_stores = n.threads;
      n.shared_loads = sx * sy;
      // Core loads (one per thread whose pixel is in the image) + halo taps in the image.
      n.global_input_loads = n.outputs + (ux * uy - bx * by);
      break;
    }
  }
  const detail::Divergence d = detail::block_divergence(c, w);
  n.divergent_warps_load = d.load;
  n.divergent_warps_compute = d.compute;
  n.divergent_warps_any = d.any;
  return n;
}

BlockAnalysis analyze_windows(const Config& c, int bx, int by, const BlockWindows& w) {
  BlockAnalysis b;
  b.bx = bx;
  b.by = by;
  b.interior = w.x.interior() && w.y.interior();
  b.counts = block_counts(c, w);
  const long long ux = detail::taps_in(w.x.valid, w.x.k, w.x.in_lo, w.x.in_hi);
  for (int t = 0; t < w.y.valid; ++t) {
    b.untiled_equivalent_per_row.push_back(
        ux * detail::overlap(t, t + w.y.k, w.y.in_lo, w.y.in_hi));
  }
  return b;
}

/// A configuration like `c` on an image large enough to have an interior block, and that
/// block's index (the same along both axes).
std::pair<Config, int> with_interior_block(Config c) {
  auto blocks_for = [](int out_tile, int k) {
    const int r = (k - 1) / 2;
    return std::max(1, ceil_div(r, out_tile));  // first block whose footprint starts ≥ 0
  };
  const int b = std::max(blocks_for(c.out_tile_x(), c.mask_x()), blocks_for(c.out_tile_y(), c.mask_y()));
  c.width = (2 * b + 1) * c.out_tile_x() + c.mask_x();
  if (c.dims == 2) c.height = (2 * b + 1) * c.out_tile_y() + c.mask_y();
  return {c, b};
}

}  // namespace

BlockAnalysis analyze_block(const Config& c, int bx, int by) {
  c.validate();
  if (bx < 0 || bx >= c.grid_x() || by < 0 || by >= c.grid_y()) {
    throw std::out_of_range(fmt::format("analysis: block ({},{}) is outside the {}×{} grid", bx,
                                        by, c.grid_x(), c.grid_y()));
  }
  return analyze_windows(c, bx, by, detail::block_windows(c, bx, by));
}

GridAnalysis analyze_grid(const Config& c) {
  c.validate();
  // Group the blocks of each axis by behaviour; a block's behaviour is that of its x window
  // and its y window, so the grid has (x classes) × (y classes) distinct blocks.
  using Signature = decltype(AxisWindow{}.signature());
  struct AxisClass {
    long long count = 0;
    int first = 0;
  };
  auto classes_along = [](int blocks, auto window_of) {
    std::map<Signature, AxisClass> classes;
    for (int b = 0; b < blocks; ++b) {
      auto [it, inserted] = classes.try_emplace(window_of(b).signature(), AxisClass{0, b});
      ++it->second.count;
    }
    return classes;
  };
  const auto xs = classes_along(c.grid_x(), [&](int b) {
    return detail::axis_window(c.width, c.mask_x(), c.out_tile_x(), b);
  });
  const auto ys = classes_along(c.grid_y(), [&](int b) {
    return detail::axis_window(c.height, c.mask_y(), c.out_tile_y(), b);
  });

  GridAnalysis g;
  g.config = c;
  for (const auto& [sy, cy] : ys) {
    for (const auto& [sx, cx] : xs) {
      BlockClass k;
      k.multiplicity = cx.count * cy.count;
      k.representative = analyze_block(c, cx.first, cy.first);
      const Counts sum = k.representative.counts.scaled(k.multiplicity);
      g.total += sum;
      if (k.representative.interior) {
        g.interior_blocks += k.multiplicity;
        g.interior_block = k.representative.counts;
      } else {
        g.boundary_blocks += k.multiplicity;
        g.boundary_total += sum;
      }
      g.classes.push_back(std::move(k));
    }
  }
  if (g.interior_blocks > 0) {
    g.interior_reduction = g.interior_block.bandwidth_reduction();
  } else {
    const auto [big, b] = with_interior_block(c);
    g.interior_reduction = analyze_block(big, b, c.dims == 2 ? b : 0).counts.bandwidth_reduction();
  }
  return g;
}

double lecture_reduction(int dims, int out_tile, int mask_width) {
  const double one_axis = static_cast<double>(out_tile) * mask_width / (out_tile + mask_width - 1);
  return dims == 2 ? one_axis * one_axis : one_axis;
}

double lecture_reduction_2d(int out_tile_x, int out_tile_y, int mask_width) {
  return static_cast<double>(out_tile_x) * mask_width / (out_tile_x + mask_width - 1) *
         (static_cast<double>(out_tile_y) * mask_width / (out_tile_y + mask_width - 1));
}

}  // namespace convlab::analysis
