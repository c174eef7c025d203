// Lab 08 steps 3 (one image, K ≥ 9, banded GEMMs in 3xTF32) and 4 (K ≥ 13, the small products in
// BF16) on the GPU, in process (the solution's kernel library): every mask width each takes keeps
// labs 01–07's FP32 rule, with room to spare, on images smaller than its block tile, exactly one
// tile, one past it and many tiles; a mask it does not take is refused by name.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <stdexcept>

#include "convlab/compare.hpp"
#include "convlab/datagen.hpp"
#include "convlab/lab08_config.hpp"
#include "convlab/lab_api.cuh"
#include "convlab/limits.hpp"
#include "convlab/reference.hpp"
#include "conv_layer_on_device.hpp"

using namespace convlab;

#ifdef CONVLAB_HAVE_LAB08_SOLUTION
namespace {

struct Shape {
  int height, width;
  const char* why;
};
const Shape kShapes[] = {{5, 7, "smaller than the mask"},
                         {64, 128, "exactly one block tile"},
                         {65, 129, "one row and one column past a tile"},
                         {37, 301, "odd width: every row's start misaligned, one float per copy"},
                         {70, 258, "width 2 past a multiple of 4: 8-byte copies where the radius allows 16"},
                         {300, 520, "many tiles, partial at both edges"}};
static_assert(lab08::kBandTileRows == 64 && lab08::kBandTileCols == 128, "kShapes straddle 64 × 128");

/// Every K of [first, kMaxMaskWidth] on every shape: `step` keeps the FP32 rule, not as a near miss.
void check_fp32_rule(void (*step)(const Conv2dArgs&), int first, std::uint64_t seed) {
  for (int k = first; k <= kMaxMaskWidth; ++k) {
    for (const Shape& s : kShapes) {
      const Conv2dCase c = generate_case(Conv2dSpec{fmt::format("band_k{}_{}x{}", k, s.height, s.width),
                                                    {s.height, s.width, k}, ++seed, s.why});
      INFO(c.info.name << " (" << s.why << ")");
      const Tensor<float> got = testing::run_conv2d_on_device(c, step);
      const CompareResult r = compare_outputs(got, *c.expected, conv2d_abs_sum(c.image, c.mask),
                                              c.info.conv2d.terms_per_output(), Tolerance::fp32());
      INFO(r.summary() << "\n" << r.details());
      CHECK(r.ok());
      CHECK(r.worst_error_ratio < 0.5);  // not a near miss: docs/design.md's bound is far below the rule
    }
  }
}

}  // namespace

TEST_CASE("gpu: lab 08 step 3 keeps the FP32 rule at every K from 9 to 17, inside and past its block tiles",
          "[gpu][lab08][banded]") {
  check_fp32_rule(lab08::conv2d_banded_tf32x3, lab08::kBandMinMask, 0x8A4D);
}

TEST_CASE("gpu: lab 08 step 4 keeps the FP32 rule at every K from 13 to 17, inside and past its block tiles",
          "[gpu][lab08][banded]") {
  check_fp32_rule(lab08::conv2d_banded_tf32_bf16, lab08::kBandMixedMinMask, 0x8B4D);
}

TEST_CASE("gpu: lab 08 step 3 refuses a mask narrower than 9, naming the widths it takes", "[gpu][lab08][banded]") {
  const Conv2dArgs args{nullptr, nullptr, nullptr, 64, 64, lab08::kBandMinMask - 1};
  CHECK_THROWS_WITH(lab08::conv2d_banded_tf32x3(args),
                    Catch::Contains("masks of width 9 to 17, not 8"));
}

TEST_CASE("gpu: lab 08 step 4 refuses a mask narrower than 13, naming the widths it takes", "[gpu][lab08][banded]") {
  const Conv2dArgs args{nullptr, nullptr, nullptr, 64, 64, lab08::kBandMixedMinMask - 1};
  CHECK_THROWS_WITH(lab08::conv2d_banded_tf32_bf16(args),
                    Catch::Contains("lab08 step 4 takes masks of width 13 to 17, not 12"));
}
#endif
