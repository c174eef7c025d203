// The grader on the GPU, end to end (docs/design.md, Targets and Grader contract): `grader grade --solutions` gives
// full marks, the stubs get none, every deliberately wrong submission in
// tests/fixtures/wrong_submissions/ (made whole from its fault: tests/support/wrong_submissions.hpp)
// is rejected for the reason its expect.json names, and a batch over them runs to the end — in
// the sandbox, which the hostile ones among them cannot get out of.
// Each test runs the real `grader` binary in a child process.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "commands/commands.hpp"
#include "build/lab_folders.hpp"
#include "gpu_lab_run.hpp"
#include "system/subprocess.hpp"
#include "system/tool_paths.hpp"
#include "test_paths.hpp"
#include "wrong_submissions.hpp"

using namespace convlab::grader;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using convlab::testing::kBin;
const fs::path kSource = CONVLAB_SOURCE_DIR;
using convlab::testing::kWrongSubmissionFixtures;

struct GraderRun {
  ProcessResult process;
  json report;
};

// Runs `grader ARGS --json FILE` (in `working_dir`, if given) and reads the report.
GraderRun run_grader(std::vector<std::string> args, const std::string& report_name,
                     std::chrono::seconds timeout = 900s, const std::string& working_dir = "") {
  const fs::path report = fs::temp_directory_path() / fmt::format("convlab-gpu-{}.json", report_name);
  fs::remove(report);
  args.insert(args.begin(), (kBin / "grader").string());
  args.insert(args.end(), {"--json", report.string()});
  GraderRun r;
  r.process = run_process(args, timeout, working_dir);
  std::ifstream in(report);
  if (in) r.report = json::parse(in);
  return r;
}

using convlab::testing::tail;

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

// Every file under `root` by relative path, with its bytes: "byte-identical" compares these.
std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    files[fs::relative(e.path(), root).string()] = s.str();
  }
  return files;
}

// What the hostile submissions reach for, while the batch runs: a loopback listener on the
// port connects-to-loopback tries, and a secret in the grader's environment.
class HostileBait {
 public:
  HostileBait() {
    setenv("CONVLAB_TEST_SECRET", "hunter2", 1);
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(47391);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    listening_ = bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && listen(fd_, 1024) == 0;
  }
  ~HostileBait() {
    close(fd_);
    unsetenv("CONVLAB_TEST_SECRET");
  }
  [[nodiscard]] bool listening() const { return listening_; }

 private:
  int fd_ = -1;
  bool listening_ = false;
};

// `number` by value: GCC's -Wdangling-reference takes a reference returned beside a temporary
// argument (a literal made a std::string) for one into that temporary.
const json& lab_of(const json& submission, std::string_view number) {
  const std::string name = "lab" + std::string(number);
  for (const json& l : submission.at("labs")) {
    if (l.at("lab") == name) return l;
  }
  throw std::runtime_error("no " + name + " in the report");
}


// Checks one graded submission against its expect.json.
// `key`: "labs", what the grader must report; "without_host_code_check", what it must report
// with --no-host-code-check (the layers behind that check, alone).
void check_expectations(const std::string& name, const json& submission, const json& expect,
                        const std::string& key = "labs") {
  for (const auto& [number, want] : expect.at(key).items()) {
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
    // Lab 06's stretch step is done in the solution: a bonus line, no extra points.
    if (lab.at("lab") == "lab06") {
      CHECK(lab.at("bonus") == json::array({"bonus: stretch variant tf32_tensor_core passes all " +
                                            std::to_string(lab.at("correctness").at("runs").get<int>() / 7) + " runs"}));
    }
  }
  CHECK(s.at("score").get<double>() == Approx(s.at("max_score").get<double>()));
}

