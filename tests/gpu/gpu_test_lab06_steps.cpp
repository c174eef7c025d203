// Lab 06 from its stubs, on the GPU (each program in a child process, as a student runs it):
//   - the stubs as shipped (labs/, built as lab06) fail each step's variant with a message that
//     names the step and what to write;
//   - "a student who follows the stubs": the lab folder with every step's code spliced in from
//     the solution (the markers of tests/support/step_splice.hpp; outside them the stubs are the
//     solution's text, tests/cpu/test_lab06_skeleton.cpp) is graded by `grader grade` as a
//     submission and gets full marks, speed points included: following the stubs earns them.
// The submission and its report stay in $TMPDIR/convlab-gpu-lab06-spliced/ for a look:
//   build/bin/grader grade --submission /tmp/convlab-gpu-lab06-spliced/submission --labs 06
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "gpu_lab_run.hpp"
#include "step_splice.hpp"
#include "system/subprocess.hpp"

using namespace convlab;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path kBin = CONVLAB_BIN_DIR;
const fs::path kSource = CONVLAB_SOURCE_DIR;
const fs::path kLab = kSource / "labs" / "06-im2col";
const fs::path kSolution = kSource / "solutions" / "06-im2col";
const fs::path kSpliced = fs::temp_directory_path() / "convlab-gpu-lab06-spliced";

// Each graded variant and the start of its "not implemented" message.
const std::map<std::string, std::string> kStepOfVariant{
    {"unroll_gemm", "lab06 step 1 (explicit unroll + tiled GEMM): write unroll_kernel"},
    {"fused_gemm", "lab06 step 2 (unrolling fused into the GEMM): write fused_gemm_kernel"},
    {"register_tiles", "lab06 step 3a (register tiles): write decode_column"},
    {"transposed_float4", "lab06 step 3b (transposed As, float4): write multiply_slice"},
    {"async_copies", "lab06 step 3c (async copies): write async_copies_kernel"},
    {"register_tiled", "lab06 step 3d (tile choice and split-K): write AtomicAddTile"},
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

using convlab::testing::tail;

/// The lab folder with every marked step's code taken from the solution, as a one-lab submission:
/// kSpliced/submission/06-im2col/. Files without steps (the stretch step's stub, the README, the
/// drawing) as shipped.
fs::path spliced_submission() {
  const fs::path folder = kSpliced / "submission" / "06-im2col";
  fs::create_directories(folder);
  for (const auto& entry : fs::directory_iterator(kLab)) {
    const fs::path name = entry.path().filename();
    const std::string stub = read(entry.path());
    // Code files only: the README shows a step's markers in an example, and has no solution twin.
    const bool has_steps = fs::exists(kSolution / name) && !testing::find_steps(stub, name.string()).empty();
    std::ofstream(folder / name, std::ios::binary | std::ios::trunc)
        << (has_steps ? testing::splice_all_steps(stub, read(kSolution / name)) : stub);
  }
  return kSpliced / "submission";
}

}  // namespace

TEST_CASE("gpu: the lab06 stubs fail each step with a message naming the step and what to write",
          "[gpu][lab06][skeleton]") {
  const testing::LabRun r = testing::run_lab("lab06", kSource / "datasets" / "conv_layer", {"--no-time"});
  CHECK(r.process.exit_code == 1);
  std::set<std::string> failed;
  for (const json& res : r.report.at("results")) {
    INFO(res.dump());
    CHECK(res.at("status") == "FAIL");
    const std::string variant = res.at("variant");
    if (variant == "tf32_tensor_core") continue;  // the stretch step: its own stub message
    REQUIRE(kStepOfVariant.count(variant));
    CHECK_THAT(res.at("message").get<std::string>(), Catch::Contains("not implemented (" + kStepOfVariant.at(variant)));
    failed.insert(variant);
  }
  CHECK(failed.size() == kStepOfVariant.size());  // every step's variant ran, and failed
}

TEST_CASE("gpu: lab 06 from the stubs with every step spliced in passes every step and grader grade gives it "
          "full marks, speed included",
          "[gpu][lab06][skeleton]") {
  fs::remove_all(kSpliced);
  const fs::path submission = spliced_submission();
  const fs::path report = kSpliced / "grade.json";
  const grader::ProcessResult g = grader::run_process(
      {(kBin / "grader").string(), "grade", "--submission", submission.string(), "--labs", "06", "--build-dir",
       (kSpliced / "build").string(), "--json", report.string()},
      1800s);
  INFO(tail(g.output));
  std::ifstream in(report);
  REQUIRE(in);
  const json lab = json::parse(in).at("submission").at("labs").at(0);
  INFO(lab.at("headline").get<std::string>());
  CHECK(lab.at("lab") == "lab06");
  CHECK(lab.at("correctness").at("failures").empty());
  CHECK(lab.at("correctness").at("passed") == lab.at("correctness").at("runs"));
  std::set<std::string> timed;
  for (const json& v : lab.at("performance").at("variants")) {
    INFO(v.dump());
    CHECK(v.at("correct") == true);
    timed.insert(v.at("variant").get<std::string>());
  }
  for (const auto& [variant, message] : kStepOfVariant) {
    INFO(variant);
    CHECK(timed.count(variant) == 1);  // every step's variant timed against the reference
  }
  CHECK(lab.at("points").get<double>() == Approx(lab.at("max_points").get<double>()));
  CHECK(lab.at("max_points").get<double>() == Approx(10));
}
