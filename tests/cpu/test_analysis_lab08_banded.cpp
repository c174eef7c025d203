// Lab 08 steps 3 and 4's analysis model: MMAs counted by hand (the half k-step's among them), the
// band's useful fraction at each K, the MMA bound at each depth's rate, the input tiles' loads at
// the image's edges, and the error bound of docs/design.md at its
// edge (within the FP32 rule from K = 7; step 3 takes K ≥ 9; step 4 from K = 13); the width of
// the input tile's copies, which must never straddle the image's edge; the band fragments, one
// per band entry, and two blocks an SM.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "convlab/analysis_banded.hpp"
#include "convlab/lab08_config.hpp"

using namespace convlab;
using namespace convlab::analysis;

TEST_CASE("lab08 banded analysis: an 8192x8192 image with K = 17 is 8192 blocks and 80,216,064 MMAs",
          "[analysis][lab08][banded]") {
  // 8192/128 · 8192/64 = 8192 blocks; per block 8 warps · 2 phases · 4 tiles · 17 mask rows ·
  // 3 k-steps · 3 products. (ncu counted the same number of tensor-pipe instructions on an H100:
  // README.)
  const BandedAnalysis a = analyze_lab08_banded(8192, 8192, 17);
  CHECK(a.blocks == 8192);
  CHECK(a.band_steps == 3);
  CHECK(a.mmas == 8192LL * 8 * 2 * 4 * 17 * 3 * 3);
  CHECK(a.mmas == 80216064);
  CHECK(a.mma_flops == Approx(2048.0 * 80216064));
  CHECK(a.useful_fmas == 8192LL * 8192 * 289);
}

TEST_CASE("lab08 banded analysis: the useful fraction is K over the band's depth, 8·S, or 8·S − 4 where the last "
          "k-step is half (K = 10 to 13)",
          "[analysis][lab08][banded]") {
  // K + 7 input columns an 8-column tile: 16 at K = 9 (two k-steps exactly), 17 to 20 at K = 10 to
  // 13 (two k-steps and half a third), 21 at K = 14 (one past it: three whole), 24 at K = 17.
  const BandedAnalysis k9 = analyze_lab08_banded(100, 100, 9);
  CHECK_FALSE(k9.half_step);
  CHECK(k9.useful_fraction == Approx(9.0 / 16));
  for (int k = 10; k <= 13; ++k) {
    INFO("K = " << k);
    const BandedAnalysis a = analyze_lab08_banded(100, 100, k);
    CHECK(a.half_step);
    CHECK(a.band_depth == 20);
    CHECK(a.useful_fraction == Approx(k / 20.0));
    CHECK(a.whole_steps_fraction == Approx(k / 24.0));
  }
  const BandedAnalysis k14 = analyze_lab08_banded(100, 100, 14);
  CHECK_FALSE(k14.half_step);
  CHECK(k14.band_depth == 24);
  CHECK(k14.useful_fraction == Approx(14.0 / 24));
  CHECK(analyze_lab08_banded(100, 100, 17).useful_fraction == Approx(17.0 / 24));
}

TEST_CASE("lab08 banded analysis: at K = 13 a third of the MMAs are m16n8k4, with half the flops, and the bound times "
          "them at their own measured rate",
          "[analysis][lab08][banded]") {
  // 8192 blocks · 8 warps · 2 phases · 4 tiles · 13 mask rows = 6,815,744 (tile, mask row)s, each 3
  // k-steps of 3 MMAs (ncu counted 61,341,696 on an H200: results/bench/nvidia-h200/lab08.md), the
  // last k-step's 3 at half depth.
  const BandedAnalysis a = analyze_lab08_banded(8192, 8192, 13);
  const long long rows = 8192LL * 8 * 2 * 4 * 13;
  CHECK(a.mmas == 61'341'696);
  CHECK(a.half_mmas == 3 * rows);
  CHECK(a.mma_flops == Approx(2048.0 * 6 * rows + 1024.0 * 3 * rows));
  CHECK(a.mixed_mmas == 6 * rows);
  CHECK(a.mixed_half_mmas == 2 * rows);
  const TensorCoreCeilings c{3.0e12, 60.0e12, 300.0e12, 200.0e12};
  CHECK(banded_bounds(a, c).mma_s == Approx(2048.0 * 6 * rows / 300e12 + 1024.0 * 3 * rows / 200e12));
  CHECK(banded_mixed_bounds(a, c).mma_s == Approx(2048.0 * 4 * rows / 300e12 + 1024.0 * 2 * rows / 200e12));
  // Without a k4 rate (a bench run from before it was measured) the half MMAs' flops go at the k8
  // rate: a lower bound, below the measured one.
  const TensorCoreCeilings old{3.0e12, 60.0e12, 300.0e12};
  CHECK(banded_bounds(a, old).mma_s == Approx(a.mma_flops / 300e12));
  CHECK(banded_bounds(a, old).mma_s < banded_bounds(a, c).mma_s);
  // K = 17 has no half step: the k4 rate changes nothing.
  const BandedAnalysis k17 = analyze_lab08_banded(8192, 8192, 17);
  CHECK(k17.half_mmas == 0);
  CHECK(banded_bounds(k17, c).mma_s == Approx(banded_bounds(k17, old).mma_s));
}

