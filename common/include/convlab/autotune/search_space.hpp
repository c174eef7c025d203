/// @file search_space.hpp
/// @brief The autotuner's search space (needs no GPU): the heat maps' cells, the refinement
///        around the best cells, the paths tried last, and what the lab's variants instantiate.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "convlab/lab07_config.hpp"

namespace convlab::lab07 {

// ---------------------------------------------------------------------------------------------
// The search space.

/// Outputs per thread in x and y of the heat maps (the talk's axes).
inline std::vector<int> heatmap_outputs_x(bool quick) {
  return quick ? std::vector<int>{1, 4, 8} : std::vector<int>{1, 2, 4, 8, 12, 16};
}
inline std::vector<int> heatmap_outputs_y(bool quick) {
  return quick ? std::vector<int>{1, 2, 4} : std::vector<int>{1, 2, 3, 4, 6, 8};
}

/// Block shape of the heat maps: one warp across x, as in the talk.
inline constexpr int kHeatmapBlockX = 32;
inline constexpr int kHeatmapBlockY = 4;

/// Block shapes tried around the best heat-map cells.
inline std::vector<std::pair<int, int>> refine_blocks(bool quick) {
  if (quick) return {{32, 4}, {64, 2}};
  return {{32, 1}, {32, 2}, {32, 4}, {32, 8}, {64, 1}, {64, 2}, {64, 4}, {128, 1}, {128, 2}, {256, 1}};
}

/// The sweep leaves out configurations whose fully unrolled body has more FMAs per thread than
/// this: their compile time grows faster than their size (K=17 with 16x8 outputs per thread and
/// unrolled rows: minutes of ptxas) and they spill anyway. Rolled rows have the code of one row.
inline constexpr int kMaxUnrolledFmas = 20000;
inline bool too_big_to_build(const TileConfig& c) {
  return c.rows == RowLoop::unrolled && c.out_x * c.out_y * c.mask_width * c.mask_width > kMaxUnrolledFmas;
}

/// The row loop of the heat maps: unrolled for K ≤ 7 (where it is the faster one, and every
/// cell compiles in about a second), rolled for K ≥ 9 (the faster one there, and it keeps the
/// compile time of large patches small). Stage 2 tries the other one around the best cells.
inline RowLoop heatmap_rows(int k) { return k <= 7 ? RowLoop::unrolled : RowLoop::rolled; }

/// Stage 1: the heat map of mask width k, every (OX, OY) with the talk's block, the given filter
/// path, global→register and heatmap_rows(k).
inline std::vector<TileConfig> heatmap_configs(int k, FilterPath filter, bool quick) {
  std::vector<TileConfig> out;
  for (const int oy : heatmap_outputs_y(quick)) {
    for (const int ox : heatmap_outputs_x(quick)) {
      const TileConfig c{k, ox, oy, kHeatmapBlockX, kHeatmapBlockY, InputPath::global, filter, heatmap_rows(k)};
      if (c.check().empty() && !too_big_to_build(c)) out.push_back(c);
    }
  }
  return out;
}

/// Stage 2: around each seed (a heat-map cell), every block shape with rolled and unrolled rows,
/// the seed's paths. Configurations that cannot be built are left out; no duplicates.
inline std::vector<TileConfig> refine_configs(const std::vector<TileConfig>& seeds, bool quick) {
  std::vector<TileConfig> out;
  for (const TileConfig& s : seeds) {
    for (const auto& [bx, by] : refine_blocks(quick)) {
      for (const RowLoop rows : {RowLoop::rolled, RowLoop::unrolled}) {
        TileConfig c = s;
        c.block_x = bx;
        c.block_y = by;
        c.rows = rows;
        if (!c.check().empty() || too_big_to_build(c)) continue;
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
      }
    }
  }
  return out;
}

/// Stage 3: the best configuration so far with both input paths × both filter paths.
inline std::vector<TileConfig> path_configs(const TileConfig& best) {
  std::vector<TileConfig> out;
  for (const InputPath in : {InputPath::global, InputPath::shared}) {
    for (const FilterPath fi : {FilterPath::constant, FilterPath::shfl}) {
      TileConfig c = best;
      c.input = in;
      c.filter = fi;
      if (c.check().empty() && !too_big_to_build(c)) out.push_back(c);
    }
  }
  return out;
}

/// The paper's "global memory only" kernel: one output per thread, compile-time loop bounds,
/// every tap read from global memory (no reuse in registers), the mask in constant memory.
inline TileConfig baseline_config(int k) { return {k, 1, 1, 32, 8, InputPath::global, FilterPath::constant}; }

/// Every instantiation the lab's variants can ask for at mask width k, given the chosen
/// configuration and the tuned configuration of each role (missing roles: force_path; step 2's
/// "loaded" filter path is never tuned, so always forced), each with and without vector loads.
/// The tuner compiles them all so that the lab finds them in the cache.
inline std::vector<KernelVariant> lab_instantiations(const TileConfig& best,
                                                     const std::map<std::string, TileConfig>& roles) {
  std::vector<TileConfig> configs{best};
  for (const char* role : {"shfl", "constant", "shared"}) {
    const auto it = roles.find(role);
    configs.push_back(it != roles.end() ? it->second : force_path(best, role));
  }
  configs.push_back(force_path(best, "loaded"));
  std::vector<KernelVariant> out;
  std::set<std::string> names;
  for (const TileConfig& c : configs) {
    for (const bool vec : {true, false}) {
      const KernelVariant v{c, vec, false};
      if (names.insert(kernel_name(v)).second) out.push_back(v);
    }
  }
  return out;
}

/// Mask widths to tune, ascending, parsed from "2,3,5" or "all" by MaskWidths::parse.
/// @throws std::invalid_argument naming the bad item
inline std::vector<int> parse_mask_list(const std::string& text) {
  return MaskWidths::parse(text, supported_mask_widths(), "lab 07").widths();
}

}  // namespace convlab::lab07
