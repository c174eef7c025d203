/// @file conv2d_check.hpp
/// @brief The benchmark's correctness gate for large images: the double reference at a sample
///        of outputs (every output within K of an edge, where the ghost cells are, and a seeded
///        random sample of the interior), plus a scan of the whole output for unwritten or
///        non-finite values and a look at the guard bands. Nothing is timed until it passes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace convlab::bench {

/// How much error a method's arithmetic may make.
enum class Accuracy {
  direct,     ///< a sum of K² products in float32: |err| ≤ K²·u·S + 1e-30 per output (docs/design.md, Tolerance)
  transform,  ///< FFT or Winograd: the error scales with the largest values, not each output's
              ///< own S: |err| ≤ u·(K² + 4·log2(points))·max|N|·Σ|M| + 1e-30
};

/// What check() found.
struct CheckResult {
  std::size_t samples = 0;      ///< outputs compared with the reference
  std::size_t bad = 0;          ///< of those, out of tolerance
  std::size_t not_finite = 0;   ///< outputs anywhere that are NaN (unwritten: the poison) or ±inf
  double worst_ratio = 0;       ///< max |got - expected| / allowed over the samples
  std::string first_bad;        ///< "(row, col): expected E, got G (allowed ±A)"
  std::string accuracy;         ///< "direct" or "transform (2^N points)"
  [[nodiscard]] bool ok() const { return bad == 0 && not_finite == 0; }
  /// "ok: 612,352 samples, worst 0.03 of allowed" or what failed.
  [[nodiscard]] std::string describe() const;
};

/// The reference at the sample outputs of one problem (image, mask), made once and used for
/// every method.
class Conv2dChecker {
 public:
  /// @param image  the H×W input, on the host (row-major)
  /// @param mask   the K×K mask, on the host
  /// @param interior_samples how many interior outputs to draw (seeded)
  Conv2dChecker(const std::vector<float>& image, int height, int width, const std::vector<float>& mask,
                int mask_width, std::size_t interior_samples, std::uint64_t seed);
  ~Conv2dChecker();
  Conv2dChecker(const Conv2dChecker&) = delete;
  Conv2dChecker& operator=(const Conv2dChecker&) = delete;

  /// Compares the device output P (H×W) with the reference.
  /// @param transform_points for Accuracy::transform, the size of the transform (e.g. Hp·Wp)
  [[nodiscard]] CheckResult check(const float* P, Accuracy accuracy, double transform_points = 0) const;

  /// Outputs in the sample.
  [[nodiscard]] std::size_t samples() const { return index_.size(); }

 private:
  int height_, width_, mask_width_;
  double max_abs_input_ = 0, mask_abs_sum_ = 0;
  std::vector<std::size_t> index_;  // row·W + col, ascending
  std::vector<double> expected_, abs_sum_;
  std::size_t* index_device_ = nullptr;
  float* gathered_device_ = nullptr;
  unsigned long long* count_device_ = nullptr;
};

}  // namespace convlab::bench
