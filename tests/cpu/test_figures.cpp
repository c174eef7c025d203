// The slides' diagrams (grader/docgen/figures.hpp): drawn from the sizes they are given,
// so that a change of tile size in lab_config.hpp or of lab 07's patch redraws them; and the
// registry draws them with the code's own sizes.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "convlab/lab07_config.hpp"
#include "convlab/lab_config.hpp"
#include "docgen/figures.hpp"

using namespace convlab::grader::figures;

namespace {

/// The number of <rect> elements filled with `fill`.
long count_fill(const std::string& svg, const std::string& fill) {
  const std::string needle = fmt::format("fill=\"{}\" stroke=\"none\"", fill);
  long n = 0;
  for (auto at = svg.find(needle); at != std::string::npos; at = svg.find(needle, at + 1)) ++n;
  return n;
}

bool has_text(const std::string& svg, const std::string& text) { return svg.find(">" + text + "<") != std::string::npos; }

}  // namespace

TEST_CASE("figures: strategy 1 draws (T+K-1)² input cells, shaded by load step", "[figures]") {
  const Diagram d32 = tiling_strategy_1(32, 5);
  // 36² = 1,296 cells: 1,024 in step 1 (blue), 272 in step 2 (orange).
  CHECK(count_fill(d32.svg, "#9ecae1") == 1024);
  CHECK(count_fill(d32.svg, "#fdae6b") == 272);
  CHECK(has_text(d32.svg, "load step 2: 272 of 1024 threads busy (27%)"));
  // A smaller tile redraws: 16 + 4 = 20, 400 cells, 256 + 144 in two steps.
  const Diagram d16 = tiling_strategy_1(16, 5);
  CHECK(count_fill(d16.svg, "#9ecae1") == 256);
  CHECK(count_fill(d16.svg, "#fdae6b") == 144);
  CHECK(has_text(d16.svg, "input tile (T + K - 1)² = 20² = 400 elements"));
  CHECK(d16.svg != d32.svg);
  CHECK_THROWS_AS(tiling_strategy_1(32, 4), std::invalid_argument);  // the labs' tiles take odd K
}

TEST_CASE("figures: strategy 2 computes in the inner (I-K+1)² threads, strategy 3 reads a ring of r from the caches",
          "[figures]") {
  const Diagram s2 = tiling_strategy_2(32, 5);
  CHECK(count_fill(s2.svg, "#9ecae1") == 28 * 28);
  CHECK(count_fill(s2.svg, "#fdae6b") == 32 * 32 - 28 * 28);
  CHECK(count_fill(tiling_strategy_2(32, 17).svg, "#9ecae1") == 16 * 16);
  const Diagram s3 = tiling_strategy_3(32, 5);
  CHECK(count_fill(s3.svg, "#9ecae1") == 32 * 32);
  CHECK(count_fill(s3.svg, "#fee6ce") == 36 * 36 - 32 * 32);
  CHECK(count_fill(tiling_strategy_3(32, 9).svg, "#fee6ce") == 40 * 40 - 32 * 32);
}

TEST_CASE("figures: the im2col drawing has C·K² rows of Ho·Wo cells and the lecture's 48 / 27", "[figures]") {
  const Diagram d = im2col_unrolled(Im2colExample{});
  CHECK(has_text(d.svg, "X_unroll: 12 × 4"));
  CHECK(has_text(d.svg, "48 elements copied from 27:"));
  CHECK(has_text(d.svg, "replication 1.78×"));
  // 27 input cells and 48 unrolled ones, each with a white border.
  const std::regex cell(R"(<rect [^>]*stroke="#ffffff" stroke-width="2")");
  const auto n = std::distance(std::sregex_iterator(d.svg.begin(), d.svg.end(), cell), std::sregex_iterator());
  CHECK(n == 27 + 48);
  Im2colExample two;
  two.channels = 2;
  CHECK(has_text(im2col_unrolled(two).svg, "X_unroll: 8 × 4"));
}

TEST_CASE("figures: the register patch follows lab 07's compiled-in configuration", "[figures]") {
  const Diagram d = register_patch(3, 4, 3);
  CHECK(has_text(d.svg, "input window 5 × 6"));
  CHECK(has_text(d.svg, "30 loads for 108 FMAs: 0.278 loads per FMA"));
  const Diagram wide = register_patch(3, 8, 3);
  CHECK(has_text(wide.svg, "input window 5 × 10"));

  // The registry draws the code's sizes: a change of lab_config.hpp or lab07_config.hpp redraws.
  const auto all = diagrams();
  auto find = [&](const std::string& name) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const Diagram& x) { return x.name == name; });
    REQUIRE(it != all.end());
    return *it;
  };
  CHECK(find("tiling-strategy-1").svg == tiling_strategy_1(convlab::config::kLab03TileWidth, kTilingExampleMask).svg);
  CHECK(find("tiling-strategy-2").svg == tiling_strategy_2(convlab::config::kLab04InTile, kTilingExampleMask).svg);
  CHECK(find("tiling-strategy-3").svg == tiling_strategy_3(convlab::config::kLab05TileWidth, kTilingExampleMask).svg);
  const auto* k17 = convlab::lab07::default_config(17);
  REQUIRE(k17 != nullptr);
  CHECK(find("register-patch-k17").svg == register_patch(17, k17->out_x, k17->out_y).svg);
  for (const Diagram& x : all) {
    INFO(x.name);
    CHECK(x.svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
    CHECK(x.width == 1160);
    CHECK(x.height <= 470);  // the diagram class shows it at scale 1
    CHECK(!x.caption.empty());
  }
}

