// The analysis model (grader/model/include/convlab/analysis.hpp): its closed forms against a
// brute-force simulation of the kernels, and the numbers the lectures and the GPU pin down.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "analysis_simulator.hpp"
#include "convlab/analysis.hpp"
#include "convlab/lab_config.hpp"

using namespace convlab::analysis;
using convlab::testing::direct_convolution;
using convlab::testing::simulate_block;
using convlab::testing::simulate_grid;

namespace {

/// Small integers, so that the simulated kernels and the direct convolution agree exactly.
std::vector<double> small_integers(std::size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(-4, 4);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  return v;
}

/// A random small configuration: odd and even sizes and masks, 1D and 2D, tiles larger than
/// the image, blocks that are not multiples of a warp.
Config random_config(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const auto strategies = all_strategies();
  const Strategy s = strategies[pick(0, static_cast<int>(strategies.size()) - 1)];
  const int dims = pick(1, 2);
  const int k = pick(1, 7);
  Config c;
  if (dims == 1) {
    const int n = pick(1, 150);
    if (s == Strategy::untiled || s == Strategy::untiled_global_mask) {
      c = untiled_config(1, 1, n, k, pick(1, 96), 1, s == Strategy::untiled_global_mask);
    } else {
      c = config_1d(s, n, k, s == Strategy::tiled2 ? pick(k, k + 70) : pick(1, 70));
    }
  } else {
    const int h = pick(1, 37), w = pick(1, 37);
    if (s == Strategy::untiled || s == Strategy::untiled_global_mask) {
      c = untiled_config(2, h, w, k, pick(1, 40), pick(1, 12), s == Strategy::untiled_global_mask);
    } else {
      const int lo = s == Strategy::tiled2 ? k : 1;
      c = config_2d(s, h, w, k, pick(lo, lo + 17));
      if (pick(0, 3) == 0) c.tile_y = pick(lo, lo + 9);  // a rectangular tile now and then
      if (pick(0, 7) == 0) c.tile_x = lo + 31;            // whole-warp rows, as in the labs
    }
  }
  return c;
}

}  // namespace

TEST_CASE("analysis: closed forms equal a thread-by-thread simulation", "[analysis]") {
  std::mt19937 rng(20240531);
  int blocks_checked = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const Config c = random_config(rng);
    INFO(c.describe());
    REQUIRE_NOTHROW(c.validate());
    const auto image = small_integers(static_cast<std::size_t>(c.height) * c.width, rng);
    const auto mask = small_integers(static_cast<std::size_t>(c.mask_x()) * c.mask_y(), rng);
    std::vector<double> out(image.size(), std::nan(""));

    Counts sum_of_blocks;
    for (int by = 0; by < c.grid_y(); ++by) {
      for (int bx = 0; bx < c.grid_x(); ++bx) {
        INFO("block (" << bx << "," << by << ")");
        const BlockAnalysis model = analyze_block(c, bx, by);
        const auto sim = simulate_block(c, bx, by, image, mask, out);
        CHECK(model.counts.outputs == sim.counts.outputs);
        CHECK(model.counts.global_input_loads == sim.counts.global_input_loads);
        CHECK(model.counts.global_mask_loads == sim.counts.global_mask_loads);
        CHECK(model.counts.shared_stores == sim.counts.shared_stores);
        CHECK(model.counts.shared_loads == sim.counts.shared_loads);
        CHECK(model.counts.untiled_equivalent == sim.counts.untiled_equivalent);
        CHECK(model.counts.divergent_warps_load == sim.counts.divergent_warps_load);
        CHECK(model.counts.divergent_warps_compute == sim.counts.divergent_warps_compute);
        CHECK(model.counts.divergent_warps_any == sim.counts.divergent_warps_any);
        CHECK(model.counts == sim.counts);
        CHECK(model.untiled_equivalent_per_row == sim.untiled_per_row);
        CHECK(model.interior == sim.interior);
        sum_of_blocks += model.counts;
        ++blocks_checked;
      }
    }
    // The simulated kernel really is the convolution: the model counts a correct kernel.
    CHECK(out == direct_convolution(c, image, mask));
    // The grid analysis (one block per class) adds up to the same totals.
    const GridAnalysis g = analyze_grid(c);
    CHECK(g.total == sum_of_blocks);
    CHECK(g.interior_blocks + g.boundary_blocks == g.total.blocks);
    Counts rebuilt = g.interior_block.scaled(g.interior_blocks);
    rebuilt += g.boundary_total;
    CHECK(rebuilt == g.total);
  }
  CHECK(blocks_checked > 2000);
}

