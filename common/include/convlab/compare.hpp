/// @file compare.hpp
/// @brief The one comparison rule (docs/design.md, Tolerance): every element written, finite, and within
///        `n·u·S + 1e-30` of the double reference.
///
/// Outputs are filled with NaN (all bits set, kPoisonBits) before a run, so an element the
/// kernel never wrote is recognisable: it is reported as "unwritten", distinct from a NaN or
/// infinity the kernel computed ("not finite").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "convlab/tensor.hpp"

namespace convlab {

/// Bit pattern poured into output buffers before each run (a quiet NaN).
inline constexpr std::uint32_t kPoisonBits = 0xFFFFFFFFu;

/// Unit roundoff of the arithmetic a variant uses on purpose.
struct Tolerance {
  double unit_roundoff;  ///< u
  const char* name;      ///< "fp32", "tf32" or "tf32x1"
  int min_terms = 1;     ///< n is counted as at least this (see tf32x1)
  /// float32: u = 2^-24.
  static constexpr Tolerance fp32() { return {1.0 / 16777216.0, "fp32"}; }
  /// TF32 tensor cores (10 explicit mantissa bits), one operand of each product kept exact
  /// (lab 06's stretch step splits the weights): u = 2^-11.
  static constexpr Tolerance tf32() { return {1.0 / 2048.0, "tf32"}; }
  /// TF32 tensor cores with both operands rounded (1xTF32, lab 08 step 1): each product may be
  /// off by 2u + u², so n counts as at least 3 (docs/design.md, Tolerance, derives it).
  static constexpr Tolerance tf32x1() { return {1.0 / 2048.0, "tf32x1", 3}; }
};

/// The allowed absolute error of one output: `max(n, tol.min_terms)·u·S + 1e-30`.
/// @param terms n, multiply-adds per output
/// @param abs_sum S = Σ|term|
/// @param tol the unit roundoff u of the arithmetic
double allowed_error(std::size_t terms, double abs_sum, Tolerance tol);

/// What one output element is, by the comparison rule.
enum class OutputClass : std::uint8_t {
  correct,           ///< written, finite, within the allowed error
  out_of_tolerance,  ///< written and finite, but too far from the reference
  not_finite,        ///< a NaN or infinity the kernel computed
  unwritten,         ///< still the poison pattern (kPoisonBits): never written
};

/// "correct", "out of tolerance", "not finite" or "unwritten" (the words of Mismatch::kind).
const char* output_class_name(OutputClass c);

/// Classifies one output element: the single rule compare_outputs() and the error maps share.
/// @param got what the kernel wrote
/// @param expected the reference value
/// @param allowed the allowed absolute error there (allowed_error())
OutputClass classify_output(float got, double expected, double allowed);

/// One wrong output element.
struct Mismatch {
  std::vector<std::size_t> index;  ///< its coordinates
  double expected = 0;             ///< reference value
  float got = 0;                   ///< what the kernel wrote
  double allowed = 0;              ///< allowed absolute error there
  std::string kind;                ///< "unwritten", "not finite" or "out of tolerance"
};

/// Outcome of comparing a whole output.
struct CompareResult {
  std::size_t elements = 0;       ///< outputs compared
  std::size_t bad = 0;            ///< outputs that fail (all kinds)
  std::size_t unwritten = 0;      ///< still holding the poison pattern
  std::size_t not_finite = 0;     ///< NaN or infinity written by the kernel
  double worst_error_ratio = 0;   ///< max |got-expected| / allowed over finite outputs
  std::vector<Mismatch> first;    ///< the first few mismatches, in row-major order
  std::string shape_error;        ///< non-empty when the output shape itself is wrong

  /// True when every output is written, finite and within tolerance.
  [[nodiscard]] bool ok() const { return bad == 0 && shape_error.empty(); }
  /// One line: "412 of 1961 outputs wrong (3 unwritten, 0 not finite)" or "all 1961 outputs
  /// within tolerance (worst 0.02 of allowed)".
  [[nodiscard]] std::string summary() const;
  /// The first mismatches, one per line: "(0, 7) expected 1.25 got 0.5 (allowed ±3e-07,
  /// out of tolerance)".
  [[nodiscard]] std::string details(std::size_t max_lines = 5) const;
};

/// Compares an output with its reference under the tolerance rule.
/// @param got      the kernel's output (float32)
/// @param expected the double reference, same shape
/// @param abs_sum  S per output, same shape (from conv2d_abs_sum / conv_layer_abs_sum)
/// @param terms    n, multiply-adds per output
/// @param tol      the unit roundoff u of the arithmetic
/// @param keep     how many mismatches to keep in CompareResult::first
CompareResult compare_outputs(const Tensor<float>& got, const Tensor<double>& expected,
                              const Tensor<double>& abs_sum, std::size_t terms, Tolerance tol,
                              std::size_t keep = 8);

/// Classifies every element of an output (row-major, as `got`), for an error map.
/// @throws std::invalid_argument if the shapes of `got`, `expected` and `abs_sum` differ
std::vector<OutputClass> classify_outputs(const Tensor<float>& got, const Tensor<double>& expected,
                                          const Tensor<double>& abs_sum, std::size_t terms, Tolerance tol);

}  // namespace convlab
