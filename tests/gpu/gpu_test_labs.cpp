// The lab executables end to end: the 01 solution passes every public case and a fresh random
// set; every stub fails with "not implemented". Each lab runs in a child process, as the
// grader runs it.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "convlab/datagen.hpp"
#include "gpu_lab_run.hpp"
#include "system/subprocess.hpp"
#include "test_paths.hpp"

using namespace convlab;
using convlab::testing::LabRun;
using convlab::testing::expect_all_pass;
using convlab::testing::run_lab;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

using convlab::testing::kBin;
using convlab::testing::kDatasets;

int count_cases(const fs::path& root, bool odd_only) {
  int n = 0;
  for (const fs::path& dir : find_cases(root)) {
    const CaseInfo info = read_case_info(dir);
    if (!odd_only || info.conv2d.mask_width % 2 == 1) ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("gpu: solution01 passes every public conv2d case, all four variants", "[gpu][lab01]") {
  const LabRun r = run_lab("solution01", kDatasets / "conv2d", {"--repeats", "3"});
  expect_all_pass(r, 4 * count_cases(kDatasets / "conv2d", true));
  for (const auto& res : r.report.at("results")) {
    if (res.at("status") == "PASS") CHECK(res.at("time_ms").at("median").get<double>() > 0);
  }
}

TEST_CASE("gpu: solution01 passes a fresh random set", "[gpu][lab01]") {
  const std::uint64_t seed = std::random_device{}();
  INFO("random set seed " << seed << " (regenerate with: grader datagen --seed " << seed << " --count 40 --out DIR)");
  const fs::path dir = fs::temp_directory_path() / "convlab-gpu-random";
  fs::remove_all(dir);
  const auto specs = random_conv2d_specs(seed, 40, 300, kOddMaskWidths);
  for (const Conv2dSpec& s : specs) write_case(dir / "conv2d" / s.name, generate_case(s));
  const LabRun r = run_lab("solution01", dir / "conv2d", {"--no-time"});
  expect_all_pass(r, 4 * static_cast<int>(specs.size()));
}

TEST_CASE("gpu: every stub fails every case it runs, saying 'not implemented'", "[gpu][stubs]") {
  for (int lab = 1; lab <= 7; ++lab) {
    const std::string exe = fmt::format("lab{:02d}", lab);
    DYNAMIC_SECTION(exe) {
      const fs::path cases = kDatasets / (lab == 6 ? "conv_layer" : "conv2d");
      const LabRun r = run_lab(exe, cases, {"--no-time"});
      CHECK(r.process.exit_code == 1);
      int failed = 0;
      for (const auto& res : r.report.at("results")) {
        INFO(res.dump());
        if (res.at("status") == "SKIP") continue;
        CHECK(res.at("status") == "FAIL");
        CHECK_THAT(res.at("message").get<std::string>(), Catch::Contains("not implemented"));
        ++failed;
      }
      CHECK(failed > 0);
    }
  }
}

TEST_CASE("gpu: a missing case folder is a usage error, not a crash", "[gpu][runner]") {
  const grader::ProcessResult p = grader::run_process({(kBin / "solution01").string(), "/nonexistent/case"}, 60s);
  CHECK(p.exit_code == 2);
  CHECK_THAT(p.output, Catch::Contains("/nonexistent/case: no such file"));
}