TEST_CASE("analysis: divergence cases the random configurations rarely reach", "[analysis]") {
  std::mt19937 rng(11);
  auto model_equals_simulation = [&](const Config& c, int bx, int by) {
    INFO(c.describe() << " block (" << bx << "," << by << ")");
    const auto image = small_integers(static_cast<std::size_t>(c.height) * c.width, rng);
    const auto mask = small_integers(static_cast<std::size_t>(c.mask_x()) * c.mask_y(), rng);
    std::vector<double> out(image.size());
    const auto sim = simulate_block(c, bx, by, image, mask, out);
    const auto model = analyze_block(c, bx, by);
    CHECK(model.counts == sim.counts);
    return model.counts;
  };
  // Strategy 1: the strided load loop's last pass stops inside one warp (IN² mod T² is not a
  // multiple of 32), so exactly one warp of an interior block diverges while loading.
  CHECK(model_equals_simulation(config_2d(Strategy::tiled1, 24, 24, 5, 8), 1, 1).divergent_warps_load == 1);
  CHECK(model_equals_simulation(config_2d(Strategy::tiled1, 48, 48, 5, 16), 1, 1).divergent_warps_load == 1);
  CHECK(model_equals_simulation(config_2d(Strategy::tiled1, 96, 96, 5, 32), 1, 1).divergent_warps_load == 1);
  // IN² = 33² = 1089 = 1024 + 65: the second pass ends inside warp 2.
  CHECK(model_equals_simulation(config_2d(Strategy::tiled1, 96, 96, 2, 32), 1, 1).divergent_warps_load == 1);
  // K = 1: one pass, no halo, no divergence at all.
  CHECK(model_equals_simulation(config_2d(Strategy::tiled1, 96, 96, 1, 32), 1, 1).divergent_warps_any == 0);
  // Strategy 3, K = 2 (r = 0, no left halo), a 64×16 tile whose block 1 ends 32 columns into
  // the image: warp 0 of the bottom row goes the same way at the core/halo branch of every
  // tap, but at tap (1,1) (a row below the core) its last thread's input is a ghost while the
  // others read the halo: divergence at the inner branch only.
  Config wide = config_2d(Strategy::tiled3, 64, 96, 2, 64);
  wide.tile_y = 16;
  const Counts edge = model_equals_simulation(wide, 1, 0);
  CHECK(edge.divergent_warps_compute == 1);
  CHECK(edge.divergent_warps_load == 0);
}

TEST_CASE("analysis: whole-grid simulation on lab-sized blocks", "[analysis]") {
  // The labs' own block shapes, on awkward sizes, including an image smaller than the mask.
  std::mt19937 rng(7);
  using namespace convlab::config;
  for (const auto& [h, w, k] : {std::tuple{37, 53, 5}, {64, 64, 3}, {5, 3, 7}, {33, 95, 9}}) {
    const std::vector<Config> configs = {
        untiled_config(2, h, w, k, kUntiledBlockX, kUntiledBlockY, true),
        untiled_config(2, h, w, k, kUntiledBlockX, kUntiledBlockY, false),
        config_2d(Strategy::tiled1, h, w, k, kLab03TileWidth),
        config_2d(Strategy::tiled2, h, w, k, kLab04InTile),
        config_2d(Strategy::tiled3, h, w, k, kLab05TileWidth)};
    for (const Config& c : configs) {
      INFO(c.describe());
      const auto image = small_integers(static_cast<std::size_t>(h) * w, rng);
      const auto mask = small_integers(static_cast<std::size_t>(k) * k, rng);
      std::vector<double> out(image.size(), std::nan(""));
      const auto sim = simulate_grid(c, image, mask, out);
      CHECK(analyze_grid(c).total == sim.counts);
      CHECK(out == direct_convolution(c, image, mask));
    }
  }
}

