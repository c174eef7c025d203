// describe_lab: a lab runner's description from the lab registry, so that the names a runner
// reports are the registry's (the grader and the benchmarks read the same table).
#include <fmt/format.h>

#include <stdexcept>

#include "convlab/lab_registry.hpp"
#include "convlab/runner.hpp"

namespace convlab {
namespace {

void check_count(const labs::LabEntry& lab, std::size_t functions, Problem problem) {
  if (lab.problem != problem || functions != static_cast<std::size_t>(lab.variant_count)) {
    throw std::logic_error(fmt::format("lab {}: {} {} functions registered, the lab registry lists {} {} variants",
                                       lab.number_text(), functions, problem_name(problem), lab.variant_count,
                                       problem_name(lab.problem)));
  }
}

}  // namespace

LabDescription describe_lab(const labs::LabEntry& lab, const std::vector<void (*)(const Conv2dArgs&)>& functions) {
  check_count(lab, functions.size(), Problem::conv2d);
  LabDescription d{lab.executable(), lab.title, {}, {}};
  for (std::size_t i = 0; i < functions.size(); ++i) {
    const labs::VariantEntry& v = lab.variants[i];
    d.conv2d.push_back({v.name, functions[i], lab.mask_widths, v.tolerance, v.tensor_cores});
  }
  return d;
}

LabDescription describe_lab(const labs::LabEntry& lab, const std::vector<void (*)(const ConvLayerArgs&)>& functions) {
  check_count(lab, functions.size(), Problem::conv_layer);
  LabDescription d{lab.executable(), lab.title, {}, {}};
  for (std::size_t i = 0; i < functions.size(); ++i) {
    const labs::VariantEntry& v = lab.variants[i];
    d.conv_layer.push_back({v.name, functions[i], kMaxMaskWidth, v.tolerance, v.tensor_cores});
  }
  return d;
}

}  // namespace convlab
