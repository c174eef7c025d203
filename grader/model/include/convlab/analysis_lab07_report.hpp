/// @file analysis_lab07_report.hpp
/// @brief Lab 07's analysis as `grader analyze --lab lab07` prints it: each variant's
///        configuration on one image (analysis_register_tiling.hpp), as text for people and as
///        versioned JSON for scripts.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "convlab/analysis_register_tiling.hpp"

namespace convlab::analysis {

/// One of the lab's variants and the configuration it launches with.
struct Lab07Variant {
  std::string name;          ///< "register_tiled", "shfl_filter", ...
  lab07::TileConfig config;  ///< from the tuning file in use, else the compiled-in defaults
};

/// Every variant analysed on one height × width image with a K×K mask.
struct Lab07Report {
  int height = 0;               ///< H, the image's rows
  int width = 0;                ///< W, its columns
  int mask = 0;                 ///< K
  std::string origin;           ///< where the image came from ("case ..."), "" if typed in
  std::string configurations;   ///< where the configurations came from (a tuning file, the defaults)
  std::vector<Lab07Variant> variants;            ///< the lab's variants, in the registry's order
  std::vector<RegisterTilingAnalysis> analyses;  ///< one per variant, in order
};

/// Analyses each variant on the image, with the vector path the launcher takes.
/// @throws std::invalid_argument for a configuration or image the model refuses
Lab07Report make_lab07_report(int height, int width, int mask, std::vector<Lab07Variant> variants,
                              const std::string& configurations, const std::string& origin);

/// The report as text, ending in a newline.
std::string lab07_report_text(const Lab07Report& r);
/// `{"format": "convlab-analyze-lab07", "version": 1, ...}`
nlohmann::json lab07_report_json(const Lab07Report& r);

}  // namespace convlab::analysis
