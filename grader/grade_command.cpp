// grader grade: run every lab's executable over the datasets, each in a child process with a
// timeout, and summarize. (Points, rubrics, submissions and Gradescope output: issue 5.)
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "convlab/device_info.hpp"
#include "subprocess.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

namespace {

struct LabEntry {
  const char* number;
  const char* problem;  // dataset subfolder
};
constexpr LabEntry kLabs[] = {{"01", "conv2d"}, {"02", "conv2d"}, {"03", "conv2d"}, {"04", "conv2d"},
                              {"05", "conv2d"}, {"06", "conv_layer"}, {"07", "conv2d"}};

struct LabSummary {
  std::string lab;
  int passed = 0, failed = 0, skipped = 0;
  std::string status;  // "ok", "failed", "not built", "crashed: ...", ...
  std::string first_failure;
};

LabSummary grade_one(const fs::path& exe, const std::string& lab, const fs::path& cases, int timeout_s) {
  LabSummary s;
  s.lab = lab;
  if (!fs::exists(exe)) {
    s.status = "not built (" + exe.filename().string() + " is missing)";
    return s;
  }
  const fs::path json_path = fs::temp_directory_path() / fmt::format("convlab-{}-{}.json", lab, getpid());
  const ProcessResult pr = run_process({exe.string(), cases.string(), "--quiet", "--json", json_path.string(),
                                        "--timeout", std::to_string(timeout_s)},
                                       std::chrono::seconds(timeout_s * 4 + 60));
  std::ifstream in(json_path);
  if (in) {
    try {
      const auto j = nlohmann::json::parse(in);
      for (const auto& r : j.at("results")) {
        const std::string st = r.at("status");
        if (st == "PASS" || st == "RAN") ++s.passed;
        else if (st == "SKIP") ++s.skipped;
        else {
          ++s.failed;
          if (s.first_failure.empty()) {
            s.first_failure = fmt::format("{} {}: {}", r.value("variant", ""), r.value("case", ""), r.value("message", ""));
          }
        }
      }
    } catch (const std::exception& e) {
      s.status = fmt::format("unreadable results ({})", e.what());
    }
  }
  fs::remove(json_path);
  if (!s.status.empty()) return s;
  if (pr.timed_out || pr.signaled || pr.spawn_failed) {
    s.status = pr.describe();
  } else if (pr.exit_code == 4) {
    s.status = "crashed (sticky CUDA error)";
    ++s.failed;
  } else if (pr.exit_code == 5) {
    s.status = "timed out on a case";
    ++s.failed;
  } else if (pr.exit_code == 0) {
    s.status = "ok";
  } else if (pr.exit_code == 1) {
    s.status = "failed";
  } else {
    s.status = fmt::format("runner error ({}): {}", pr.describe(), pr.output.substr(0, 300));
  }
  return s;
}

}  // namespace

void add_grade_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("grade", "run every lab over the datasets and summarize");
  struct Args {
    bool solutions = false;
    std::string datasets;
    int timeout_s = 120;
  };
  auto args = std::make_shared<Args>();
  cmd->add_flag("--solutions", args->solutions, "grade the reference solutions instead of labs/");
  cmd->add_option("--datasets", args->datasets, "dataset root holding conv2d/ and conv_layer/ (default: the public set)");
  cmd->add_option("--timeout", args->timeout_s, "seconds per case")->check(CLI::Range(1, 3600));
  cmd->callback([args, &exit_code] {
    std::string why;
    const auto device = query_device(&why);
    if (!device) {
      fmt::print(stderr,
                 "grader: cannot grade: {}.\n"
                 "Grading runs each lab's CUDA kernels, so it needs a machine with an NVIDIA GPU and its driver.\n"
                 "Everything that needs no GPU (references, analysis tables, tests) works here: try\n"
                 "  build/bin/grader tables\n",
                 why);
      exit_code = kCouldNotGrade;
      return;
    }
    const fs::path root = args->datasets.empty() ? source_dir() / "datasets" : fs::path(args->datasets);
    fmt::print("Grading {} on {} with the datasets in {}\n", args->solutions ? "solutions/" : "labs/",
               device->describe(), root.string());
    std::vector<LabSummary> rows;
    for (const LabEntry& e : kLabs) {
      const std::string name = std::string(args->solutions ? "solution" : "lab") + e.number;
      fmt::print("  running {} ...\n", name);
      std::fflush(stdout);
      rows.push_back(grade_one(bin_dir() / name, name, root / e.problem, args->timeout_s));
    }
    fmt::print("\n{:<12} {:>7} {:>7} {:>8}  {}\n", "lab", "passed", "failed", "skipped", "status");
    int total_pass = 0, total_fail = 0;
    for (const LabSummary& r : rows) {
      fmt::print("{:<12} {:>7} {:>7} {:>8}  {}\n", r.lab, r.passed, r.failed, r.skipped, r.status);
      if (!r.first_failure.empty()) fmt::print("{:<12} first failure: {}\n", "", r.first_failure.substr(0, 160));
      total_pass += r.passed;
      total_fail += r.failed;
    }
    fmt::print("\n{} case runs passed, {} failed. (Points, rubrics and JSON reports come with the full grader.)\n",
               total_pass, total_fail);
    exit_code = kGraded;
  });
}

}  // namespace convlab::grader
