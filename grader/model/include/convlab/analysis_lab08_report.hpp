/// @file analysis_lab08_report.hpp
/// @brief Lab 08's analysis as `grader analyze --lab lab08` prints it: each step's tile and
///        split, the MMAs it issues, its bounds against the three ceilings when they are known
///        (bandwidth, float32 FMA, TF32 tensor cores) and its error bound against the FP32 and
///        TF32 rules. Text for people, versioned JSON for scripts.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "convlab/analysis_banded.hpp"
#include "convlab/analysis_tensor_cores.hpp"
#include "convlab/shapes.hpp"

namespace convlab::analysis {

/// Lab 08's steps on `s` planned for `sms` SMs; the bounds with `ceilings` (omitted where a
/// ceiling is 0: unknown). `origin` says where the layer came from ("" if typed in) and
/// `ceilings_origin` where the ceilings did. Text ends in a newline.
/// @throws std::invalid_argument when sms < 1
std::string lab08_report_text(const ConvLayerShape& s, int sms, const TensorCoreCeilings& ceilings,
                              const std::string& origin, const std::string& ceilings_origin);
/// `{"format": "convlab-analyze-lab08", "version": 1, ...}`
nlohmann::json lab08_report_json(const ConvLayerShape& s, int sms, const TensorCoreCeilings& ceilings,
                                 const std::string& origin, const std::string& ceilings_origin);

/// Lab 08 step 3 on an H × W image with a K × K mask: its MMAs, useful fraction, loads, bounds
/// (when the ceilings are known) and error bound. Text ends in a newline.
/// @throws std::invalid_argument for a shape step 3 does not take
std::string lab08_banded_report_text(int height, int width, int mask_width, const TensorCoreCeilings& ceilings,
                                     const std::string& origin, const std::string& ceilings_origin);
/// `{"format": "convlab-analyze-lab08-banded", "version": 1, ...}`
nlohmann::json lab08_banded_report_json(int height, int width, int mask_width, const TensorCoreCeilings& ceilings,
                                        const std::string& origin, const std::string& ceilings_origin);

}  // namespace convlab::analysis
