// The analysis model of labs 06 and 07 (analysis_im2col.hpp, analysis_register_tiling.hpp):
// small cases counted by hand, and the closed forms against the brute-force simulator
// (tests/support/analysis_simulator_lab06.cpp, _lab07.cpp), which runs every thread of the
// solutions' loops and also checks that the walk computes the convolution.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "analysis_simulator.hpp"
#include "convlab/analysis_im2col.hpp"
#include "convlab/analysis_register_tiling.hpp"

using namespace convlab;
using namespace convlab::analysis;
using lab07::FilterPath;
using lab07::InputPath;
using lab07::RowLoop;
using lab07::TileConfig;

namespace {

std::vector<double> random_values(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  return v;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    REQUIRE(std::abs(got[i] - want[i]) < 1e-9);
  }
}

// Lab 07's model and simulator side by side on one configuration and image.
void compare_lab07(const TileConfig& c, int height, int width, bool vec, std::mt19937_64& rng) {
  INFO(c.key() << " on " << height << "x" << width << (vec ? " vec" : " scalar"));
  const RegisterTilingAnalysis a = analyze_register_tiling(c, height, width, vec);
  const auto image = random_values(static_cast<std::size_t>(height) * width, rng);
  const auto mask = random_values(static_cast<std::size_t>(c.mask_width) * c.mask_width, rng);
  std::vector<double> out(image.size(), 0.0);
  const testing::RegisterTilingSim s = testing::simulate_register_tiling(c, height, width, a.vec, image, mask, out);
  Config plain = untiled_config(2, height, width, c.mask_width, 32, 8, false);
  check_close(out, testing::direct_convolution(plain, image, mask));
  CHECK(a.input_loads == s.input_loads);
  CHECK(a.input_load_instructions == s.input_load_instructions);
  CHECK(a.mask_loads == s.mask_loads);
  CHECK(a.fmas == s.fmas);
  CHECK(a.shared_stores == s.shared_stores);
  CHECK(a.shared_loads == s.shared_loads);
  CHECK(a.interior_blocks == s.interior_blocks);
  CHECK(a.divergent_warps == s.divergent_warps);
  CHECK(a.divergent_warps_branch == s.divergent_warps_branch);
  // The untiled kernel's loads: the in-image taps, as the lab 02 model counts them.
  CHECK(a.untiled_loads == analyze_grid(plain).total.global_input_loads);
}

}  // namespace

TEST_CASE("lab07 analysis: 4 outputs per thread, float4 loads, constant filter on a 2x8 image, by hand",
          "[analysis][lab07]") {
  const TileConfig c{3, 4, 1, 32, 1, InputPath::global, FilterPath::constant, RowLoop::unrolled};
  const RegisterTilingAnalysis a = analyze_register_tiling(c, 2, 8, true);
  // R = 1, VW = 4, LEFT = 1, CHUNKS = 3 (columns x0-4 .. x0+7), 3 window rows; grid 1×2.
  CHECK(a.vw == 4);
  CHECK(a.chunks == 3);
  CHECK(a.grid_x == 1);
  CHECK(a.grid_y == 2);
  CHECK(a.warps == 2);
  // Threads x0 = 0 and 4 stay (the rest return): chunks [-4,0) out, [0,4) and [4,8) in for x0 = 0;
  // [0,4), [4,8) in, [8,12) out for x0 = 4; rows: 2 of 3 in for either thread row.
  CHECK(a.input_load_instructions == (2 + 2) * (2 + 2));
  CHECK(a.input_loads == 64);
  CHECK(a.mask_loads == 0);
  // Compiled: chunk 0 keeps its last float, chunk 2 its first (one 4-byte load each), chunk 1
  // all four: 5 floats per row for either thread.
  CHECK(a.compiled_input_loads == (5 + 5) * (2 + 2));
  CHECK(a.global_load_bytes() == 160);
  // The untiled kernel: (8·3 - 2) in-image taps per row × (2·3 - 2) per column.
  CHECK(a.untiled_loads == 22 * 4);
  CHECK(a.reduction() == Approx(88.0 / 64.0));
  CHECK(a.fmas == 4 * 4 * 9);
  CHECK(a.patch_registers == 4 + 12);
  CHECK(a.floats_per_fma == Approx(1.0));          // 3 rows × 12 floats for 4 × 9 FMAs
  CHECK(a.load_instructions_per_fma == Approx(0.25));  // 3 rows × 3 chunks
  // Both warps split at the early return (2 of 32 lanes have an output).
  CHECK(a.divergent_warps == 2);
  CHECK(a.divergent_warps_branch == 2);
}

