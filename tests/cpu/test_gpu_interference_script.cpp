// scripts/gpu_interference.sh, with a fake runner instead of a GPU build: the runner on GPU B
// leaves a mark while it runs, as each condition's neighbours do, and the timed runs on GPU A
// read slower while a mark of a slowing kind is there. The script must run each condition's
// neighbours on GPU B at the same time as GPU A's timed runs, and no others, and put the
// slow-down on that condition's row.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "grader_test_support.hpp"
#include "system/subprocess.hpp"

namespace fs = std::filesystem;
using convlab::grader::ProcessResult;
using convlab::grader::run_process;
using convlab::grader::testing::TempDir;
using namespace std::chrono_literals;

namespace {

const fs::path kScript = fs::path(CONVLAB_SOURCE_DIR) / "scripts" / "gpu_interference.sh";

// GPU B (CUDA_VISIBLE_DEVICES=1): a check (--output) leaves a "checks" mark for 0.3 s, a process
// that does almost nothing (--no-check) a "contexts" mark, a timed run none. GPU A (with --json):
// per-call wall 0.5 ms alone, 2.0 ms beside a check, 1.0 ms beside a context; event 0.1 ms.
void write_fake_runner(const fs::path& file, const fs::path& marks) {
  std::ofstream(file) << fmt::format(R"(#!/usr/bin/env bash
json=""; prev=""
for a in "$@"; do [[ "$prev" == --json ]] && json=$a; prev=$a; done
if [[ " $* " == *" --list "* ]]; then  # as a lab runner lists: its table first, then the JSON where --json says
  echo 'tiled  (conv2d, mask widths 1,3,5)'
  list='{{"variants": [{{"name": "tiled"}}]}}'
  if [[ "$json" == - ]]; then echo "$list"; elif [[ -n "$json" ]]; then echo "$list" > "$json"; fi
  exit 0
fi
marks='{}'
if [[ "$CUDA_VISIBLE_DEVICES" == 1 ]]; then
  kind=timed
  [[ " $* " == *" --output "* ]] && kind=checks
  [[ " $* " == *" --no-check "* ]] && kind=contexts
  [[ $kind == timed ]] && {{ sleep 0.1; exit 0; }}
  touch "$marks/$kind-$$"; sleep 0.3; rm -f "$marks/$kind-$$"; exit 0
fi
[[ "$CUDA_VISIBLE_DEVICES" == 0 ]] || {{ echo "GPU A is not 0: $CUDA_VISIBLE_DEVICES" >&2; exit 1; }}
wall=0.5
compgen -G "$marks/contexts-*" > /dev/null && wall=1.0
compgen -G "$marks/checks-*" > /dev/null && wall=2.0
echo "{{\"results\": [{{\"timed_calls\": {{\"event_median_ms\": 0.1, \"wall_median_ms\": $wall}}}}]}}" > "$json"
)",
                                     marks.string());
  fs::permissions(file, fs::perms::owner_all);
}

// The script's table: condition -> its columns (event, wall, wall-event, process, runs, ratios...).
std::map<std::string, std::vector<std::string>> table(const std::string& output) {
  std::map<std::string, std::vector<std::string>> rows;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first != "idle" && first != "contexts" && first != "checks" && first != "timed") continue;
    for (std::string w; words >> w;) rows[first].push_back(w);
  }
  return rows;
}

}  // namespace

TEST_CASE("gpu_interference.sh: each condition's neighbours run on GPU B beside GPU A's timed runs, and its "
          "slow-down lands on its own row",
          "[scripts]") {
  TempDir tmp("gpu-interference");
  const fs::path marks = tmp.path() / "marks";
  fs::create_directories(marks);
  const fs::path runner = tmp.path() / "runner";
  write_fake_runner(runner, marks);
  const ProcessResult r = run_process(
      {"/usr/bin/env", "CONVLAB_LAB_EXE=" + runner.string(), "GPUS=0 1", "CASES=" + tmp.path().string(), "/bin/bash",
       kScript.string(), "05", "3"},
      120s);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto rows = table(r.output);
  REQUIRE(rows.size() == 4);
  CHECK(rows.at("idle").at(1) == "0.5000");      // wall ms: nothing beside it
  CHECK(rows.at("contexts").at(1) == "1.0000");  // every timed run had a context maker beside it
  CHECK(rows.at("checks").at(1) == "2.0000");
  CHECK(rows.at("timed").at(1) == "0.5000");     // a timed neighbour leaves no mark
  CHECK(rows.at("checks").at(6) == "x4.00");     // wall over idle
  CHECK(rows.at("contexts").at(4) == "3");       // the runs asked for
  // The neighbours were stopped with their condition: no mark is left behind.
  CHECK(fs::is_empty(marks));
}

TEST_CASE("gpu_interference.sh: a missing runner, one GPU named twice or a bad count is a usage error", "[scripts]") {
  TempDir tmp("gpu-interference-usage");
  const auto run = [&](std::vector<std::string> env, std::vector<std::string> args) {
    std::vector<std::string> argv = {"/usr/bin/env"};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.insert(argv.end(), {"/bin/bash", kScript.string()});
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, 30s);
  };
  const ProcessResult missing = run({"CONVLAB_LAB_EXE=" + (tmp.path() / "none").string()}, {"05", "1"});
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Catch::Contains("is missing; build the GPU preset first"));
  const ProcessResult same = run({"CONVLAB_LAB_EXE=/bin/true", "GPUS=1 1"}, {"05", "1"});
  CHECK(same.exit_code == 2);
  CHECK_THAT(same.output, Catch::Contains("GPUS names two different GPUs"));
  const ProcessResult count = run({"CONVLAB_LAB_EXE=/bin/true"}, {"05", "0"});
  CHECK(count.exit_code == 2);
  CHECK_THAT(count.output, Catch::Contains("RUNS is a positive number, not '0'"));
  const ProcessResult lab = run({"CONVLAB_LAB_EXE=/bin/true"}, {"5"});
  CHECK(lab.exit_code == 2);
  CHECK_THAT(lab.output, Catch::Contains("LAB is two digits"));
}
