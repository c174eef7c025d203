#include "convlab/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace convlab {

double allowed_error(std::size_t terms, double abs_sum, Tolerance tol) {
  return static_cast<double>(terms) * tol.unit_roundoff * abs_sum + 1e-30;
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
    const char* kind = nullptr;
    if (!std::isfinite(g)) {
      std::uint32_t bits = 0;
      std::memcpy(&bits, &g, sizeof bits);
      if (bits == kPoisonBits) {
        kind = "unwritten";
        ++r.unwritten;
      } else {
        kind = "not finite";
        ++r.not_finite;
      }
    } else {
      const double err = std::fabs(static_cast<double>(g) - e);
      r.worst_error_ratio = std::max(r.worst_error_ratio, err / allowed);
      if (err > allowed) kind = "out of tolerance";
    }
    if (kind == nullptr) continue;
    ++r.bad;
    if (r.first.size() < keep) r.first.push_back({got.unravel(i), e, g, allowed, kind});
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
