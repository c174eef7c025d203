// scripts/class_speedup.sh, with a fake grader instead of a GPU build: the fake's `batch` writes
// the reports a real one writes (CSV, schedule JSON), and takes half as long on two GPUs as on
// one. Two GPUs flag one student's lab with a time check and change another's correctness, as a
// racy lab can. The script must print each run's row, the speed-up from the wall times it
// measured, a student's median phases and a lab's seconds of a turn alone, what each GPU waited
// for while idle, the flagged lab by name, and the student whose correctness differs, and fail
// for it.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "grader_test_support.hpp"
#include "system/subprocess.hpp"

namespace fs = std::filesystem;
using convlab::grader::ProcessResult;
using convlab::grader::run_process;
using convlab::grader::testing::TempDir;
using namespace std::chrono_literals;

namespace {

const fs::path kScript = fs::path(CONVLAB_SOURCE_DIR) / "scripts" / "class_speedup.sh";

// `grader harness --out DIR --quiet` and `grader batch CLASS ... --csv --json --schedule --gpus`.
void write_fake_grader(const fs::path& file) {
  std::ofstream(file) << R"FAKE(#!/usr/bin/env bash
if [[ $1 == harness ]]; then echo '{"harness": "h", "cuda_architectures": "90", "core_s": 12.0, "seconds": 1.5}'; exit 0; fi
[[ $1 == batch ]] || { echo "fake grader: no command $1" >&2; exit 2; }
prev=""
for a in "$@"; do
  case $prev in --csv) csv=$a ;; --schedule) schedule=$a ;; --gpus) gpus=$a ;; esac
  prev=$a
done
if [[ $gpus == 0 ]]; then
  sleep 1.2; n=1; bflag=""; b_score=10; c_correct=7
  turns='[[{"alone": false, "start_s": 0.0, "end_s": 1.0}, {"alone": true, "start_s": 1.5, "end_s": 3.0}]]'
else
  sleep 0.6; n=2; bflag="time below the grader's clock"; b_score=9; c_correct=5
  turns='[[{"alone": false, "start_s": 0.0, "end_s": 1.0}, {"alone": true, "start_s": 1.0, "end_s": 3.0}],
          [{"alone": false, "start_s": 0.0, "end_s": 1.0}, {"alone": true, "start_s": 1.0, "end_s": 2.0},
           {"alone": false, "start_s": 3.0, "end_s": 4.0}]]'
fi
cat > "$csv" <<CSV
student,score,max_score,status,lab01_points,lab01_correctness,lab01_performance,lab01_runs_passed,lab01_runs,lab01_reasons,could_not_grade
a,10,10,graded,10,7,3,5,5,,
b,$b_score,10,graded,$b_score,7,$((b_score - 7)),5,5,$bflag,
c,$((c_correct + 3)),10,graded,$((c_correct + 3)),$c_correct,3,4,5,,
CSV
cat > "$schedule" <<JSON
{"format": "convlab-schedule", "version": 1,
 "measured": {"cores": 32, "gpus": $n, "wall_s": 1.0, "build_core_s": 64.0, "gpu_s": 4.0, "bound_s": $((4 / n)).0,
              "first_on_gpu_s": 0.5, "compiles": 3, "shared": 0, "gpu_turns": $turns},
 "submissions": [
  {"submission": "a", "checks_s": 1.0, "timing_s": 2.0, "waited_s": 0.0, "timing_by_lab": [{"lab": "lab01", "s": 2.0}]},
  {"submission": "b", "checks_s": 3.0, "timing_s": 4.0, "waited_s": 1.0,
   "timing_by_lab": [{"lab": "lab01", "s": 2.5}, {"lab": "lab02", "s": 1.5}]},
  {"submission": "c", "checks_s": 5.0, "timing_s": 0.0, "waited_s": 2.0}]}
JSON
)FAKE";
  fs::permissions(file, fs::perms::owner_all);
}

}  // namespace

TEST_CASE("class_speedup.sh: both runs' rows, the speed-up from its own clock, the phases, the flagged lab and "
          "the student whose correctness moved",
          "[scripts]") {
  TempDir tmp("class-speedup");
  const fs::path grader = tmp.path() / "grader";
  write_fake_grader(grader);
  const fs::path out = tmp.path() / "out";
  fs::create_directories(out / "class");  // a class already made: make_class.sh is not run
  const ProcessResult r =
      run_process({"/usr/bin/env", "CONVLAB_GRADER=" + grader.string(), "/bin/bash", kScript.string(), out.string(), "3"},
                  60s);
  INFO(r.output);
  CHECK(r.exit_code == 1);  // a student's correctness differs between the runs
  CHECK_THAT(r.output, Catch::Contains("harness (built once, before the runs): 1.5 s, 12 core-s"));
  std::smatch m;
  const std::string& o = r.output;
  REQUIRE(std::regex_search(o, m, std::regex(R"(two GPUs over one: ([0-9.]+)x)")));
  const double speedup = std::stod(m[1]);
  CHECK(speedup > 1.4);  // 1.2 s against 0.6 s of sleep, the script's start-up on both
  CHECK(speedup < 2.5);
  CHECK(std::regex_search(o, std::regex(R"(one-gpu +[0-9.]+s +1\.0s +4\.0s)")));
  CHECK(std::regex_search(o, std::regex(R"(two-gpus +[0-9.]+s +1\.0s +2\.0s)")));
  // Medians over the students with time in that phase: c was never timed.
  CHECK_THAT(o, Catch::Contains("one-gpu: a student's medians: checks 3.0 s, timing alone 4.0 s, waiting for the GPU 2.0 s; "
                                "labs with a time flag: 0"));
  CHECK_THAT(o, Catch::Contains("two-gpus: a student's medians: checks 3.0 s, timing alone 4.0 s, waiting for the GPU 2.0 s; "
                                "labs with a time flag: 1 (b:lab01)"));
  // Each lab's seconds of a turn alone, over the students timed in it (c has none; b alone timed lab02).
  CHECK_THAT(o, Catch::Contains("one-gpu: a lab's seconds in a turn alone (median): lab01 2.50, lab02 1.50"));
  // What each GPU waited for while idle: one GPU alone waits only for its students; on two, GPU 0
  // waits while GPU 1 checks again (3 to 4), GPU 1 while GPU 0 still times (2 to 3).
  CHECK_THAT(o, Catch::Contains("one-gpu GPU 0: busy 2.5 s, idle 0.5 s: 0.0 while another GPU timed, 0.0 while "
                                "another only checked, 0.5 while no GPU was busy"));
  CHECK_THAT(o, Catch::Contains("two-gpus GPU 0: busy 3.0 s, idle 1.0 s: 0.0 while another GPU timed, 1.0 while "
                                "another only checked, 0.0 while no GPU was busy"));
  CHECK_THAT(o, Catch::Contains("two-gpus GPU 1: busy 3.0 s, idle 1.0 s: 1.0 while another GPU timed, 0.0 while "
                                "another only checked, 0.0 while no GPU was busy"));
  CHECK_THAT(o, Catch::Contains("CORRECTNESS DIFFERS: c"));
  CHECK_THAT(o, Catch::Contains("speed points moved: b 10 -> 9"));
  CHECK_THAT(o, Catch::Contains("3 students; 1 students differ in correctness"));
}
