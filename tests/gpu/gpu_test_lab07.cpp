// Lab 07 (register tiling) on the GPU, end to end as the grader runs it (each runner in a child
// process):
//   - solution07 passes every public conv2d case it supports (even K included), all six
//     variants (one per step), and a fresh random set with every supported K, random sizes and the edge sizes
//     (1×1, smaller than the mask, widths that allow 16-, 8- and 4-byte accesses);
//   - it follows a tuning file made for its own kernel, compiling with NVRTC the configurations it
//     was not built with, and falls back to its defaults when the file is for another GPU, for
//     another kernel source, or malformed;
//   - `grader tune --solutions --quick` runs end to end and `grader tune --bench` reads what it wrote.
// The skeleton (labs/) step by step: tests/gpu/gpu_test_lab07_steps.cpp.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <stdlib.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>

#include "convlab/autotune/kernel_source.hpp"
#include "convlab/datagen.hpp"
#include "convlab/dataset.hpp"
#include "convlab/device_info.hpp"
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
const fs::path kSolutionKernel =
    fs::path(CONVLAB_SOURCE_DIR) / "solutions" / "07-register-tiling" / "register_tiling_kernel.cuh";
const std::vector<int> kMasks = kRegisterTilingMaskWidths.widths();
const std::vector<std::string> kVariantNames{"one_output",      "outputs_xy",   "shfl_filter",
                                             "constant_filter", "shared_input", "register_tiled"};

bool supported(int k) { return std::find(kMasks.begin(), kMasks.end(), k) != kMasks.end(); }

/// Sets an environment variable for this process and its children, and restores it on exit.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

/// A random set with every supported K, plus the edge sizes of each K.
std::vector<Conv2dSpec> lab07_specs(std::uint64_t seed, int random_count, int max_side) {
  std::vector<Conv2dSpec> specs = random_conv2d_specs(seed, random_count, max_side, kRegisterTilingMaskWidths);
  std::mt19937_64 rng(seed);
  const std::pair<int, int> edges[] = {{1, 1}, {2, 3}, {5, 128}, {67, 64}, {33, 130}, {41, 7}, {3, 1000}};
  for (const int k : kMasks) {
    for (const auto& [h, w] : edges) {
      Conv2dSpec s;
      s.name = fmt::format("edge_k{}_{}x{}", k, h, w);
      s.shape = {h, w, k};
      s.seed = rng();
      specs.push_back(s);
    }
  }
  return specs;
}

fs::path write_specs(const fs::path& dir, const std::vector<Conv2dSpec>& specs) {
  fs::remove_all(dir);
  for (const Conv2dSpec& s : specs) write_case(dir / "conv2d" / s.name, generate_case(s));
  return dir / "conv2d";
}

std::string device_name() {
  const auto d = query_device();
  REQUIRE(d);
  return d->name;
}

}  // namespace

TEST_CASE("gpu: solution07 passes every public conv2d case it supports, every variant", "[gpu][lab07]") {
  const LabRun r = run_lab("solution07", kDatasets / "conv2d", {"--repeats", "3"});
  int supported_cases = 0;
  for (const fs::path& dir : find_cases(kDatasets / "conv2d")) supported_cases += supported(read_case_info(dir).conv2d.mask_width);
  CHECK(supported_cases >= 20);
  expect_all_pass(r, static_cast<int>(kVariantNames.size()) * supported_cases);
  int even = 0;
  for (const auto& res : r.report.at("results")) {
    if (res.at("status") != "PASS") continue;
    CHECK(res.at("time_ms").at("median").get<double>() > 0);
    const std::string shape = res.at("shape");
    even += shape.find("K=2") != std::string::npos || shape.find("K=4") != std::string::npos ||
            shape.find("K=6") != std::string::npos;
  }
  CHECK(even > 0);  // the even masks (PyTorch 'same' placement) ran and passed
}

