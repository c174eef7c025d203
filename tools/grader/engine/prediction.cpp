#include "engine/prediction.hpp"

#include <fmt/format.h>

namespace convlab::grader {

std::optional<analysis::Config> lab_analysis_config(const std::string& number, const Conv2dShape& s) {
  return analysis::config_for_lab("lab" + number, s.height, s.width, s.mask_width);
}

PredictionResult predict_lab(const std::string& number, const Conv2dShape& shape) {
  PredictionResult p;
  const std::optional<analysis::Config> config = lab_analysis_config(number, shape);
  if (!config) {
    p.unavailable = fmt::format("the analysis model covers labs 01–05, not lab {}", number);
    return p;
  }
  try {
    config->validate();
    const analysis::GridAnalysis g = analysis::analyze_grid(*config);
    p.config = config->describe();
    p.exact_reduction = g.exact_reduction();
    p.interior_reduction = g.interior_reduction;
    p.global_input_load_bytes = analysis::kBytesPerFloat * static_cast<double>(g.total.global_input_loads);
    p.global_mask_load_bytes = analysis::kBytesPerFloat * static_cast<double>(g.total.global_mask_loads);
    p.shared_load_bytes = analysis::kBytesPerFloat * static_cast<double>(g.total.shared_loads);
    p.warps = g.total.warps;
    p.divergent_warps_load = g.total.divergent_warps_load;
    p.divergent_warps_compute = g.total.divergent_warps_compute;
  } catch (const std::exception& e) {
    p.unavailable = fmt::format("the analysis model rejects {}: {}", config->describe(), e.what());
  }
  return p;
}

}  // namespace convlab::grader
