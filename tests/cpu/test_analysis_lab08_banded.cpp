// Lab 08 steps 3 and 4's analysis model: MMAs counted by hand on both of step 3's layouts (2 × 4
// patches from kPatchMinMask, the row band below it and in step 4, the half k-step's among them),
// each layout's useful fraction at each K, the MMA bound at each depth's rate, the input tiles'
// loads at the image's edges, and the error bounds of docs/design.md at their edges (the row band
// within the FP32 rule from K = 7; step 3 takes K ≥ 9; step 4 from K = 13); the width of the input
// tile's copies, which must never straddle the image's edge; the band fragments, one per band
// entry, the patch table, and two blocks an SM.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "convlab/analysis_banded.hpp"
#include "convlab/lab08_config.hpp"

using namespace convlab;
using namespace convlab::analysis;

TEST_CASE("lab08 banded analysis: an 8192x8192 image with K = 17 is 8192 blocks and 70,778,880 MMAs on patches, "
          "where the row band takes 80,216,064",
          "[analysis][lab08][banded]") {
  // 8192/128 · 8192/64 = 8192 blocks. Patches: per block 8 warps · 2 phases · 4 strips · 9 row
  // pairs · 5 column groups · 3 products. The row band: 8 warps · 2 phases · 4 tiles · 17 mask rows
  // · 3 k-steps · 3 products (ncu counted that on an H100: README).
  const BandedAnalysis a = analyze_lab08_banded(8192, 8192, 17);
  CHECK(a.blocks == 8192);
  CHECK(a.patches);
  CHECK(a.patch_pairs == 9);
  CHECK(a.patch_groups == 5);
  CHECK(a.mmas == 8192LL * 8 * 2 * 4 * 9 * 5 * 3);
  CHECK(a.mmas == 70'778'880);
  CHECK(a.half_mmas == 0);
  CHECK(a.mma_flops == Approx(2048.0 * 70'778'880));
  CHECK(a.band_steps == 3);
  CHECK(a.row_band_mmas == 8192LL * 8 * 2 * 4 * 17 * 3 * 3);
  CHECK(a.row_band_mmas == 80'216'064);
  CHECK(a.useful_fmas == 8192LL * 8192 * 289);
}

TEST_CASE("lab08 banded analysis: step 3 runs the row band at K = 9 and patches from K = 10", "[analysis][lab08][banded]") {
  static_assert(lab08::kPatchMinMask == 10, "the edge below");
  const BandedAnalysis k9 = analyze_lab08_banded(8192, 8192, 9);
  CHECK_FALSE(k9.patches);
  CHECK(k9.mmas == k9.row_band_mmas);
  CHECK(k9.mmas == 8192LL * 8 * 2 * 4 * 9 * 2 * 3);  // two k-steps
  CHECK(k9.error_bound_units == banded_error_units(9));
  const BandedAnalysis k10 = analyze_lab08_banded(8192, 8192, 10);
  CHECK(k10.patches);
  CHECK(k10.mmas == 8192LL * 8 * 2 * 4 * 6 * 4 * 3);  // P = 6 (rows 0..10), C = 4 (columns 0..12)
  CHECK(k10.error_bound_units == patch_error_units(10));
}