TEST_CASE("gpu: solution07 passes a fresh random set with every supported mask width", "[gpu][lab07]") {
  const std::uint64_t seed = std::random_device{}();
  INFO("random set seed " << seed);
  const auto specs = lab07_specs(seed, 44, 300);
  const fs::path cases = write_specs(fs::temp_directory_path() / "convlab-gpu-lab07-random", specs);
  const LabRun r = run_lab("solution07", cases, {"--no-time"});
  expect_all_pass(r, static_cast<int>(kVariantNames.size() * specs.size()));
}

TEST_CASE("gpu: solution07 follows a tuning file and compiles what it was not built with", "[gpu][lab07][tuning]") {
  const fs::path dir = fs::temp_directory_path() / "convlab-gpu-lab07-tuning";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<Conv2dSpec> specs;
  std::uint64_t seed = 99;
  for (const int k : {2, 6, 17}) {
    for (const auto& [h, w] : std::vector<std::pair<int, int>>{{1, 1}, {37, 53}, {64, 96}, {130, 258}}) {
      specs.push_back({fmt::format("k{}_{}x{}", k, h, w), {h, w, k}, ++seed, ""});
    }
  }
  const fs::path cases = write_specs(dir / "cases", specs);
  // None of these is compiled in: every launch goes through NVRTC.
  const std::string hash = lab07::read_kernel_source(kSolutionKernel, "solutions").hash;
  const nlohmann::json file = {
      {"format", "convlab-lab07-tuning"},
      {"version", 1},
      {"device", device_name()},
      {"kernel", {{"origin", "solutions"}, {"path", kSolutionKernel.string()}, {"hash", hash}}},
      {"best",
       {{{"mask_width", 2}, {"outputs_x", 2}, {"outputs_y", 3}, {"block_x", 64}, {"block_y", 2}, {"input", "shared"}, {"filter", "shfl"}, {"rows", "rolled"}},
        {{"mask_width", 6}, {"outputs_x", 3}, {"outputs_y", 5}, {"block_x", 32}, {"block_y", 1}, {"input", "global"}, {"filter", "constant"}},
        {{"mask_width", 17}, {"outputs_x", 12}, {"outputs_y", 2}, {"block_x", 32}, {"block_y", 2}, {"input", "global"}, {"filter", "shfl"}, {"rows", "rolled"}}}},
      {"roles",
       {{{"role", "shared"}, {"mask_width", 17}, {"outputs_x", 4}, {"outputs_y", 2}, {"block_x", 128}, {"block_y", 1}, {"input", "shared"}, {"filter", "constant"}}}}};
  std::ofstream(dir / "tuning.json") << file.dump(2);
  const ScopedEnv cache("CONVLAB_LAB07_CACHE", (dir / "cache").string());
  {
    const ScopedEnv tuning("CONVLAB_LAB07_TUNING", (dir / "tuning.json").string());
    const LabRun r = run_lab("solution07", cases, {"--no-time"});
    CHECK_THAT(r.process.output, Catch::Contains("tuned configurations from"));
    expect_all_pass(r, static_cast<int>(kVariantNames.size() * specs.size()));
    CHECK(fs::exists(dir / "cache"));
    CHECK(!fs::is_empty(dir / "cache"));
    // Second run: from the cache.
    const LabRun again = run_lab("solution07", cases, {"--no-time", "--variant", "register_tiled"});
    expect_all_pass(again, static_cast<int>(specs.size()));
  }
  {
    nlohmann::json other = file;
    other["device"] = "Some Other GPU";
    std::ofstream(dir / "other.json") << other.dump(2);
    const ScopedEnv tuning("CONVLAB_LAB07_TUNING", (dir / "other.json").string());
    const LabRun r = run_lab("solution07", cases, {"--no-time", "--variant", "register_tiled"});
    CHECK_THAT(r.process.output, Catch::Contains("was tuned on Some Other GPU"));
    expect_all_pass(r, static_cast<int>(specs.size()));
  }
  {
    // Tuned on another kernel (the student's, say): never used by the solution.
    nlohmann::json other = file;
    other["kernel"]["hash"] = "0123456789abcdef";
    other["kernel"]["origin"] = "labs";
    std::ofstream(dir / "other-kernel.json") << other.dump(2);
    const ScopedEnv tuning("CONVLAB_LAB07_TUNING", (dir / "other-kernel.json").string());
    const LabRun r = run_lab("solution07", cases, {"--no-time", "--variant", "register_tiled"});
    CHECK_THAT(r.process.output, Catch::Contains("was tuned on another kernel"));
    CHECK_THAT(r.process.output, Catch::Contains("compiled-in defaults"));
    expect_all_pass(r, static_cast<int>(specs.size()));
  }
  {
    std::ofstream(dir / "bad.json") << "{\"format\": \"convlab-lab07-tuning\", \"version\": 1}";
    const ScopedEnv tuning("CONVLAB_LAB07_TUNING", (dir / "bad.json").string());
    const LabRun r = run_lab("solution07", cases, {"--no-time", "--variant", "register_tiled"});
    CHECK_THAT(r.process.output, Catch::Contains("ignoring the tuning file"));
    expect_all_pass(r, static_cast<int>(specs.size()));
  }
}