TEST_CASE("lab07 analysis: the H100 measurement of ncu's global-load bytes (K=5 on 2048x2048)", "[analysis][lab07]") {
  // smsp__sass_data_bytes_mem_global_op_ld.sum measured on an NVIDIA H100 80GB HBM3 by
  // `grader grade --solutions --labs 07 --profile`, compiled-in defaults: the compiler narrows
  // the 16-byte edge chunks of each window row to the 8 bytes the FMAs use.
  const TileConfig tuned = *lab07::default_config(5);
  CHECK(analyze_register_tiling(tuned, 2048, 2048, true).global_load_bytes() == 56394816.0);
  CHECK(analyze_register_tiling(lab07::force_path(tuned, "constant"), 2048, 2048, true).global_load_bytes() ==
        55847616.0);
  CHECK(analyze_register_tiling(lab07::force_path(tuned, "shared"), 2048, 2048, true).global_load_bytes() ==
        23506048.0);
}

TEST_CASE("lab07 analysis: the shfl path loads ghost-free windows in every thread, by hand", "[analysis][lab07]") {
  const TileConfig c{3, 1, 1, 32, 1, InputPath::global, FilterPath::shfl, RowLoop::unrolled};
  const RegisterTilingAnalysis a = analyze_register_tiling(c, 1, 40, false);
  // 64 threads, none returns. Columns X-1..X+1 in [0, 40): 2 (X = 0) + 3·38 + 2 (X = 39) + 1 (X = 40,
  // no output, still loads column 39) = 119; one row in.
  CHECK(a.input_loads == 119);
  CHECK(a.mask_loads == 2 * 9);  // K² per warp, lanes l < 9 of its one register
  CHECK(a.untiled_loads == 118);
  CHECK(a.fmas == 64 * 9);
  CHECK(a.divergent_warps == 2);  // lane 0 and lane 39 (in the second block) load fewer chunks
  CHECK(a.divergent_warps_branch == 0);
}

TEST_CASE("lab07 analysis: the shared tile of a 1x40 image, by hand", "[analysis][lab07]") {
  const TileConfig c{3, 1, 1, 32, 1, InputPath::shared, FilterPath::shfl, RowLoop::unrolled};
  const RegisterTilingAnalysis a = analyze_register_tiling(c, 1, 40, false);
  // Tile: 3 rows × 34 chunks per block; columns -1..32 (33 in) and 31..64 (9 in); one row in.
  CHECK(a.input_loads == 33 + 9);
  CHECK(a.shared_stores == 2 * 3 * 34);
  CHECK(a.shared_loads == 64 * 3 * 3);
  CHECK(a.mask_loads == 18);
  // 102 tile chunks over 32 threads: the fourth step has 6 → every warp splits at idx < TOTAL.
  CHECK(a.divergent_warps == 2);
}

TEST_CASE("lab07 analysis: bad configurations and images are refused with the reason", "[analysis][lab07]") {
  const TileConfig ok{3, 4, 1, 32, 1, InputPath::global, FilterPath::constant, RowLoop::unrolled};
  CHECK_THROWS_WITH(analyze_register_tiling(ok, 0, 8, true), Catch::Contains("height and width"));
  CHECK_THROWS_WITH(analyze_register_tiling(ok, 8, 10, true), Catch::Contains("multiple of the vector width 4"));
  TileConfig bad = ok;
  bad.block_x = 20;  // 20 threads: not whole warps
  CHECK_THROWS_WITH(analyze_register_tiling(bad, 8, 8, false), Catch::Contains("whole number of warps"));
  CHECK_FALSE(lab07_vector_path(ok, 10));
  CHECK(lab07_vector_path(ok, 12));
}

