// The analysis model's prediction for a lab's kernel — the configuration it launches with
// (lab_config.hpp) on the image it is timed on — for the "predicted (analysis)" columns.
//
// Labs 01–05 have a model (analysis.hpp); labs 06 and 07 do not, and say so.
#pragma once

#include <optional>

#include "convlab/analysis.hpp"
#include "convlab/shapes.hpp"
#include "engine/grade_result.hpp"

namespace convlab::grader {

/// The model's configuration of lab `number` ("01".."05") on an H×W image with a K×K mask;
/// nullopt for a lab the model does not cover.
std::optional<analysis::Config> lab_analysis_config(const std::string& number, const Conv2dShape& shape);

/// The prediction for lab `number` on `shape`.
PredictionResult predict_lab(const std::string& number, const Conv2dShape& shape);

}  // namespace convlab::grader