TEST_CASE("lab08 banded analysis: a patch's window is (K + 1) x (K + 3) in row pairs and 4-column groups, and its "
          "useful fraction K^2/(8·P·C)",
          "[analysis][lab08][banded]") {
  // Mask rows 2p + ky − oy must reach K − 1 from oy = 0, ky = 1 (2P ≥ K + 1) and columns
  // 4c + kx − ox must reach K − 1 from ox = 0, kx = 3 and from ox = 3, kx = 3 (4C ≥ K + 3).
  for (int k = lab08::kBandMinMask; k <= 17; ++k) {
    INFO("K = " << k);
    const int p = lab08::patch_pairs(k), c = lab08::patch_groups(k);
    CHECK(2 * p >= k + 1);
    CHECK(2 * (p - 1) < k + 1);
    CHECK(4 * c >= k + 3);
    CHECK(4 * (c - 1) < k + 3);
    CHECK(lab08::patch_useful_fraction(k) == Approx(static_cast<double>(k * k) / (8 * p * c)));
    CHECK(lab08::patch_useful_fraction(k) > lab08::band_useful_fraction(k));  // fewer MMAs at every K
  }
  CHECK(lab08::patch_useful_fraction(13) == Approx(169.0 / 224));  // against the row band's 13/20
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

TEST_CASE("lab08 banded analysis: at K = 13 a third of the row band's MMAs are m16n8k4, with half the flops, and "
          "step 4's bound times them at their own measured rate, and step 3's patches have none",
          "[analysis][lab08][banded]") {
  // 8192 blocks · 8 warps · 2 phases · 4 tiles · 13 mask rows = 6,815,744 (tile, mask row)s, each 3
  // k-steps of 3 MMAs in 3xTF32 (ncu counted 61,341,696 on an H200: results/bench/nvidia-h200/lab08.md),
  // the last k-step's at half depth. Patches: 8 warps · 2 phases · 4 strips · 7 row pairs · 4
  // groups · 3 = 672 a warp, 44,040,192 (ncu's count of the scratch kernel: lab08.md).
  const BandedAnalysis a = analyze_lab08_banded(8192, 8192, 13);
  const long long rows = 8192LL * 8 * 2 * 4 * 13;
  CHECK(a.row_band_mmas == 61'341'696);
  CHECK(a.row_band_half_mmas == 3 * rows);
  CHECK(a.mmas == 44'040'192);
  CHECK(a.half_mmas == 0);
  CHECK(a.mma_flops == Approx(2048.0 * 44'040'192));
  CHECK(a.mixed_mmas == 6 * rows);
  CHECK(a.mixed_half_mmas == 2 * rows);
  const TensorCoreCeilings c{3.0e12, 60.0e12, 300.0e12, 200.0e12};
  CHECK(banded_bounds(a, c).mma_s == Approx(2048.0 * 44'040'192 / 300e12));
  CHECK(banded_mixed_bounds(a, c).mma_s == Approx(2048.0 * 4 * rows / 300e12 + 1024.0 * 2 * rows / 200e12));
  // Without a k4 rate (a bench run from before it was measured) the half MMAs' flops go at the k8
  // rate: a lower bound, below the measured one; whole MMAs alone do not change.
  const TensorCoreCeilings old{3.0e12, 60.0e12, 300.0e12};
  CHECK(banded_mixed_bounds(a, old).mma_s == Approx((2048.0 * 4 * rows + 1024.0 * 2 * rows) / 300e12));
  CHECK(banded_mixed_bounds(a, old).mma_s < banded_mixed_bounds(a, c).mma_s);
  CHECK(banded_bounds(a, c).mma_s == Approx(banded_bounds(a, old).mma_s));
}

TEST_CASE("lab08 banded analysis: a tile reads only what lies inside the image", "[analysis][lab08][banded]") {
  // The row band at K = 9: one block's 72 × 136 tile (r = 4, S = 2) starts at row and column −4,
  // so of a 5 × 7 image it reads all 35 values; of a 64 × 128 image, rows 0..67 ∩ [0, 64) and
  // columns 0..131 ∩ [0, 128): the whole image once.
  CHECK(analyze_lab08_banded(5, 7, 9).tile_loads == 35);
  CHECK(analyze_lab08_banded(64, 128, 9).tile_loads == 64LL * 128);
  // Two blocks down a 128-row image: the first tile reads rows 0..67 (68), the second rows 60..127
  // (68): the 8 rows around row 64 twice.
  CHECK(analyze_lab08_banded(128, 128, 9).tile_loads == (68LL + 68) * 128);
  // Patches at K = 10 (r = 4, P = 6, C = 4): a 74 × 140 tile from row and column −4, a row more
  // than the row band's 64 + K − 1 = 73, since a window of 6 row pairs is 12 rows where the mask
  // needs 11: the first block reads rows 0..69 (70), the second rows 60..127 (68).
  CHECK(lab08::patch_tile_rows(10) == 74);
  CHECK(analyze_lab08_banded(5, 7, 10).tile_loads == 35);
  CHECK(analyze_lab08_banded(128, 128, 10).tile_loads == (70LL + 68) * 128);
}

TEST_CASE("lab08 banded analysis: the error bound is within the FP32 rule at every K it takes, not below K = 7",
          "[analysis][lab08][banded]") {
  for (int k = lab08::kBandMinMask; k <= 17; ++k) {
    INFO("K = " << k);
    const BandedAnalysis a = analyze_lab08_banded(64, 64, k);
    CHECK(a.allowed_units == k * k);
    CHECK(a.fp32_ratio <= 1.0);
    CHECK(patch_error_units(k) <= k * k);  // both layouts, whichever runs
    CHECK(banded_error_units(k) <= k * k);
  }
  CHECK(patch_error_units(13) == 20 + 6 * 4 + 7);
  CHECK(patch_error_units(17) == 20 + 6 * 5 + 9);
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
  CHECK(a.mixed_mmas == 53'477'376);  // the row band's 80,216,064 · 2/3, as ncu counted on an H200
  CHECK(a.mixed_error_bound_units == 132 + 12 + 17);
  static_assert(lab08::kBandMixedMinMask == 13, "the edge below");
  CHECK(analyze_lab08_banded(64, 64, 13).mixed_fp32_ratio <= 1.0);  // 157 ≤ 169
  CHECK(banded_mixed_error_units(12) > 144);                        // 156 > 144: why step 4 starts at 13
  const BandedAnalysis k12 = analyze_lab08_banded(64, 64, 12);
  CHECK_FALSE(k12.mixed_takes);
  CHECK(k12.mixed_fp32_ratio > 1.0);
  const TensorCoreCeilings c{3.0e12, 60.0e12, 300.0e12};
  CHECK(banded_mixed_bounds(a, c).mma_s == Approx(2048.0 * a.row_band_mmas / 300e12 * 2 / 3));
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
  // The row band at K = 17: 80 rows of 148 floats, twice, and 17 × 27 fragments of 16 bytes.
  CHECK(lab08::band_shared_bytes(17) == 2 * 80 * 148 * 4 + 17 * 27 * 16);
  for (int k = lab08::kPatchMinMask; k <= convlab::kMaxMaskWidth; ++k) {
    INFO("K = " << k);
    CHECK(2 * (lab08::patch_shared_bytes(k) + kReserved) <= kH200);
  }
  // Patches at K = 17: 80 rows (4 quarters of 20) of 148 floats, twice, and a table of 18 rows
  // (i = −1 .. 16) × 23 columns (j = −3 .. 19) of 16 bytes.
  CHECK(lab08::patch_tile_rows(17) == 80);
  CHECK(lab08::patch_shared_bytes(17) == 2 * 80 * 148 * 4 + 18 * 23 * 16);
}

TEST_CASE("lab08 patch table: every lane's entry at every row pair and column group lies in the table, and every "
          "entry is some lane's",
          "[lab08][banded]") {
  // Lane (g, t) at pair p, group c reads entry (2p − oy + 1)·TW + 4c + t − ox + 3 (oy = g / 4,
  // ox = g % 4), as patch_conv2d's lane_table does.
  for (int k : {10, 13, 14, 17}) {
    INFO("K = " << k);
    const int p_count = lab08::patch_pairs(k), c_count = lab08::patch_groups(k);
    const int tw = lab08::patch_table_width(c_count), n = lab08::patch_table_count(k);
    std::vector<int> used(static_cast<size_t>(n), 0);
    for (int p = 0; p < p_count; ++p) {
      for (int c = 0; c < c_count; ++c) {
        for (int lane = 0; lane < 32; ++lane) {
          const int g = lane / 4, t = lane % 4;
          const int e = (2 * p - g / 4 + 1) * tw + 4 * c + t - g % 4 + 3;
          REQUIRE(e >= 0);
          REQUIRE(e < n);
          ++used[static_cast<size_t>(e)];
        }
      }
    }
    for (int e = 0; e < n; ++e) CHECK(used[static_cast<size_t>(e)] > 0);
  }
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
