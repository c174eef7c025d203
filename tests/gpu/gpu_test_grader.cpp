// The grader on the GPU, end to end (issue 5's "done when"): `grader grade --solutions` gives
// full marks, the stubs get none, every deliberately wrong submission in
// tests/fixtures/wrong_submissions/ is rejected for the reason its expect.json names, and a batch over
// them runs to the end. Each test runs the real `grader` binary in a child process.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "commands/commands.hpp"
#include "engine/lab_catalog.hpp"
#include "system/subprocess.hpp"

using namespace convlab::grader;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path kBin = CONVLAB_BIN_DIR;
const fs::path kSource = CONVLAB_SOURCE_DIR;
const fs::path kWrong = kSource / "tests" / "fixtures" / "wrong_submissions";

struct GraderRun {
  ProcessResult process;
  json report;
};

// Runs `grader ARGS --json FILE` and reads the report.
GraderRun run_grader(std::vector<std::string> args, const std::string& report_name,
                     std::chrono::seconds timeout = 900s) {
  const fs::path report = fs::temp_directory_path() / fmt::format("convlab-gpu-{}.json", report_name);
  fs::remove(report);
  args.insert(args.begin(), (kBin / "grader").string());
  args.insert(args.end(), {"--json", report.string()});
  GraderRun r;
  r.process = run_process(args, timeout);
  std::ifstream in(report);
  if (in) r.report = json::parse(in);
  return r;
}

// The last lines of a long output, for failure messages.
std::string tail(const std::string& text, std::size_t chars = 6000) {
  return text.size() <= chars ? text : "..." + text.substr(text.size() - chars);
}

// The labs whose reference solution is built, as "01,03".
std::string labs_with_solutions() {
  std::string list;
  for (const LabInfo& lab : discover_labs(kSource / "labs")) {
    if (fs::exists(kBin / ("solution" + lab.number))) list += (list.empty() ? "" : ",") + lab.number;
  }
  return list;
}

bool contains(const json& array, const std::string& value) {
  return std::find(array.begin(), array.end(), value) != array.end();
}

const json& lab_of(const json& submission, const std::string& number) {
  for (const json& l : submission.at("labs")) {
    if (l.at("lab") == "lab" + number) return l;
  }
  throw std::runtime_error("no lab" + number + " in the report");
}


// Checks one graded submission against its expect.json.
void check_expectations(const std::string& name, const json& submission, const json& expect) {
  for (const auto& [number, want] : expect.at("labs").items()) {
    const json& lab = lab_of(submission, number);
    INFO(name << " lab" << number << ": " << lab.at("headline").get<std::string>() << "\nreasons "
              << lab.at("reasons").dump());
    CHECK_FALSE(lab.at("could_not_grade").get<bool>());
    for (const json& reason : want.at("reasons")) CHECK(contains(lab.at("reasons"), reason.get<std::string>()));
    if (want.at("reasons").empty()) CHECK(lab.at("reasons").empty());
    const double got = lab.at("correctness").at("points"), max = lab.at("correctness").at("max_points");
    const std::string correctness = want.at("correctness");
    if (correctness == "zero") CHECK(got == 0);
    if (correctness == "full") CHECK(got == Approx(max));
    if (correctness == "partial") CHECK((got > 0 && got < max));
    if (correctness == "not_full") CHECK(got < max);
    if (want.contains("performance")) {
      const double perf = lab.at("performance").at("points"), perf_max = lab.at("performance").at("max_points");
      if (want.at("performance") == "zero") CHECK(perf == 0);
      if (want.at("performance") == "full") CHECK(perf == Approx(perf_max));
    }
  }
}

std::string lab_list(const json& expect) {
  std::string list;
  for (const auto& [number, _] : expect.at("labs").items()) list += (list.empty() ? "" : ",") + number;
  return list;
}

}  // namespace

TEST_CASE("gpu: grader grade --solutions gives every point", "[gpu][grader]") {
  const std::string labs = labs_with_solutions();
  REQUIRE_FALSE(labs.empty());
  const GraderRun r = run_grader({"grade", "--solutions", "--labs", labs, "--timeout", "60"}, "solutions");
  INFO(tail(r.process.output));
  REQUIRE(r.process.exit_code == kGraded);
  const json& s = r.report.at("submission");
  for (const json& lab : s.at("labs")) {
    INFO(lab.at("lab").get<std::string>() << ": " << lab.at("headline").get<std::string>());
    CHECK_FALSE(lab.at("could_not_grade").get<bool>());
    CHECK(lab.at("reasons").empty());
    CHECK(lab.at("correctness").at("passed") == lab.at("correctness").at("runs"));
    CHECK(lab.at("correctness").at("runs").get<int>() > 0);
    // Timed against itself: within the rubric's full-points ratio.
    for (const json& v : lab.at("performance").at("variants")) {
      INFO(v.dump());
      CHECK(v.at("correct").get<bool>());
      CHECK(v.at("ratio").is_number());
    }
    CHECK(lab.at("points").get<double>() == Approx(lab.at("max_points").get<double>()));
  }
  CHECK(s.at("score").get<double>() == Approx(s.at("max_score").get<double>()));
}

TEST_CASE("gpu: the stubs get no points, each saying 'not implemented'", "[gpu][grader]") {
  const GraderRun r = run_grader({"grade", "--timeout", "60"}, "stubs");
  INFO(tail(r.process.output));
  REQUIRE(r.process.exit_code == kGraded);
  const json& s = r.report.at("submission");
  CHECK(s.at("score").get<double>() == 0);
  CHECK(s.at("max_score").get<double>() > 0);
  for (const json& lab : s.at("labs")) {
    INFO(lab.at("lab").get<std::string>() << ": " << lab.at("headline").get<std::string>());
    CHECK(lab.at("points").get<double>() == 0);
    CHECK(lab.at("reasons") == json::array({"not implemented"}));
  }
}