TEST_CASE("lab07 analysis: closed forms equal the thread-by-thread simulation", "[analysis][lab07]") {
  std::mt19937_64 rng(2026);
  const TileConfig configs[] = {
      {3, 4, 3, 64, 2, InputPath::global, FilterPath::shfl, RowLoop::unrolled},
      {2, 2, 3, 32, 1, InputPath::global, FilterPath::shfl, RowLoop::unrolled},
      {5, 4, 6, 32, 2, InputPath::global, FilterPath::constant, RowLoop::unrolled},
      {4, 4, 2, 16, 2, InputPath::global, FilterPath::constant, RowLoop::rolled},
      {7, 4, 2, 32, 1, InputPath::shared, FilterPath::shfl, RowLoop::unrolled},
      {9, 2, 3, 32, 2, InputPath::shared, FilterPath::constant, RowLoop::rolled},
      {6, 3, 2, 8, 4, InputPath::global, FilterPath::shfl, RowLoop::rolled},
      {11, 8, 1, 32, 1, InputPath::global, FilterPath::constant, RowLoop::rolled},
  };
  std::uniform_int_distribution<int> size(1, 70);
  for (const TileConfig& c : configs) {
    REQUIRE(c.check().empty());
    for (int trial = 0; trial < 6; ++trial) {
      int h = size(rng), w = size(rng);
      if (trial == 0) h = 1;  // a single row: every window row but one is a ghost
      if (trial == 1) w = c.vector_width() * 2;  // narrower than a block
      const bool vec = lab07_vector_path(c, w) && trial % 2 == 0;
      compare_lab07(c, h, w, vec, rng);
    }
    // An image with interior blocks.
    const int w = c.block_x * c.out_x * 3 + 2 * c.vector_width();
    compare_lab07(c, c.block_y * c.out_y * 3 + c.mask_width, w, lab07_vector_path(c, w), rng);
  }
}

TEST_CASE("lab06 analysis: a 3x3 image with a 3x3 mask and padding 1, by hand", "[analysis][lab06]") {
  const ConvLayerShape s{1, 1, 1, 3, 3, 3, 1, 1, 1};
  const Im2colAnalysis a = analyze_im2col(s, {64, 64, 1, 8});
  // Taps inside X per output row: 2, 3, 2 → 7; the same per column: 49 of the 81 taps.
  CHECK(a.in_x_taps == 49);
  CHECK(a.traffic.replication == Approx(9.0));
  const Im2colStep& one = a.step("unroll_gemm");
  CHECK(one.kernels == 2);
  CHECK(one.global_loads == 49 + 9 + 81);  // unroll; W once per column tile; X_unroll once per row tile
  CHECK(one.global_stores == 81 + 9);
  CHECK(one.fmas == 256 * 16);           // one 16×16 block, one 16-deep slice
  CHECK(one.useful_fmas == 81);
  CHECK(one.tile_global_per_fma == Approx(2.0 / 16));
  CHECK(one.tile_shared_per_fma == Approx(2.0));
  const Im2colStep& two = a.step("fused_gemm");
  CHECK(two.global_loads == 9 + 49);
  CHECK(two.global_stores == 9);
  CHECK(two.global_per_fma == Approx(58.0 / 4096));
  const Im2colStep& three = a.step("register_tiled");
  CHECK(three.global_loads == 0);             // cp.async only
  CHECK(three.async_copies == 2 * 64 * 8 * 2);  // A and B slices of 64×8, two slices (C·K² = 9)
  CHECK(three.async_copies_read == 9 + 49);
  CHECK(three.fmas == 64 * 64 * 8 * 2);
  CHECK(three.tile_global_per_fma == Approx(1.0 / 64 + 1.0 / 64));
  CHECK(three.tile_shared_per_fma == Approx(0.25));
  CHECK_THROWS_AS(a.step("tf32_tensor_core"), std::out_of_range);
}

TEST_CASE("lab06 analysis: step 2's warp reads a word once where taps q and q+1 of neighbouring outputs meet, by hand",
          "[analysis][lab06]") {
  // One channel, 2×4 image, K = 2, no padding: outputs (0, 0..2), taps j = p·2+q. A warp is rows
  // kb = 0,1 (taps (0,0), (0,1)) and kb = 2,3 (taps (1,0), (1,1)) of X_unroll over columns 0..2:
  // tap (0,0) reads X[0][0..2], tap (0,1) X[0][1..3], so X[0][1] and X[0][2] are read twice in
  // the first warp, and X[1][1], X[1][2] in the second.
  const ConvLayerShape s{1, 1, 1, 2, 4, 2, 1, 0, 1};
  const Im2colAnalysis a = analyze_im2col(s, {64, 64, 1, 8});
  const Im2colStep& two = a.step("fused_gemm");
  CHECK(two.global_loads == 4 + 12);      // W once; every tap of the 3 outputs inside X
  CHECK(two.load_words == 4 + 12 - 4);    // less the 4 words a second lane of the warp reads
  // Stride 2, dilation 1: the neighbouring output's tap is 2 columns on, never q+1's word.
  const ConvLayerShape strided{1, 1, 1, 2, 6, 2, 2, 0, 1};
  const Im2colAnalysis b = analyze_im2col(strided, {64, 64, 1, 8});
  const Im2colStep& apart = b.step("fused_gemm");
  CHECK(apart.load_words == apart.global_loads);
}

