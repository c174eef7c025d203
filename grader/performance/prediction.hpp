// The analysis model's prediction for a lab's kernels — the configuration each variant launches
// with (lab_config.hpp, lab06_config.hpp, lab07_config.hpp and lab 07's tuning file) on the
// case it is timed on — for the "predicted (analysis)" lines, set beside "measured (ncu)".
#pragma once

#include <optional>
#include <string>

#include "convlab/analysis.hpp"
#include "convlab/autotune/tuning_file.hpp"
#include "convlab/dataset.hpp"
#include "convlab/shapes.hpp"
#include "session/grade_result.hpp"

namespace convlab::grader {

/// What a prediction depends on besides the lab.
struct PredictionContext {
  Conv2dShape conv2d;          ///< the conv2d performance case (labs 01–05, 07)
  ConvLayerShape layer;        ///< the conv-layer performance case (lab 06)
  int sm_count = 0;            ///< the GPU's SMs: lab 06 step 3's plan depends on them
  /// Lab 07's tuning file for this GPU, as the lab's launcher reads it (nullopt: none, the
  /// compiled-in defaults), and where it came from, for the report.
  std::optional<lab07::TuningTable> lab07_tuning;
  std::string lab07_tuning_source = "compiled-in defaults (no tuning file)";
};

/// The model's configuration of lab `number` ("01".."05") on an H×W image with a K×K mask;
/// nullopt for a lab the tiling model does not cover.
std::optional<analysis::Config> lab_analysis_config(const std::string& number, const Conv2dShape& shape);

/// The problem whose performance case the prediction for lab `number` is about: conv2d for
/// labs 01–05 and 07, conv layers for lab 06; nullopt for a lab the grade's prediction does not
/// cover (lab 08, whose variants solve both: `grader analyze --lab lab08` analyses its steps).
std::optional<Problem> predicted_problem(const std::string& number);

/// The prediction for lab `number` ("01".."08"; lab 08's: each step's MMAs on its own problem's
/// case, `case_id` left empty); "unavailable" for any other.
PredictionResult predict_lab(const std::string& number, const PredictionContext& context);

/// Which measured divergence metric the predicted divergent warps of lab `number` should match,
/// and why: one sentence (checked against the SASS of the solutions).
std::string divergence_basis(const std::string& number);

}  // namespace convlab::grader