TEST_CASE("analysis: the H200 measurement of docs/design.md, GPU facts", "[analysis]") {
  // ncu, 2048² image, K = 5, mask in constant memory: thread-level global-load bytes.
  const GridAnalysis naive = analyze_grid(untiled_config(2, 2048, 2048, 5, 32, 8, false));
  const GridAnalysis tiled = analyze_grid(config_2d(Strategy::tiled1, 2048, 2048, 5, 16));
  CHECK(4 * naive.total.global_input_loads == 418'939'024LL);  // 4·10234²
  CHECK(4 * tiled.total.global_input_loads == 26'132'544LL);   // 4·2556²
  CHECK(tiled.exact_reduction() == Approx(16.031).epsilon(1e-4));
  CHECK(naive.total.global_mask_loads == 0);
  CHECK(naive.total.global_loads() == naive.total.global_input_loads);
  // Lab 01 also reads the mask from global memory, one warp-wide load per in-image tap.
  // Measured with ncu on an H200 (solution01, no_restrict and both_restrict alike):
  //   2048² K=5: 432,038,544 bytes;  1000×1500 K=3: 55,630,888 bytes.
  const GridAnalysis lab01 = analyze_grid(untiled_config(2, 2048, 2048, 5, 32, 8, true));
  CHECK(4 * lab01.total.global_loads() == 432'038'544LL);
  CHECK(4 * analyze_grid(untiled_config(2, 1000, 1500, 3, 32, 8, true)).total.global_loads() == 55'630'888LL);
  // Per thread it would be 25 per output: the warp-wide broadcast divides that by ~32.
  CHECK(lab01.total.global_mask_loads < 2048LL * 2048 * 25 / 31);
  // The untiled kernel's loads are what tiling replaces.
  CHECK(tiled.total.untiled_equivalent == naive.total.global_input_loads);
  // The interior-tile formula overestimates the whole image: boundary tiles load fewer inputs
  // but replace even fewer accesses.
  CHECK(tiled.interior_reduction == Approx(16.0));
}

TEST_CASE("analysis: lecture problem 1 (strategy 1, 32x32 image, 5x5 mask, 16x16 tile)",
          "[analysis]") {
  const BlockAnalysis b = analyze_block(config_2d(Strategy::tiled1, 32, 32, 5, 16), 0, 0);
  REQUIRE(b.untiled_equivalent_per_row.size() == 16);
  CHECK(b.untiled_equivalent_per_row[0] == 9 + 12 + 15 * 14);
  CHECK(b.untiled_equivalent_per_row[1] == 12 + 16 + 20 * 14);
  for (int row = 2; row < 16; ++row) CHECK(b.untiled_equivalent_per_row[row] == 15 + 20 + 25 * 14);
  CHECK(b.counts.untiled_equivalent == 5929);
  CHECK(b.counts.global_input_loads == 18 * 18);
  CHECK(b.counts.bandwidth_reduction() == Approx(5929.0 / 324.0));
  CHECK_FALSE(b.interior);
}

TEST_CASE("analysis: lecture problem 2 (strategy 2, 32x32 block, 3x3 mask)", "[analysis]") {
  // The slide's picture: warps 0 and 31 load ghosts and compute nothing, i.e. a 30×30 image.
  const BlockAnalysis alone = analyze_block(config_2d(Strategy::tiled2, 30, 30, 3, 32), 0, 0);
  CHECK(alone.counts.warps == 32);
  CHECK(alone.counts.divergent_warps_any == 30);
  CHECK(alone.counts.divergent_warps_compute == 30);
  CHECK(alone.counts.divergent_warps_load == 30);
  // An interior block of a larger image: the load is uniform, the compute still diverges.
  const BlockAnalysis inner = analyze_block(config_2d(Strategy::tiled2, 90, 90, 3, 32), 1, 1);
  CHECK(inner.interior);
  CHECK(inner.counts.divergent_warps_load == 0);
  CHECK(inner.counts.divergent_warps_compute == 30);
  CHECK(inner.counts.outputs == 900);
}

