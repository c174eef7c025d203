/// @file analysis_im2col_report.hpp
/// @brief A conv layer's analysis as `grader analyze` prints it: the im2col view of the layer
///        (the conv-layer lecture's replication analysis), and lab 06's every step with step 3's
///        plan for a GPU of a given number of SMs. Text for people, versioned JSON for scripts.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "convlab/shapes.hpp"

namespace convlab::analysis {

/// The im2col view of `s`: X against X_unroll, the replication, the GEMM and its flops.
/// `origin` says where the layer came from ("" if typed in). Text ends in a newline.
std::string im2col_report_text(const ConvLayerShape& s, const std::string& origin);
/// `{"format": "convlab-analyze-layer", "version": 1, ...}`
nlohmann::json im2col_report_json(const ConvLayerShape& s, const std::string& origin);

/// Lab 06's steps on `s` (analysis_im2col.hpp: analyze_lab06), step 3 planned for `sms` SMs.
/// @throws std::invalid_argument when sms < 1
std::string lab06_report_text(const ConvLayerShape& s, int sms, const std::string& origin);
/// `{"format": "convlab-analyze-lab06", "version": 1, ...}`
nlohmann::json lab06_report_json(const ConvLayerShape& s, int sms, const std::string& origin);

}  // namespace convlab::analysis