TEST_CASE("figures: lab 06's register tile is drawn with the lab's thread tile and stage count", "[figures]") {
  // The drawing's TM, TN and stages are the lab's: its header's constants and the stage count
  // every step-3 launch of the reference passes.
  const auto slurp = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::filesystem::path lab06 = std::filesystem::path(CONVLAB_SOURCE_DIR) / "labs" / "06-im2col";
  const std::string header = slurp(lab06 / "implicit_gemm.cuh");
  CHECK_THAT(header, Catch::Contains("inline constexpr int TM = 8;"));
  CHECK_THAT(header, Catch::Contains("inline constexpr int TN = 8;"));
  CHECK_THAT(slurp(lab06 / "async_copies.cuh"), Catch::Contains("STAGES = 4 buffers"));
  const std::string launches = slurp(std::filesystem::path(CONVLAB_SOURCE_DIR) / "solutions" / "06-im2col" /
                                     "register_tiled_gemm.cu");
  CHECK_THAT(launches, Catch::Contains("launch_tile<128, 128, BK, 4, 2>"));

  const std::vector<Diagram> all = diagrams();
  const auto d = std::find_if(all.begin(), all.end(), [](const Diagram& x) { return x.name == "lab06-register-tile"; });
  REQUIRE(d != all.end());
  CHECK(d->height <= 470);
  CHECK_THAT(d->caption, Catch::Contains("16×16 threads of 8×8 outputs"));
  // Four pieces of thread (1, 2), and per iteration one stage computed and one issued.
  const Diagram small = lab06_register_tile(16, 16, 4, 4, 3);
  CHECK(count_fill(small.svg, "#e6550d") == 4);
  for (int kt = 0; kt < 6; ++kt) CHECK(has_text(small.svg, fmt::format("kt={}", kt)));
  CHECK(count_fill(small.svg, "#9ecae1") == 6);  // one stage computed per iteration
  CHECK_THROWS(lab06_register_tile(128, 128, 7, 8, 4));
}

TEST_CASE("figures: the ghost-cell drawing counts the corner block's ghosts as the analysis does", "[figures]") {
  // The lecture's example: 12² = 144 input cells, of which the corner block loads 10² = 100
  // (table example-2d's "(0,0) corner": 100 input loads).
  const Diagram d = ghost_cells(GhostCellExample{});
  CHECK(d.name == "ghost-cells");
  CHECK(d.height <= 470);
  CHECK_THAT(d.caption, Catch::Contains("the corner block loads 100 of its 144 input cells"));
  CHECK(has_text(d.svg, "corner block (0,0): 44 of its 144 input cells"));
  // Another size: T = 4, K = 7 (r = 3): 10² cells, (10 - 3)² = 49 loaded, 51 ghosts.
  const Diagram other = ghost_cells(GhostCellExample{4, 7, 3});
  CHECK_THAT(other.caption, Catch::Contains("loads 49 of its 100"));
  CHECK(count_fill(other.svg, "#969696") == 51);
  CHECK(count_fill(other.svg, "#9ecae1") == 49);
  CHECK_THROWS(ghost_cells(GhostCellExample{8, 4, 3}));
}
