#include "convlab/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace convlab {

double allowed_error(std::size_t terms, double abs_sum, Tolerance tol) {
  const std::size_t n = std::max(terms, static_cast<std::size_t>(tol.min_terms));
  return static_cast<double>(n) * tol.unit_roundoff * abs_sum + 1e-30;
}

const char* output_class_name(OutputClass c) {
  switch (c) {
    case OutputClass::correct: return "correct";
    case OutputClass::out_of_tolerance: return "out of tolerance";
    case OutputClass::not_finite: return "not finite";
    case OutputClass::unwritten: return "unwritten";
  }
  return "?";
}

OutputClass classify_output(float got, double expected, double allowed) {
  if (!std::isfinite(got)) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &got, sizeof bits);
    return bits == kPoisonBits ? OutputClass::unwritten : OutputClass::not_finite;
  }
  return std::fabs(static_cast<double>(got) - expected) > allowed ? OutputClass::out_of_tolerance
                                                                  : OutputClass::correct;
}

std::vector<OutputClass> classify_outputs(const Tensor<float>& got, const Tensor<double>& expected,
                                          const Tensor<double>& abs_sum, std::size_t terms, Tolerance tol) {
  if (got.shape() != expected.shape() || got.shape() != abs_sum.shape()) {
    throw std::invalid_argument(fmt::format("classify_outputs: output shape {}, reference {}, sums {} differ",
                                            shape_string(got.shape()), shape_string(expected.shape()),
                                            shape_string(abs_sum.shape())));
  }
  std::vector<OutputClass> classes(got.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    classes[i] = classify_output(got.data()[i], expected.data()[i], allowed_error(terms, abs_sum.data()[i], tol));
  }
  return classes;
}

CompareResult compare_outputs(const Tensor<float>& got, const Tensor<double>& expected,
                              const Tensor<double>& abs_sum, std::size_t terms, Tolerance tol,
                              std::size_t keep) {
  CompareResult r;
  if (got.shape() != expected.shape()) {
    r.shape_error = fmt::format("output has shape {} but the reference has shape {}",
                                shape_string(got.shape()), shape_string(expected.shape()));
    return r;
  }
  r.elements = got.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const float g = got.data()[i];
    const double e = expected.data()[i];
    const double allowed = allowed_error(terms, abs_sum.data()[i], tol);
    const OutputClass c = classify_output(g, e, allowed);
    if (std::isfinite(g)) {
      r.worst_error_ratio = std::max(r.worst_error_ratio, std::fabs(static_cast<double>(g) - e) / allowed);
    }
    if (c == OutputClass::correct) continue;
    if (c == OutputClass::unwritten) ++r.unwritten;
    if (c == OutputClass::not_finite) ++r.not_finite;
    ++r.bad;
    if (r.first.size() < keep) r.first.push_back({got.unravel(i), e, g, allowed, output_class_name(c)});
  }
  return r;
}

std::string CompareResult::summary() const {
  if (!shape_error.empty()) return shape_error;
  if (bad == 0) {
    return fmt::format("all {} outputs within tolerance (worst error {:.2g} of allowed)", elements,
                       worst_error_ratio);
  }
  if (unwritten == elements) {
    return fmt::format("no output written: all {} outputs still hold the NaN poison", elements);
  }
  return fmt::format("{} of {} outputs wrong ({} unwritten, {} not finite, {} out of tolerance)",
                     bad, elements, unwritten, not_finite, bad - unwritten - not_finite);
}

std::string CompareResult::details(std::size_t max_lines) const {
  std::string s;
  for (std::size_t i = 0; i < first.size() && i < max_lines; ++i) {
    const Mismatch& m = first[i];
    s += fmt::format("  at {}: expected {:.9g}, got {:.9g} (allowed ±{:.3g}; {})\n",
                     index_string(m.index), m.expected, m.got, m.allowed, m.kind);
  }
  return s;
}

}  // namespace convlab