TEST_CASE("gpu: lab 06 with steps 1-3 done and the stretch step left as the stub gets every point",
          "[gpu][grader][lab06][stretch]") {
  // The solution's files, with tf32_gemm.cu as shipped in labs/ (the stretch stub).
  const fs::path dir = fs::temp_directory_path() / "convlab-gpu-lab06-stretch-stub";
  fs::remove_all(dir);
  fs::create_directories(dir / "06-im2col");
  for (const auto& e : fs::directory_iterator(kSource / "solutions" / "06-im2col")) {
    fs::copy_file(e.path(), dir / "06-im2col" / e.path().filename());
  }
  fs::copy_file(kSource / "labs" / "06-im2col" / "tf32_gemm.cu", dir / "06-im2col" / "tf32_gemm.cu",
                fs::copy_options::overwrite_existing);
  const GraderRun r = run_grader({"grade", "--submission", dir.string(), "--labs", "06", "--timeout", "60",
                                  "--build-dir", (dir.parent_path() / "convlab-gpu-lab06-stretch-build").string()},
                                 "lab06-stretch-stub");
  INFO(tail(r.process.output));
  REQUIRE(r.process.exit_code == kGraded);
  const json& lab = lab_of(r.report.at("submission"), "06");
  INFO(lab.at("headline").get<std::string>());
  CHECK(lab.at("points").get<double>() == Approx(10));
  CHECK(lab.at("max_points").get<double>() == Approx(10));
  CHECK(lab.at("correctness").at("failures").empty());
  CHECK(lab.at("bonus").empty());
  CHECK_THAT(lab.at("notes").dump(), Catch::Contains("stretch variant tf32_tensor_core is not implemented"));
  for (const json& v : lab.at("performance").at("variants")) CHECK(v.at("variant") != "tf32_tensor_core");
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
  for (const auto& entry : fs::directory_iterator(kWrongSubmissionFixtures)) {
    if (!entry.is_directory()) continue;
    std::ifstream in(entry.path() / "expect.json");
    REQUIRE(in);
    const json e = json::parse(in);
    for (const auto& [number, _] : e.at("labs").items()) labs.insert(number);
    expected[entry.path().filename().string()] = e;
  }
  REQUIRE(expected.size() >= 10);
  // The submissions, made whole from their faults.
  const fs::path wrong = fs::temp_directory_path() / "convlab-gpu-wrong-submissions";
  fs::remove_all(wrong);
  const ProcessResult made = convlab::testing::make_wrong_submissions(wrong);
  INFO(made.output);
  REQUIRE(made.exit_code == 0);
  std::string all_labs;
  for (const std::string& l : labs) all_labs += (all_labs.empty() ? "" : ",") + l;

  // One build folder for everything below, kept between test runs: a rerun recompiles nothing
  // that did not change.
  const fs::path build = kBin.parent_path() / "grader-wrong-submissions";

  // 1. The batch, over every folder. Submissions whose fault needs a flag (--sanitize) are
  //    graded again below with it; the others are checked here.
  //    The grader runs in a reports folder (writes-outside aims at it) beside an earlier report;
  //    afterwards the datasets, that folder and the project's build folder are byte-identical.
  const fs::path reports = fs::temp_directory_path() / "convlab-gpu-batch-reports";
  fs::remove_all(reports);
  fs::create_directories(reports);
  std::ofstream(reports / "earlier-report.json") << "{\"format\": \"convlab-batch\"}\n";
  const auto datasets_before = snapshot(kSource / "datasets");
  const auto reports_before = snapshot(reports);
  const auto bin_before = snapshot(kBin);
  const fs::path csv = fs::temp_directory_path() / "convlab-gpu-batch.csv";
  fs::remove(csv);
  GraderRun batch;
  {
    HostileBait bait;
    REQUIRE(bait.listening());
    batch = run_grader({"batch", wrong.string(), "--labs", all_labs, "--timeout", "10", "--build-dir",
                        build.string(), "--csv", csv.string()},
                       "batch", 1800s, reports.string());
  }
  INFO(tail(batch.process.output));
  CHECK(snapshot(kSource / "datasets") == datasets_before);
  CHECK(snapshot(reports) == reports_before);
  CHECK(snapshot(kBin) == bin_before);
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
               Catch::Contains("02-constant-mask/constant_mask.cu(64): error"));
  }

  // 2. The faults that need a flag to be seen.
  for (const auto& [name, e] : expected) {
    if (e.at("grade_flags").empty()) continue;
    std::vector<std::string> args = {"grade", "--submission", (wrong / name).string(), "--labs", lab_list(e),
                                     "--timeout", "10", "--build-dir", build.string()};
    for (const json& flag : e.at("grade_flags")) args.push_back(flag);
    const GraderRun r = run_grader(args, name);
    INFO(tail(r.process.output));
    REQUIRE(r.process.exit_code == kGraded);
    check_expectations(name, r.report.at("submission"), e);
  }

  // 3. Past the host-code check (which refuses it: it opens files), the cheat is stopped only by
  //    the grader hiding expected.npy: the executable the grader built and ran (kept with
  //    --build-dir), run by hand on the public datasets (expected.npy next to every input),
  //    "passes".
  const GraderRun cheat = run_grader({"grade", "--submission", (wrong / "reads-expected").string(), "--labs", "01",
                                      "--timeout", "10", "--build-dir", build.string(), "--no-host-code-check"},
                                     "cheat");
  INFO(tail(cheat.process.output));
  REQUIRE(cheat.process.exit_code == kGraded);
  CHECK(lab_of(cheat.report.at("submission"), "01").at("correctness").at("runs").get<int>() > 0);  // built, and run
  CHECK(lab_of(cheat.report.at("submission"), "01").at("correctness").at("passed") == 0);
  const ProcessResult by_hand = run_process(
      {(build / "executables" / "reads-expected" / "lab01" / "lab01").string(), (kSource / "datasets" / "conv2d").string(),
       "--no-time", "--quiet"},
      600s);
  INFO(tail(by_hand.output));
  CHECK(by_hand.exit_code == 0);  // every case "passes" when the answers are there to copy

  // 4. The layers behind the host-code check, alone: the cheats it refuses, graded again with
  //    --no-host-code-check, are still stopped by the sandbox or by the grader's checks of time.
  const fs::path alone = fs::temp_directory_path() / "convlab-gpu-without-host-code-check";
  fs::remove_all(alone);
  fs::create_directories(alone);
  for (const auto& [name, e] : expected) {
    if (e.contains("without_host_code_check")) fs::copy(wrong / name, alone / name, fs::copy_options::recursive);
  }
  REQUIRE_FALSE(fs::is_empty(alone));
  GraderRun unchecked;
  {
    HostileBait bait;
    REQUIRE(bait.listening());
    unchecked = run_grader({"batch", alone.string(), "--labs", "01", "--timeout", "10", "--build-dir", build.string(),
                            "--no-host-code-check"},
                           "batch-unchecked", 1800s, reports.string());
  }
  INFO(tail(unchecked.process.output));
  CHECK(unchecked.process.exit_code == kGraded);
  for (const json& student : unchecked.report.at("students")) {
    const std::string name = student.at("name");
    check_expectations(name, student, expected.at(name), "without_host_code_check");
  }
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
    // ncu missing or no permission to read the counters: said so, never a number. Anything
    // else unmeasured on a GPU machine with ncu is a failure of the profiling pass.
    const std::string why = global.at("unavailable").get<std::string>();
    CHECK_THAT(why, Catch::StartsWith("unavailable:"));
    const bool ncu_missing = find_tool("ncu") == std::nullopt && !fs::exists("/usr/local/cuda/bin/ncu");
    if (!ncu_missing) CHECK_THAT(why, Catch::Contains("ERR_NVGPUCTRPERM"));
  } else {
    // The mask is in constant memory, so every global load is an input load: the thread-level
    // count equals the model's exact, ghost-corrected count (docs/design.md, GPU facts).
    CHECK(global.at("value").get<double>() == predicted.at("global_input_load_bytes").get<double>());
  }
}
