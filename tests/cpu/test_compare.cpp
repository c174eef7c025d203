// The comparison rule: poison detection, non-finite values, and the exact tolerance edge.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#include "convlab/compare.hpp"

using namespace convlab;

namespace {

float poison() {
  float f;
  std::uint32_t bits = kPoisonBits;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

struct Fixture {
  Tensor<double> expected{{2, 3}, {1, 2, 3, 4, 5, 6}};
  Tensor<double> abs_sum{{2, 3}, {1, 2, 3, 4, 5, 6}};
  Tensor<float> got{{2, 3}, {1, 2, 3, 4, 5, 6}};
  std::size_t terms = 9;
  CompareResult run(std::size_t keep = 8) const {
    return compare_outputs(got, expected, abs_sum, terms, Tolerance::fp32(), keep);
  }
};

}  // namespace

TEST_CASE("compare: the tolerance formula is n*u*S + 1e-30", "[compare]") {
  CHECK(allowed_error(9, 2.0, Tolerance::fp32()) == 9 * 0x1p-24 * 2.0 + 1e-30);
  CHECK(allowed_error(25, 1.0, Tolerance::tf32()) == 25 * 0x1p-11 + 1e-30);
  CHECK(allowed_error(100, 0.0, Tolerance::fp32()) == 1e-30);
}

TEST_CASE("compare: 1xTF32 counts n as at least 3, the two roundings of a single product", "[compare]") {
  CHECK(allowed_error(1, 1.0, Tolerance::tf32x1()) == 3 * 0x1p-11 + 1e-30);
  CHECK(allowed_error(2, 1.0, Tolerance::tf32x1()) == 3 * 0x1p-11 + 1e-30);
  CHECK(allowed_error(3, 1.0, Tolerance::tf32x1()) == 3 * 0x1p-11 + 1e-30);
  CHECK(allowed_error(4, 1.0, Tolerance::tf32x1()) == 4 * 0x1p-11 + 1e-30);
  // The other rules take n as it is.
  CHECK(allowed_error(1, 1.0, Tolerance::tf32()) == 0x1p-11 + 1e-30);
  CHECK(allowed_error(1, 1.0, Tolerance::fp32()) == 0x1p-24 + 1e-30);
}

TEST_CASE("compare: an exact output passes and says so", "[compare]") {
  const CompareResult r = Fixture{}.run();
  CHECK(r.ok());
  CHECK(r.elements == 6);
  CHECK(r.worst_error_ratio == 0);
  CHECK_THAT(r.summary(), Catch::Contains("all 6 outputs within tolerance"));
}

TEST_CASE("compare: an untouched (poisoned) output is 'no output written'", "[compare]") {
  Fixture f;
  for (float& v : f.got.values()) v = poison();
  const CompareResult r = f.run();
  CHECK_FALSE(r.ok());
  CHECK(r.unwritten == 6);
  CHECK(r.not_finite == 0);
  CHECK_THAT(r.summary(), Catch::Contains("no output written"));
}

TEST_CASE("compare: a partially written output names the unwritten elements", "[compare]") {
  Fixture f;
  f.got.at({1, 2}) = poison();
  const CompareResult r = f.run();
  CHECK(r.bad == 1);
  CHECK(r.unwritten == 1);
  REQUIRE(r.first.size() == 1);
  CHECK(r.first[0].index == std::vector<std::size_t>{1, 2});
  CHECK(r.first[0].kind == "unwritten");
  CHECK_THAT(r.details(), Catch::Contains("at (1, 2): expected 6"));
}

TEST_CASE("compare: NaN and infinity computed by the kernel are 'not finite'", "[compare]") {
  Fixture f;
  f.got.at({0, 0}) = std::numeric_limits<float>::quiet_NaN();  // not the poison's bits
  f.got.at({0, 1}) = std::numeric_limits<float>::infinity();
  const CompareResult r = f.run();
  CHECK(r.not_finite == 2);
  CHECK(r.unwritten == 0);
  CHECK_THAT(r.summary(), Catch::Contains("2 of 6 outputs wrong (0 unwritten, 2 not finite, 0 out of tolerance)"));
}

TEST_CASE("compare: the tolerance edge, on both sides", "[compare]") {
  // Expected 0 with S = 2^20, n = 4: allowed = 4·2^-24·2^20 + 1e-30 = 0.25 (+1e-30).
  Tensor<double> expected({1}, {0.0});
  Tensor<double> S({1}, {0x1p20});
  Tensor<float> at_edge({1}, {0.25f});
  Tensor<float> beyond({1}, {std::nextafter(0.25f, 1.0f)});
  CHECK(compare_outputs(at_edge, expected, S, 4, Tolerance::fp32()).ok());
  const CompareResult r = compare_outputs(beyond, expected, S, 4, Tolerance::fp32());
  CHECK_FALSE(r.ok());
  CHECK(r.first.at(0).kind == "out of tolerance");
  CHECK(r.worst_error_ratio > 1.0);
  // The same error is fine for a TF32 variant.
  CHECK(compare_outputs(beyond, expected, S, 4, Tolerance::tf32()).ok());
  // S = 0 (all taps zero): only the 1e-30 floor is allowed.
  Tensor<double> zero({1}, {0.0});
  CHECK(compare_outputs(Tensor<float>({1}, {0.0f}), expected, zero, 4, Tolerance::fp32()).ok());
  CHECK_FALSE(compare_outputs(Tensor<float>({1}, {1e-29f}), expected, zero, 4, Tolerance::fp32()).ok());
}

TEST_CASE("compare: wrong shape, and the number of mismatches kept", "[compare]") {
  Fixture f;
  const CompareResult shape = compare_outputs(Tensor<float>({3, 2}), f.expected, f.abs_sum, 9, Tolerance::fp32());
  CHECK_FALSE(shape.ok());
  CHECK_THAT(shape.summary(), Catch::Contains("shape (3, 2)"));
  for (float& v : f.got.values()) v += 1.0f;
  const CompareResult r = f.run(2);
  CHECK(r.bad == 6);
  CHECK(r.first.size() == 2);
  CHECK(r.first[1].index == std::vector<std::size_t>{0, 1});
}
