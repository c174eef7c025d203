/// @file sweep_report.hpp
/// @brief What the autotuner's sweep writes once it has measured (needs no GPU): table.md and
///        table.csv (the paper's table, the talk's run-time against compile-time inner loop,
///        the targets) and the tuning file's roles. tune/tuner.cpp searches and measures; this
///        file writes.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "convlab/autotune/search_space.hpp"
#include "tune/measurement.hpp"

namespace convlab::lab07 {

/// A finished sweep, as its tables see it.
struct SweepOutcome {
  std::string device;                   ///< the GPU's name
  long long height = 0;                 ///< the timing image, height × width float32
  long long width = 0;
  Peaks peaks;                          ///< the ceilings measured in this run
  std::vector<int> ks;                  ///< the mask widths swept, in the order asked
  int jobs = 0;                         ///< compile threads
  std::vector<Measurement> all;         ///< every configuration measured, in the order measured
  std::map<int, Measurement> best;      ///< mask width → the fastest usable compile-time-loop entry
  std::map<int, double> final_ms;       ///< the winners with the lab runner's protocol (median of 20, L2 flushed)
  std::map<int, double> baseline_ms;    ///< the paper's global-only baseline, where it built
  double compile_cpu_s = 0;             ///< NVRTC seconds summed over everything measured
  double elapsed_s = 0;                 ///< the sweep's wall time up to its tables
};

/// table.md, table.csv, and the measurements the tuning file keeps.
struct SweepTables {
  std::string markdown;
  std::string csv;
  nlohmann::json measured = nlohmann::json::array();  ///< one entry per mask width: config and rates
};

SweepTables sweep_tables(const SweepOutcome& s);

/// The fastest usable configuration of mask width k restricted to each path ("shfl",
/// "constant", "shared", "global"): what the lab's comparison variants run. A role nothing
/// usable took is left out.
std::map<std::string, TileConfig> sweep_roles(const std::vector<Measurement>& all, int k);

}  // namespace convlab::lab07