TEST_CASE("gpu: every wrong submission is rejected for its reason, and the batch completes", "[gpu][grader]") {
  std::map<std::string, json> expected;  // by folder name
  std::set<std::string> labs;
  for (const auto& entry : fs::directory_iterator(kWrong)) {
    if (!entry.is_directory()) continue;
    std::ifstream in(entry.path() / "expect.json");
    REQUIRE(in);
    const json e = json::parse(in);
    for (const auto& [number, _] : e.at("labs").items()) labs.insert(number);
    expected[entry.path().filename().string()] = e;
  }
  REQUIRE(expected.size() >= 10);
  std::string all_labs;
  for (const std::string& l : labs) all_labs += (all_labs.empty() ? "" : ",") + l;

  // One build folder for everything below, kept between test runs: a rerun recompiles nothing
  // that did not change.
  const fs::path build = kBin.parent_path() / "grader-wrong-submissions";

  // 1. The batch, over every folder. Submissions whose fault needs a flag (--sanitize) are
  //    graded again below with it; the others are checked here.
  const fs::path csv = fs::temp_directory_path() / "convlab-gpu-batch.csv";
  fs::remove(csv);
  const GraderRun batch = run_grader({"batch", kWrong.string(), "--labs", all_labs, "--timeout", "10", "--build-dir",
                                      build.string(), "--csv", csv.string()},
                                     "batch", 1800s);
  INFO(tail(batch.process.output));
  CHECK(batch.process.exit_code == kGraded);  // it ran to the end and graded everything
  REQUIRE(batch.report.at("format") == "convlab-batch");
  const json& students = batch.report.at("students");
  REQUIRE(students.size() == expected.size());
  for (const json& student : students) {
    const std::string name = student.at("name");
    if (expected.at(name).at("grade_flags").empty()) check_expectations(name, student, expected.at(name));
  }
  std::ifstream in(csv);
  REQUIRE(in);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  CHECK(lines == expected.size() + 1);  // the header and one row per student

  // A compile error is quoted from the compiler, with the student's own path.
  for (const json& student : students) {
    if (student.at("name") != "compile-error") continue;
    CHECK_THAT(lab_of(student, "02").at("build_message").get<std::string>(),
               Catch::Contains("02-constant-mask/constant_mask.cu(9): error"));
  }

  // 2. The faults that need a flag to be seen.
  for (const auto& [name, e] : expected) {
    if (e.at("grade_flags").empty()) continue;
    std::vector<std::string> args = {"grade", "--submission", (kWrong / name).string(), "--labs", lab_list(e),
                                     "--timeout", "10", "--build-dir", build.string()};
    for (const json& flag : e.at("grade_flags")) args.push_back(flag);
    const GraderRun r = run_grader(args, name);
    INFO(tail(r.process.output));
    REQUIRE(r.process.exit_code == kGraded);
    check_expectations(name, r.report.at("submission"), e);
  }

  // 3. The cheat is stopped only by the grader hiding expected.npy: built the same way and run
  //    by hand on the public datasets (expected.npy next to every input), it "passes".
  const GraderRun cheat = run_grader({"grade", "--submission", (kWrong / "reads-expected").string(), "--labs", "01",
                                      "--timeout", "10", "--build-dir", build.string()},
                                     "cheat");
  INFO(tail(cheat.process.output));
  REQUIRE(cheat.process.exit_code == kGraded);
  CHECK(lab_of(cheat.report.at("submission"), "01").at("correctness").at("passed") == 0);
  const ProcessResult by_hand = run_process(
      {(build / "bin" / "lab01").string(), (kSource / "datasets" / "conv2d").string(), "--no-time", "--quiet"}, 600s);
  INFO(tail(by_hand.output));
  CHECK(by_hand.exit_code == 0);  // every case "passes" when the answers are there to copy
}

TEST_CASE("gpu: grade --profile puts ncu's counters beside the model's, each labelled", "[gpu][grader]") {
  if (!fs::exists(kBin / "solution03")) return;
  const GraderRun r = run_grader({"grade", "--solutions", "--labs", "03", "--profile", "--timeout", "60"}, "profile");
  INFO(tail(r.process.output));
  REQUIRE(r.process.exit_code == kGraded);
  const json& lab = lab_of(r.report.at("submission"), "03");
  const json& predicted = lab.at("predicted");
  CHECK(predicted.at("label") == "predicted (analysis)");
  REQUIRE(lab.at("measured").size() == 1);  // lab 03 has one variant
  const json& measured = lab.at("measured").at(0);
  CHECK(measured.at("label") == "measured (ncu)");
  const json& global = measured.at("metrics").at("smsp__sass_data_bytes_mem_global_op_ld.sum");
  INFO(global.dump());
  if (global.at("value").is_null()) {
    // ncu missing, no permission, or n/a: said so, never a number.
    CHECK_THAT(global.at("unavailable").get<std::string>(), Catch::StartsWith("unavailable:"));
  } else {
    // The mask is in constant memory, so every global load is an input load: the thread-level
    // count equals the model's exact, ghost-corrected count (docs/design.md, GPU facts).
    CHECK(global.at("value").get<double>() == predicted.at("global_input_load_bytes").get<double>());
  }
}
