// Lab 07 from the skeleton, on the GPU (each program in a child process, as a student runs it):
//   - the skeleton as shipped (labs/, built as lab07) fails each step's variant with a message
//     that names the step; `grader tune` on it refuses, naming the unwritten steps;
//   - the skeleton with every step's code spliced in from the solution (the markers of
//     tests/support/step_splice.hpp) passes every step: `grader grade` builds it as a submission
//     and gives lab 07 full marks;
//   - `grader tune` on that kernel finds, at K = 3, 7 and 17, a configuration within 5% of the
//     best that `grader tune --solutions` finds, writes a tuning file naming that kernel, and the
//     spliced lab07 runs its own tuned choice (and refuses the solution's tuning file).
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <stdlib.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "convlab/autotune/kernel_source.hpp"
#include "gpu_lab_run.hpp"
#include "step_splice.hpp"
#include "system/subprocess.hpp"

using namespace convlab;
using convlab::testing::LabRun;
using convlab::testing::run_lab;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path kBin = CONVLAB_BIN_DIR;
const fs::path kSource = CONVLAB_SOURCE_DIR;
const fs::path kLab = kSource / "labs" / "07-register-tiling";
const fs::path kSolution = kSource / "solutions" / "07-register-tiling";

// Each variant and the step whose number and title its "not implemented" message must name.
const std::map<std::string, std::string> kStepOfVariant{
    {"one_output", "step 1 (one output per thread)"},
    {"outputs_xy", "step 2 (x×y outputs per thread)"},
    {"shfl_filter", "step 3 (the filter through __shfl_sync)"},
    {"constant_filter", "step 4 (the filter in constant memory)"},
    {"shared_input", "step 5 (shared→register input)"},
    {"register_tiled", "step 6 (the tuned choice per mask width) needs step 2 (x×y outputs per thread)"},
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

using convlab::testing::tail;

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

grader::ProcessResult grader_run(std::vector<std::string> args, std::chrono::seconds timeout = 900s) {
  args.insert(args.begin(), (kBin / "grader").string());
  return grader::run_process(args, timeout);
}

/// best[].ms of a tuning file, by mask width.
std::map<int, double> best_ms(const fs::path& tuning) {
  std::ifstream in(tuning);
  REQUIRE(in);
  const json t = json::parse(in);
  std::map<int, double> out;
  for (const json& e : t.at("measurements").at("best")) out[e.at("mask_width").get<int>()] = e.at("ms").get<double>();
  return out;
}

}  // namespace

TEST_CASE("gpu: the lab07 skeleton fails each step with a message naming the step", "[gpu][lab07][skeleton]") {
  const LabRun r = run_lab("lab07", kSource / "datasets" / "conv2d", {"--no-time"});
  CHECK(r.process.exit_code == 1);
  std::map<std::string, int> failed;
  for (const json& res : r.report.at("results")) {
    if (res.at("status") == "SKIP") continue;
    INFO(res.dump());
    CHECK(res.at("status") == "FAIL");
    const std::string variant = res.at("variant");
    REQUIRE(kStepOfVariant.count(variant));
    CHECK_THAT(res.at("message").get<std::string>(), Catch::Contains("not implemented (" + kStepOfVariant.at(variant)));
    ++failed[variant];
  }
  CHECK(failed.size() == kStepOfVariant.size());  // every step's variant ran, and failed
}

TEST_CASE("gpu: grader tune on the untouched skeleton refuses and names the unwritten steps", "[gpu][lab07][skeleton][tune]") {
  const grader::ProcessResult p = grader_run({"tune", "--quick", "--masks", "3", "--no-plot"}, 120s);
  INFO(p.output);
  CHECK(p.exit_code == 3);
  CHECK_THAT(p.output, Catch::Contains("still has steps 2, 3, 4 unwritten"));
  CHECK_THAT(p.output, Catch::Contains("--solutions"));
}

namespace {

const fs::path kSpliced = fs::temp_directory_path() / "convlab-gpu-lab07-spliced";

/// The skeleton with every step's code spliced in from the solution, as a one-lab submission
/// folder (the launchers as shipped): kSpliced/submission/07-register-tiling/.
fs::path spliced_kernel() {
  const fs::path folder = kSpliced / "submission" / "07-register-tiling";
  fs::create_directories(folder);
  fs::copy_file(kLab / "register_tiling.cu", folder / "register_tiling.cu", fs::copy_options::overwrite_existing);
  const fs::path kernel = folder / "register_tiling_kernel.cuh";
  std::ofstream(kernel, std::ios::binary | std::ios::trunc)
      << testing::splice_steps(read(kLab / "register_tiling_kernel.cuh"), read(kSolution / "register_tiling_kernel.cuh"),
                               {"1", "2", "3", "4", "5"});
  return kernel;
}

/// `grader grade` of the spliced submission (lab 07 only), once per process: the report's lab.
/// It also leaves the grader's build of that lab07 in kSpliced/build/bin/lab07.
const json& spliced_grade() {
  static std::optional<json> lab;
  if (lab) return *lab;
  fs::remove_all(kSpliced);
  const fs::path kernel = spliced_kernel();
  // Compile the kernels the variants will ask for on all cores first (one shared cache), so that
  // the graded runs compile nothing at run time.
  const grader::ProcessResult warm = grader_run({"tune", "--warm-cache", "--kernel", kernel.string()}, 600s);
  INFO(tail(warm.output));
  REQUIRE(warm.exit_code == 0);
  const fs::path report = kSpliced / "grade.json";
  const grader::ProcessResult g =
      grader_run({"grade", "--submission", (kSpliced / "submission").string(), "--labs", "07", "--build-dir",
                  (kSpliced / "build").string(), "--timeout", "120", "--json", report.string()},
                 1800s);
  INFO(tail(g.output));
  std::ifstream in(report);
  REQUIRE(in);
  lab = json::parse(in).at("submission").at("labs").at(0);
  return *lab;
}

// One cubin cache for every program of these tests.
const fs::path kCache = fs::temp_directory_path() / "convlab-gpu-lab07-cache";

}  // namespace