TEST_CASE("lab06 analysis: closed forms equal the kernels' loops on small layers", "[analysis][lab06]") {
  std::mt19937_64 rng(606);
  struct Case {
    ConvLayerShape s;
    lab06::RegisterTilePlan plan;
    int chunk;
  };
  const Case cases[] = {
      {{2, 3, 5, 7, 6, 3, 1, 1, 1}, {64, 64, 1, 8}, 1},
      {{1, 2, 17, 9, 9, 5, 2, 2, 1}, {64, 128, 1, 8}, 1},
      {{3, 1, 4, 8, 5, 3, 1, 0, 2}, {128, 64, 2, 8}, 2},
      {{1, 4, 3, 6, 6, 1, 1, 0, 1}, {64, 64, 1, 16}, 1},
      {{2, 2, 33, 5, 7, 3, 3, 4, 1}, {128, 128, 1, 8}, 2},
      {{3, 5, 33, 20, 20, 3, 1, 2, 2}, {64, 64, 1, 8}, 3},  // measured on an H100 (gpu_test_ncu.cpp)
      {{1, 3, 7, 6, 9, 2, 1, 1, 1}, {64, 64, 1, 8}, 1},     // K² even, C odd
  };
  for (const Case& k : cases) {
    INFO(k.s.describe() << " plan " << k.plan.bm << "x" << k.plan.bn << "x" << k.plan.bk << " split " << k.plan.splits);
    const Im2colAnalysis a = analyze_im2col(k.s, k.plan, k.chunk);
    const auto x = random_values(k.s.input_elements(), rng);
    const auto w = random_values(k.s.weight_elements(), rng);
    const auto want = testing::direct_conv_layer(k.s, x, w);
    std::vector<double> y(want.size(), 0.0);

    const testing::Im2colSim one = testing::simulate_unroll_gemm(k.s, k.chunk, x, w, y);
    check_close(y, want);
    CHECK(a.step("unroll_gemm").global_loads == one.global_loads);
    CHECK(a.step("unroll_gemm").load_words == one.load_words);
    CHECK(a.step("unroll_gemm").global_stores == one.global_stores);
    CHECK(a.step("unroll_gemm").fmas == one.fmas);

    std::fill(y.begin(), y.end(), 0.0);
    const testing::Im2colSim two = testing::simulate_fused_gemm(k.s, x, w, y);
    check_close(y, want);
    CHECK(a.step("fused_gemm").global_loads == two.global_loads);
    CHECK(a.step("fused_gemm").load_words == two.load_words);
    CHECK(a.step("fused_gemm").global_stores == two.global_stores);
    CHECK(a.step("fused_gemm").fmas == two.fmas);

    const testing::Im2colSim three = testing::simulate_register_tiled_gemm(k.s, k.plan, x, w, y);
    check_close(y, want);
    CHECK(a.step("register_tiled").global_loads == 0);
    CHECK(a.step("register_tiled").async_copies == three.async_copies);
    CHECK(a.step("register_tiled").async_copies_read == three.async_copies_read);
    CHECK(a.step("register_tiled").global_stores == three.global_stores);
    CHECK(a.step("register_tiled").fmas == three.fmas);
  }
}

TEST_CASE("lab06 analysis: step 3's plan is the launcher's, and bad plans are refused", "[analysis][lab06]") {
  // The rubric's timing layer on a 132-SM GPU: 4·64·64 = 16384 columns, 64 filters.
  const ConvLayerShape s{4, 32, 64, 64, 64, 3, 1, 1, 1};
  const lab06::RegisterTilePlan p = lab06::choose_register_tile_plan(s, 132, true);
  const Im2colAnalysis a = analyze_lab06(s, 132);
  CHECK(a.plan.bm == p.bm);
  CHECK(a.plan.bn == p.bn);
  CHECK(a.plan.splits == p.splits);
  CHECK_THROWS_WITH(analyze_im2col(s, {48, 64, 1, 8}), Catch::Contains("multiples of 32"));
  CHECK_THROWS_WITH(analyze_im2col(s, {64, 64, 0, 8}), Catch::Contains("at least 1"));
}
