// The lab executables end to end: the 01 solution passes every public case and a fresh random
// set; every stub fails with "not implemented". Each lab runs in a child process, as the
// grader runs it.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "convlab/datagen.hpp"
#include "convlab/npy.hpp"
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

TEST_CASE("gpu: --error-map draws each failing run and nothing for a pass or a stub", "[gpu][error_map]") {
  // A correct kernel against a reference made wrong on purpose: rows 20 and below of the
  // expected output are off by one, so exactly 17 × 53 = 901 outputs fail, all out of tolerance.
  const fs::path dir = fs::temp_directory_path() / "convlab-gpu-error-map";
  fs::remove_all(dir);
  const fs::path c = dir / "cases" / "conv2d" / "k5_37x53";
  fs::create_directories(c);
  for (const char* f : {"case.json", "input.npy", "mask.npy"}) fs::copy_file(kDatasets / "conv2d" / "k5_37x53" / f, c / f);
  Tensor<double> expected = read_npy_f64(kDatasets / "conv2d" / "k5_37x53" / "expected.npy");
  for (std::size_t i = 20 * 53; i < expected.size(); ++i) expected.data()[i] += 1.0;
  write_npy(c / "expected.npy", expected);

  const fs::path maps = dir / "maps";
  const LabRun r = run_lab("solution03", dir / "cases", {"--no-time", "--error-map", maps.string()});
  CHECK(r.process.exit_code == 1);
  REQUIRE(r.report.at("results").size() == 1);
  const auto& res = r.report.at("results").at(0);
  CHECK(res.at("status") == "FAIL");
  CHECK(res.at("message") == "901 of 1961 outputs wrong (0 unwritten, 0 not finite, 901 out of tolerance)");
  const fs::path png = maps / "lab03__tiled_output__k5_37x53.png";
  CHECK(res.value("error_map", "") == png.string());
  REQUIRE(fs::exists(png));
  CHECK(fs::file_size(png) > 100);

  // The same case with the true reference passes: no picture. The stub: no picture either.
  fs::remove_all(maps);
  write_npy(c / "expected.npy", read_npy_f64(kDatasets / "conv2d" / "k5_37x53" / "expected.npy"));
  run_lab("solution03", dir / "cases", {"--no-time", "--error-map", maps.string()});
  CHECK((!fs::exists(maps) || fs::is_empty(maps)));
  const LabRun stub = run_lab("lab03", dir / "cases", {"--no-time", "--error-map", maps.string()});
  CHECK(stub.report.at("results").at(0).at("status") == "FAIL");
  CHECK((!fs::exists(maps) || fs::is_empty(maps)));
  fs::remove_all(dir);
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

// Issue 21 (finding 5): the runner's --json is checked before it runs anything, and a write that
// fails later is a message and exit 2 — never std::terminate (exit 134).
TEST_CASE("gpu: runner --json into a folder that takes no file fails before running, naming the file",
          "[gpu][runner]") {
  const fs::path ro = fs::temp_directory_path() / fmt::format("convlab-gpu-ro-{}", ::getpid());
  fs::create_directories(ro);
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  // Root is not stopped by permissions; sysfs takes no new file from anyone.
  const fs::path folder = ::access(ro.c_str(), W_OK) == 0 ? fs::path("/sys") : ro;
  const fs::path out = folder / "report.json";
  const grader::ProcessResult r =
      grader::run_process({(kBin / "solution01").string(), (kDatasets / "conv2d").string(), "--json", out.string()}, 60s);
  fs::remove_all(ro);
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains(fmt::format("--json: cannot write {}: cannot create a file in {}: ", out.string(),
                                                   folder.string())));
  CHECK_THAT(r.output, !Catch::Contains("PASS"));  // nothing ran
}

TEST_CASE("gpu: runner --json that stops being writable mid-run is exit 2 with a message, not an abort",
          "[gpu][runner]") {
  const fs::path json = fs::temp_directory_path() / fmt::format("convlab-gpu-efbig-{}.json", ::getpid());
  fs::remove(json);
  // A file-size limit of 1 KiB with SIGXFSZ ignored: the first reports fit, a later one fails
  // with EFBIG ("File too large") inside the runner's writer.
  const std::string cmd = fmt::format("trap '' XFSZ; ulimit -f 1; exec {} {} --no-time --json {}",
                                      (kBin / "solution01").string(), (kDatasets / "conv2d").string(), json.string());
  const grader::ProcessResult r = grader::run_process({"/bin/sh", "-c", cmd}, 300s);
  fs::remove(json);
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains(fmt::format("--json: cannot write {}: writing failed: File too large", json.string())));
  CHECK_THAT(r.output, Catch::Contains(fmt::format("the results could not be written to {} (see above)", json.string())));
  CHECK_THAT(r.output, Catch::Contains("PASS"));  // the runs went on
}

TEST_CASE("gpu: runner --variant with a case folder instead of a name lists the variants", "[gpu][runner]") {
  const grader::ProcessResult r =
      grader::run_process({(kBin / "solution01").string(), "--variant", (kDatasets / "conv2d").string()}, 60s);
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains(fmt::format("--variant '{}': no such variant (a case folder? --variant takes a "
                                                   "name: --variant NAME CASE...); the variants are: ",
                                                   (kDatasets / "conv2d").string())));
}
