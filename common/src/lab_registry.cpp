// describe_lab: a lab runner's description from the lab registry, so that the names a runner
// reports are the registry's (the grader and the benchmarks read the same table).
#include <fmt/format.h>

#include <stdexcept>

#include "convlab/lab_registry.hpp"
#include "convlab/runner.hpp"

namespace convlab {
namespace {

// A lab main that registers another number of functions of a problem than the registry lists
// would pair names with the wrong functions: it stops at start-up, before any report.
void check_count(const labs::LabEntry& lab, std::size_t functions, Problem problem) {
  const int listed = lab.variant_count_of(problem);
  if (functions != static_cast<std::size_t>(listed)) {
    throw std::logic_error(fmt::format("lab {}: {} {} functions registered, the lab registry lists {} {} variants",
                                       lab.number_text(), functions, problem_name(problem), listed,
                                       problem_name(problem)));
  }
}

}  // namespace

LabDescription describe_lab(const labs::LabEntry& lab, const std::vector<void (*)(const Conv2dArgs&)>& conv2d,
                            const std::vector<void (*)(const ConvLayerArgs&)>& conv_layer) {
  check_count(lab, conv2d.size(), Problem::conv2d);
  check_count(lab, conv_layer.size(), Problem::conv_layer);
  LabDescription d{lab.executable(), lab.title, {}, {}};
  // Each problem's functions pair, in order, with the registry's variants of that problem.
  for (int i = 0; i < lab.variant_count; ++i) {
    const labs::VariantEntry& v = lab.variants[static_cast<std::size_t>(i)];
    if (lab.problem_of(v) == Problem::conv2d) {
      d.conv2d.push_back({v.name, conv2d[d.conv2d.size()], lab.mask_widths_of(v), v.tolerance, v.tensor_cores,
                          v.compute_capability});
    } else {
      d.conv_layer.push_back({v.name, conv_layer[d.conv_layer.size()], kMaxMaskWidth, v.tolerance, v.tensor_cores,
                              v.compute_capability});
    }
  }
  return d;
}

LabDescription describe_lab(const labs::LabEntry& lab, const std::vector<void (*)(const Conv2dArgs&)>& functions) {
  return describe_lab(lab, functions, {});
}

LabDescription describe_lab(const labs::LabEntry& lab, const std::vector<void (*)(const ConvLayerArgs&)>& functions) {
  return describe_lab(lab, {}, functions);
}

}  // namespace convlab