TEST_CASE("lab08 banded analysis: a tile reads only what lies inside the image", "[analysis][lab08][banded]") {
  // One block: its 73 × 144 tile (K = 10: r = 4, S = 3) starts at row and column −4, so of a 5 × 7
  // image it reads all 35 values; of a 64 × 128 image, rows 0..68 ∩ [0, 64) and columns 0..139 ∩
  // [0, 128): the whole image once.
  CHECK(analyze_lab08_banded(5, 7, 10).tile_loads == 35);
  CHECK(analyze_lab08_banded(64, 128, 10).tile_loads == 64LL * 128);
  // Two blocks down a 128-row image: the first tile reads rows 0..68 (69), the second rows 60..127
  // (68): the 9 rows around row 64 twice.
  CHECK(analyze_lab08_banded(128, 128, 10).tile_loads == (69LL + 68) * 128);
}

TEST_CASE("lab08 banded analysis: the error bound is within the FP32 rule at every K it takes, not below K = 7",
          "[analysis][lab08][banded]") {
  for (int k = lab08::kBandMinMask; k <= 17; ++k) {
    INFO("K = " << k);
    const BandedAnalysis a = analyze_lab08_banded(64, 64, k);
    CHECK(a.allowed_units == k * k);
    CHECK(a.fp32_ratio <= 1.0);
  }
  CHECK(banded_error_units(7) <= 49);  // the edge: 45 ≤ 49
  CHECK(banded_error_units(5) > 25);   // 43 > 25: why step 3 does not take small masks
  CHECK_THROWS_AS(analyze_lab08_banded(64, 64, 8), std::invalid_argument);
  CHECK_THROWS_AS(analyze_lab08_banded(0, 64, 9), std::invalid_argument);
}

TEST_CASE("lab08 banded analysis: step 4 issues two MMAs per k-step where step 3 issues three, and its bound fits the "
          "FP32 rule from K = 13, not at 12",
          "[analysis][lab08][banded]") {
  const BandedAnalysis a = analyze_lab08_banded(8192, 8192, 17);
  CHECK(a.mixed_takes);
  CHECK(a.mixed_mmas == 53'477'376);  // 80,216,064 · 2/3, as ncu counted on an H200
  CHECK(a.mixed_error_bound_units == 132 + 12 + 17);
  static_assert(lab08::kBandMixedMinMask == 13, "the edge below");
  CHECK(analyze_lab08_banded(64, 64, 13).mixed_fp32_ratio <= 1.0);  // 157 ≤ 169
  CHECK(banded_mixed_error_units(12) > 144);                        // 156 > 144: why step 4 starts at 13
  const BandedAnalysis k12 = analyze_lab08_banded(64, 64, 12);
  CHECK_FALSE(k12.mixed_takes);
  CHECK(k12.mixed_fp32_ratio > 1.0);
  const TensorCoreCeilings c{3.0e12, 60.0e12, 300.0e12};
  CHECK(banded_mixed_bounds(a, c).mma_s == Approx(banded_bounds(a, c).mma_s * 2 / 3));
}

