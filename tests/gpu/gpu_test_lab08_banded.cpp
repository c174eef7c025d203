// Lab 08 step 3 (one image, K ≥ 9, banded GEMMs in 3xTF32) on the GPU, in process (the
// solution's kernel library): every mask width it takes keeps labs 01–07's FP32 rule, with room
// to spare, on images smaller than its block tile, exactly one tile, one past it and many
// tiles; a mask it does not take is refused by name.
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
TEST_CASE("gpu: lab 08 step 3 keeps the FP32 rule at every K from 9 to 17, inside and past its block tiles",
          "[gpu][lab08][banded]") {
  static_assert(lab08::kBandTileRows == 64 && lab08::kBandTileCols == 128, "the shapes below straddle 64 × 128");
  struct Shape {
    int height, width;
    const char* why;
  };
  const Shape shapes[] = {{5, 7, "smaller than the mask"},
                          {64, 128, "exactly one block tile"},
                          {65, 129, "one row and one column past a tile"},
                          {37, 301, "odd width: every row's start misaligned"},
                          {300, 520, "many tiles, partial at both edges"}};
  std::uint64_t seed = 0x8A4D;
  for (int k = lab08::kBandMinMask; k <= kMaxMaskWidth; ++k) {
    for (const Shape& s : shapes) {
      const Conv2dCase c = generate_case(Conv2dSpec{fmt::format("band_k{}_{}x{}", k, s.height, s.width),
                                                    {s.height, s.width, k}, ++seed, s.why});
      INFO(c.info.name << " (" << s.why << ")");
      const Tensor<float> got = testing::run_conv2d_on_device(c, lab08::conv2d_banded_tf32x3);
      const CompareResult r = compare_outputs(got, *c.expected, conv2d_abs_sum(c.image, c.mask),
                                              c.info.conv2d.terms_per_output(), Tolerance::fp32());
      INFO(r.summary() << "\n" << r.details());
      CHECK(r.ok());
      CHECK(r.worst_error_ratio < 0.5);  // not a near miss: docs/design.md's bound is far below the rule
    }
  }
}

TEST_CASE("gpu: lab 08 step 3 refuses a mask narrower than 9, naming the widths it takes", "[gpu][lab08][banded]") {
  const Conv2dArgs args{nullptr, nullptr, nullptr, 64, 64, lab08::kBandMinMask - 1};
  CHECK_THROWS_WITH(lab08::conv2d_banded_tf32x3(args),
                    Catch::Contains("masks of width 9 to 17, not 8"));
}
#endif