TEST_CASE("gpu: lab 07 from the skeleton with every step spliced in passes every step and grader grade gives it "
          "full marks",
          "[gpu][lab07][skeleton]") {
  const ScopedEnv cache("CONVLAB_LAB07_CACHE", kCache.string());
  const json& lab = spliced_grade();
  INFO(lab.at("headline").get<std::string>());
  CHECK(lab.at("lab") == "lab07");
  CHECK(lab.at("correctness").at("failures").empty());
  CHECK(lab.at("correctness").at("passed") == lab.at("correctness").at("runs"));
  CHECK(lab.at("correctness").at("runs").get<int>() >= 6 * 20);  // every step's variant, every supported case
  std::set<std::string> timed;
  for (const json& v : lab.at("performance").at("variants")) {
    INFO(v.dump());
    CHECK(v.at("correct") == true);
    timed.insert(v.at("variant").get<std::string>());
  }
  CHECK(timed.size() == kStepOfVariant.size());  // every step's variant timed, none missing
  CHECK(lab.at("points").get<double>() == Approx(lab.at("max_points").get<double>()));
  CHECK(lab.at("max_points").get<double>() == Approx(10));
}

TEST_CASE("gpu: grader tune on the spliced skeleton is within 5% of the solution's best at K = 3 7 17 and its "
          "lab07 runs its own tuned choice",
          "[gpu][lab07][skeleton-tune][tune]") {
  const ScopedEnv cache("CONVLAB_LAB07_CACHE", kCache.string());
  // The grader's build of the spliced lab07 first: its first call in a process starts kSpliced
  // afresh, which would take the tuning files below with it.
  (void)spliced_grade();
  const fs::path dir = kSpliced / "tune";
  fs::remove_all(dir);
  const fs::path kernel = spliced_kernel();
  // grader tune on the spliced kernel and on the solution's: the student's best is within 5% of
  // the solution's (the same kernel code: the same search, the same choices up to timing noise).
  const std::vector<std::string> quick = {"--quick", "--masks", "3,7,17", "--no-plot"};
  auto tune = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "tune");
    args.insert(args.end(), quick.begin(), quick.end());
    const grader::ProcessResult p = grader_run(args, 1200s);
    INFO(tail(p.output));
    REQUIRE(p.exit_code == 0);
  };
  tune({"--kernel", kernel.string(), "--tuning", (dir / "lab.json").string(), "--out", (dir / "lab-report").string()});
  tune({"--solutions", "--tuning", (dir / "solution.json").string(), "--out", (dir / "solution-report").string()});
  for (const char* f : {"sweep.csv", "table.md", "heatmaps.gp", "heatmap_k03.dat", "heatmap_k07.dat", "heatmap_k17.dat"}) {
    INFO(f);
    CHECK(fs::exists(dir / "lab-report" / f));  // the heat maps of the student's kernel
  }
  const json lab_tuning = json::parse(read(dir / "lab.json"));
  CHECK(lab_tuning.at("kernel").at("hash") == lab07::read_kernel_source(kernel, "file").hash);
  CHECK(lab_tuning.at("kernel").at("path") == kernel.string());
  const std::map<int, double> student = best_ms(dir / "lab.json");
  const std::map<int, double> reference = best_ms(dir / "solution.json");
  for (const int k : {3, 7, 17}) {
    INFO("K = " << k << ": student " << student.at(k) << " ms, solution " << reference.at(k) << " ms");
    CHECK(student.at(k) <= 1.05 * reference.at(k));
  }

  // The spliced lab07 (the grader's build of it) follows the tuning made for its own kernel and
  // refuses the solution's.
  const std::string lab07 = (kSpliced / "build" / "executables" / "submission" / "lab07" / "lab07").string();
  REQUIRE(fs::exists(lab07));
  const std::vector<std::string> run = {lab07, (kSource / "datasets" / "conv2d").string(), "--no-time", "--quiet",
                                        "--variant", "register_tiled"};
  {
    const ScopedEnv tuning("CONVLAB_LAB07_TUNING", (dir / "lab.json").string());
    const grader::ProcessResult p = grader::run_process(run, 600s);
    INFO(tail(p.output));
    CHECK(p.exit_code == 0);
    CHECK_THAT(p.output, Catch::Contains("tuned configurations from " + (dir / "lab.json").string()));
  }
  {
    const ScopedEnv tuning("CONVLAB_LAB07_TUNING", (dir / "solution.json").string());
    const grader::ProcessResult p = grader::run_process(run, 600s);
    INFO(tail(p.output));
    CHECK(p.exit_code == 0);
    CHECK_THAT(p.output, Catch::Contains("was tuned on another kernel"));
  }
}