TEST_CASE("analysis: the 1D and 2D examples of the tiling lecture", "[analysis]") {
  const Config c1 = config_1d(Strategy::tiled1, 24, 5, 8);
  const BlockAnalysis interior = analyze_block(c1, 1, 0);
  CHECK(interior.interior);
  CHECK(interior.counts.global_input_loads == 12);
  CHECK(interior.counts.untiled_equivalent == 40);
  const BlockAnalysis left = analyze_block(c1, 0, 0);
  CHECK(left.counts.global_input_loads == 10);
  CHECK(left.counts.untiled_equivalent == 37);  // 6·5 + 4 + 3
  CHECK(left.counts.bandwidth_reduction() == Approx(3.7));
  // The slide's claim holds for every N ≥ 18 (block 1 needs inputs 6..17).
  for (int n = 18; n < 60; ++n) {
    CHECK(analyze_block(config_1d(Strategy::tiled1, n, 5, 8), 1, 0).counts.untiled_equivalent == 40);
    CHECK(analyze_block(config_1d(Strategy::tiled1, n, 5, 8), 0, 0).counts.global_input_loads == 10);
  }
  const BlockAnalysis b8 = analyze_block(config_2d(Strategy::tiled1, 24, 24, 5, 8), 1, 1);
  CHECK(b8.counts.global_input_loads == 144);
  CHECK(b8.counts.untiled_equivalent == 1600);
  const BlockAnalysis corner = analyze_block(config_2d(Strategy::tiled1, 24, 24, 5, 8), 0, 0);
  CHECK(corner.counts.global_input_loads == 100);
  CHECK(corner.counts.untiled_equivalent == 37 * 37);
}

TEST_CASE("analysis: the interior reduction is the lecture's formula", "[analysis]") {
  for (int k = 1; k <= 9; ++k) {
    for (int t : {1, 2, 5, 8, 16, 32}) {
      INFO("T=" << t << " K=" << k);
      CHECK(analyze_grid(config_1d(Strategy::tiled1, 7, k, t)).interior_reduction ==
            Approx(lecture_reduction(1, t, k)));
      CHECK(analyze_grid(config_2d(Strategy::tiled1, 3, 5, k, t)).interior_reduction ==
            Approx(lecture_reduction(2, t, k)));
      // Strategy 2 with input tile I has output tile I-K+1.
      const int in_tile = t + k - 1;
      CHECK(analyze_grid(config_2d(Strategy::tiled2, 200, 200, k, in_tile)).interior_reduction ==
            Approx(lecture_reduction(2, t, k)));
    }
  }
  CHECK(lecture_reduction(2, 8, 5) == Approx(1600.0 / 144.0));
  CHECK(lecture_reduction_2d(16, 16, 5) == Approx(lecture_reduction(2, 16, 5)));
  CHECK(lecture_reduction_2d(58, 122, 7) == Approx(406.0 / 64.0 * 854.0 / 128.0));
}

TEST_CASE("analysis: counts on a large image need no per-block work", "[analysis]") {
  const GridAnalysis g = analyze_grid(config_2d(Strategy::tiled3, 8192, 8192, 17, 32));
  CHECK(g.total.blocks == 256 * 256);
  CHECK(g.classes.size() == 9);  // corner, edge and interior along each axis
  CHECK(g.interior_blocks == 254 * 254);
  CHECK(g.total.outputs == 8192LL * 8192);
  // The untiled-equivalent count is separable: (Σ per-column taps)².
  const long long per_axis = 8192LL * 17 - 2 * (8 * 9 / 2);
  CHECK(g.total.untiled_equivalent == per_axis * per_axis);
}

