/// @file analysis_report.hpp
/// @brief The analysis of one configuration as a report, for `grader analyze`: the named
///        block, the interior and boundary blocks, the whole grid, and the bandwidth reduction
///        three ways (the lecture's interior formula, an interior block counted, the whole
///        image exactly).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "convlab/analysis.hpp"

namespace convlab::analysis {

/// Everything `grader analyze` prints about one configuration.
struct AnalysisReport {
  Config config;        ///< the configuration (validated)
  BlockAnalysis block;  ///< the block the user named
  GridAnalysis grid;    ///< every block
  /// The lecture's interior-tile formula for this kernel's output tile, when it has one
  /// (strategies 1 and 2); nullopt for the untiled kernels and strategy 3.
  std::optional<double> lecture_formula;
  std::string origin;   ///< where the configuration came from, e.g. "lab03, case conv2d/k5_37x53"
};

/// Analyses a configuration and one of its blocks.
/// @param config the configuration
/// @param bx blockIdx.x of the block to show
/// @param by blockIdx.y of the block to show
/// @param origin a line saying where the configuration came from ("" if typed in)
/// @return the report
/// @throws std::invalid_argument for a bad configuration, std::out_of_range for a bad block
AnalysisReport make_report(const Config& config, int bx, int by, const std::string& origin = "");

/// The report as aligned text for people.
/// @param r the report
/// @return the text, ending in a newline
std::string report_text(const AnalysisReport& r);

/// The report as versioned JSON: `{"format": "convlab-analysis", "version": 1, ...}`.
/// @param r the report
/// @return the JSON document
nlohmann::json report_json(const AnalysisReport& r);

/// Version of the JSON format written by report_json().
inline constexpr int kAnalysisJsonVersion = 1;

}  // namespace convlab::analysis