TEST_CASE("gpu: grader tune --solutions --quick runs end to end, and --bench reads its tuning file",
          "[gpu][lab07][tune]") {
  const fs::path dir = fs::temp_directory_path() / "convlab-gpu-lab07-tune";
  fs::remove_all(dir);
  const std::string grader = (kBin / "grader").string();
  const ScopedEnv cache("CONVLAB_LAB07_CACHE", (dir / "cache").string());
  const grader::ProcessResult tune = grader::run_process(
      {grader, "tune", "--solutions", "--quick", "--masks", "3,6", "--size", "1024", "--out", (dir / "report").string(), "--tuning",
       (dir / "tuning.json").string(), "--no-plot"},
      900s);
  INFO(tune.output);
  REQUIRE(tune.exit_code == 0);
  for (const char* f : {"sweep.csv", "table.md", "table.csv", "heatmaps.gp", "heatmap_k03.dat", "heatmap_k06.dat"}) {
    INFO(f);
    CHECK(fs::exists(dir / "report" / f));
  }
  std::ifstream in(dir / "tuning.json");
  const nlohmann::json t = nlohmann::json::parse(in);
  CHECK(t.at("device") == device_name());
  CHECK(t.at("best").size() == 2);
  CHECK(t.at("kernel").at("origin") == "solutions");
  CHECK(t.at("kernel").at("hash") == lab07::read_kernel_source(kSolutionKernel, "solutions").hash);
  CHECK_THAT(tune.output, Catch::Contains("Run-time versus compile-time"));

  const grader::ProcessResult bench = grader::run_process(
      {grader, "tune", "--solutions", "--bench", "--masks", "3,6", "--size", "1024", "--tuning", (dir / "tuning.json").string(), "--out",
       (dir / "report").string()},
      600s);
  INFO(bench.output);
  CHECK(bench.exit_code == 0);
  CHECK(fs::exists(dir / "report" / "bench.md"));
  CHECK_THAT(bench.output, Catch::Contains((dir / "tuning.json").string()));

  // Plots: PNGs where gnuplot exists, else a clear word about it (the GPU machines have none).
  const grader::ProcessResult plot = grader::run_process({grader, "tune", "--plot-only", (dir / "report").string()}, 120s);
  INFO(plot.output);
  if (plot.exit_code == 0) {
    CHECK(fs::exists(dir / "report" / "heatmap_k03.png"));
  } else {
    CHECK(plot.exit_code == 3);
    CHECK_THAT(plot.output, Catch::Contains("gnuplot is not installed"));
  }
}
