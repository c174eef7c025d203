// The solutions of labs 02–05 (constant-memory mask and the three tiling strategies) end to
// end: each passes every public conv2d case with odd K, a set built around the tile edges of
// every strategy for every odd K, and a fresh random set with masks up to 17. Each lab runs in
// a child process, as the grader runs it.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>

#include "convlab/datagen.hpp"
#include "convlab/lab_config.hpp"
#include "gpu_lab_run.hpp"
#include "system/subprocess.hpp"
#include "test_paths.hpp"

using namespace convlab;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

using convlab::testing::kDatasets;
const std::vector<std::string> kSolutions{"solution02", "solution03", "solution04", "solution05"};

/// A folder of our own under the temporary directory: tests may run in parallel under CTest.
fs::path scratch(const std::string& what) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("convlab-gpu-tiling-{}-{}", what, ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

int count_odd_cases(const fs::path& root) {
  int n = 0;
  for (const fs::path& dir : find_cases(root)) n += read_case_info(dir).conv2d.mask_width % 2 == 1;
  return n;
}

Conv2dSpec spec(int h, int w, int k, std::uint64_t seed, const std::string& why) {
  return {fmt::format("k{}_{}x{}", k, h, w), {h, w, k}, seed, why};
}

/// Sizes on both sides of the tile edges of labs 03 and 05 (T = 32) and of lab 04
/// (output tile O = IN_TILE - K + 1, which depends on K), for every odd K; and images smaller
/// than the largest mask.
std::vector<Conv2dSpec> tile_edge_specs() {
  constexpr int T = config::kLab03TileWidth;
  static_assert(config::kLab05TileWidth == T, "the edge set assumes labs 03 and 05 share a tile width");
  std::vector<Conv2dSpec> specs;
  std::uint64_t seed = 9000;
  for (const int k : kOddMaskWidths.widths()) {
    const int o = config::kLab04InTile - k + 1;
    specs.push_back(spec(2 * o + 1, 2 * T + 1, k, ++seed, "lab 04: one row past two output tiles; lab 03/05: one column past two tiles"));
    specs.push_back(spec(T - 1, 3 * o - 1, k, ++seed, "lab 04: one column short of three output tiles; lab 03/05: one row short of a tile"));
    specs.push_back(spec(o, T, k, ++seed, "exactly one output tile of lab 04 by one tile of lab 03/05"));
  }
  specs.push_back(spec(1, 1, 17, ++seed, "1×1 image, the largest mask"));
  specs.push_back(spec(8, 9, 17, ++seed, "image smaller than the mask: every output sees ghosts on all sides"));
  specs.push_back(spec(1, 97, 15, ++seed, "a single row"));
  specs.push_back(spec(97, 1, 15, ++seed, "a single column"));
  return specs;
}

}  // namespace

TEST_CASE("gpu: solutions 02-05 pass every public conv2d case with odd K", "[gpu][lab02][lab03][lab04][lab05]") {
  const int expected = count_odd_cases(kDatasets / "conv2d");
  REQUIRE(expected > 0);
  // --no-time: correctness runs; `expected` counts the cases with odd K (even K is SKIP).
  for (const std::string& exe : kSolutions) {
    INFO(exe << " on " << (kDatasets / "conv2d").string());
    testing::expect_all_pass(testing::run_lab(exe, kDatasets / "conv2d", {"--no-time"}, 600s), expected);
  }
}

TEST_CASE("gpu: solutions 02-05 pass every odd K on both sides of their tile edges", "[gpu][lab02][lab03][lab04][lab05]") {
  const fs::path work = scratch("edges");
  const auto specs = tile_edge_specs();
  for (const Conv2dSpec& s : specs) write_case(work / "conv2d" / s.name, generate_case(s));
  for (const std::string& exe : kSolutions) {
    INFO(exe << " on " << (work / "conv2d").string());
    testing::expect_all_pass(testing::run_lab(exe, work / "conv2d", {"--no-time"}, 600s), static_cast<int>(specs.size()));
  }
  fs::remove_all(work);
}

TEST_CASE("gpu: solutions 02-05 pass a fresh random set, masks up to 17", "[gpu][lab02][lab03][lab04][lab05]") {
  const std::uint64_t seed = std::random_device{}();
  INFO("random set seed " << seed << " (regenerate with: grader datagen --seed " << seed << " --count 40 --out DIR)");
  const fs::path work = scratch("random");
  const auto specs = random_conv2d_specs(seed, 40, 300, kOddMaskWidths);
  for (const Conv2dSpec& s : specs) write_case(work / "conv2d" / s.name, generate_case(s));
  for (const std::string& exe : kSolutions) {
    INFO(exe << " on " << (work / "conv2d").string());
    testing::expect_all_pass(testing::run_lab(exe, work / "conv2d", {"--no-time"}, 600s), static_cast<int>(specs.size()));
  }
  fs::remove_all(work);
}