TEST_CASE("lab08 banded tile loads are as wide as the mask's radius and the image's width allow",
          "[lab08][banded]") {
  CHECK(lab08::band_copy_floats(17, 8192) == 4);  // r = 8
  CHECK(lab08::band_copy_floats(9, 8192) == 4);   // r = 4
  CHECK(lab08::band_copy_floats(13, 8192) == 2);  // r = 6
  CHECK(lab08::band_copy_floats(11, 8192) == 1);  // r = 5
  CHECK(lab08::band_copy_floats(15, 8192) == 1);  // r = 7
  CHECK(lab08::band_copy_floats(17, 8194) == 2);  // the width, 2 past a multiple of 4
  CHECK(lab08::band_copy_floats(17, 301) == 1);   // an odd width
}

TEST_CASE("lab08 banded tile loads lie wholly inside the image or wholly in its padding, aligned to their size",
          "[lab08][banded]") {
  for (int k = lab08::kBandMinMask; k <= 17; ++k) {
    for (int width : {7, 128, 129, 258, 301, 520, 8192}) {
      const int f = lab08::band_copy_floats(k, width), r = (k - 1) / 2;
      const int cols = lab08::band_tile_cols(lab08::band_steps(k));
      for (int x0 = 0; x0 < width; x0 += lab08::kBandTileCols) {
        for (int c = 0; c < cols; c += f) {
          const int x = x0 - r + c;
          INFO("K = " << k << ", width " << width << ", load of " << f << " at column " << x);
          CHECK(((x % f) + f) % f == 0);
          const bool first_inside = x >= 0 && x < width, last_inside = x + f - 1 >= 0 && x + f - 1 < width;
          CHECK(first_inside == last_inside);
        }
      }
    }
  }
}

TEST_CASE("lab08 banded fragments: one per band entry j0 = 8s + t - g and every one of them used",
          "[lab08][banded]") {
  for (const int steps : {2, 3}) {
    INFO("S = " << steps);
    const int span = lab08::band_fragment_span(steps);
    std::vector<int> lanes(static_cast<size_t>(span), 0);  // the (s, g, t) that read each fragment
    for (int s = 0; s < steps; ++s) {
      for (int g = 0; g < 8; ++g) {
        for (int t = 0; t < 4; ++t) {
          const int index = lab08::kMmaK * s + t - g + 7;  // the kernel's lane_frags[8s] for lane (g, t)
          REQUIRE(index >= 0);
          REQUIRE(index < span);
          ++lanes[static_cast<size_t>(index)];
        }
      }
    }
    for (int index = 0; index < span; ++index) CHECK(lanes[static_cast<size_t>(index)] > 0);
  }
  CHECK(lab08::band_fragment_count(17) == 17 * 27);
  CHECK(lab08::band_fragment_count(9) == 9 * 19);
}

TEST_CASE("lab08 banded blocks: two of either step fit an H200 SM at every mask width, with the band fragments",
          "[lab08][banded]") {
  constexpr int kH200 = 233'472, kReserved = 1024;  // 228 KB an SM, 1 KB reserved a block (compute capability 9.0)
  for (int k = lab08::kBandMinMask; k <= convlab::kMaxMaskWidth; ++k) {
    INFO("K = " << k);
    CHECK(2 * (lab08::band_shared_bytes(k) + kReserved) <= kH200);
    CHECK(2 * (lab08::band_mixed_shared_bytes(k) + kReserved) <= kH200);
  }
  // Step 3 at K = 17: 80 rows of 148 floats, twice, and 17 × 27 fragments of 16 bytes.
  CHECK(lab08::band_shared_bytes(17) == 2 * 80 * 148 * 4 + 17 * 27 * 16);
}

TEST_CASE("lab08 banded: the last k-step needs only k < 4 exactly from K = 10 to 13", "[lab08][banded]") {
  for (int k = lab08::kBandMinMask; k <= convlab::kMaxMaskWidth; ++k) {
    INFO("K = " << k);
    const int s = lab08::band_steps(k) - 1;  // the last k-step: B_s[kk][n] = mask[8s + kk − n], nonzero for 0 ≤ · < K
    bool upper_half_used = false;
    for (int kk = 4; kk < lab08::kMmaK; ++kk) {
      for (int n = 0; n < lab08::kMmaN; ++n) {
        const int j = lab08::kMmaK * s + kk - n;
        upper_half_used = upper_half_used || (j >= 0 && j < k);
      }
    }
    CHECK(lab08::band_last_step_half(k) == !upper_half_used);
    CHECK(lab08::band_last_step_half(k) == (k >= 10 && k <= 13));
  }
}