TEST_CASE("analysis: configurations are validated", "[analysis]") {
  CHECK_THROWS_AS(config_2d(Strategy::tiled2, 10, 10, 5, 4).validate(), std::invalid_argument);
  CHECK_THROWS_AS(config_2d(Strategy::tiled1, 0, 10, 5, 4).validate(), std::invalid_argument);
  CHECK_THROWS_AS(config_2d(Strategy::tiled1, 10, 10, 0, 4).validate(), std::invalid_argument);
  Config one_d = config_1d(Strategy::tiled1, 10, 3, 4);
  one_d.height = 2;
  CHECK_THROWS_AS(one_d.validate(), std::invalid_argument);
  CHECK_THROWS_AS(analyze_block(config_2d(Strategy::tiled1, 32, 32, 5, 16), 2, 0), std::out_of_range);
  CHECK_FALSE(config_2d(Strategy::tiled1, 64, 64, 3, 64).launchable());
  CHECK(config_2d(Strategy::tiled2, 64, 64, 3, 32).launchable());
  CHECK(parse_strategy("tiled2") == Strategy::tiled2);
  CHECK_FALSE(parse_strategy("tiled4").has_value());
  for (Strategy s : all_strategies()) CHECK(parse_strategy(strategy_name(s)) == s);
}

TEST_CASE("analysis: machine balance, roofline, the talk and the paper", "[analysis]") {
  const Machine gpu2010{"~2010", 150e9, 1000e9};
  CHECK(untiled_bytes_per_flop() == 2.0);
  // The paper's footnote 1 (docs/sources.md, Errata): Fermi 1536, Kepler 2048 threads per SM.
  CHECK(max_resident_threads_per_sm(2, 0) == 1536);
  CHECK(max_resident_threads_per_sm(3, 5) == 2048);
  CHECK(max_resident_threads_per_sm(9, 0) == 2048);
  CHECK_THROWS_AS(max_resident_threads_per_sm(1, 3), std::out_of_range);
  CHECK(bandwidth_limited_flops(gpu2010, 1.0) == Approx(75e9));
  CHECK(percent_of_peak(gpu2010, 1.0) == Approx(7.5));
  CHECK(percent_of_peak(gpu2010, 100.0) == 100.0);
  CHECK(reuse_for_peak(gpu2010) == Approx(13.333).epsilon(1e-4));
  CHECK(roofline_flops(gpu2010, 1.0) == Approx(150e9));
  CHECK(roofline_flops(gpu2010, 100.0) == Approx(1000e9));

  const Machine k20{"K20", 208e9, 3521e9};
  CHECK(floats_per_second(k20) == Approx(52e9));
  CHECK(flops_per_float(k20) == Approx(3521.0 / 52.0));
  CHECK(break_even_mask_width(k20, 1) == Approx(std::sqrt(3521.0 / 52.0 / 2.0)));
  CHECK(break_even_mask_width(k20, 2) == Approx(std::sqrt(3521.0 / 52.0)));
  CHECK(utilization_bound(2.0, 6.0) == Approx(1.0 / 12.0));
  CHECK(utilization_bound(1.0, 6.0) == Approx(1.0 / 6.0));
  CHECK(utilization_bound(1.0 / 7.0, 6.0) == 1.0);
  CHECK(register_blocking_fma_per_load(5, 1) == Approx(1.0));
  CHECK(register_blocking_fma_per_load(5, 4) == Approx(2.5));
  CHECK(register_blocking_fma_per_load(5, 100000) == Approx(5.0).epsilon(1e-3));

  CHECK(bandwidth_bound_seconds(9216LL * 9216, 90.4e9) == Approx(679'477'248.0 / 90.4e9));
  // 107% on the GTX680 means 1.07 times faster than the bound.
  const double bound = bandwidth_bound_seconds(9216LL * 9216, 123e9);
  CHECK(percent_of_bandwidth_bound(bound / 1.07, 9216LL * 9216, 123e9) == Approx(107.0));

  convlab::ConvLayerShape layer;
  layer.channels = 3;
  layer.height = layer.width = 3;
  layer.mask_width = 2;
  const Im2colTraffic t = im2col_traffic(layer);
  CHECK(t.original_elements == 27);
  CHECK(t.unrolled_elements == 48);  // C·K²·Ho·Wo = 3·4·2·2
  CHECK(t.replication == Approx(48.0 / 27.0));
  CHECK(t.extra_bytes == 2 * 4 * 48);
}
