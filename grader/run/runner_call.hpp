// One child process of a lab runner (`labNN CASES... --json FILE --output DIR ...`), and what
// it reported. The child runs with --no-check: it never has the expected outputs, and the
// grader compares the .npy files it writes.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "run/witness_dialog.hpp"
#include "system/sandbox.hpp"
#include "system/subprocess.hpp"

namespace convlab::grader {

/// How to run a lab executable.
struct RunnerCall {
  std::filesystem::path exe;
  std::vector<std::filesystem::path> cases;  ///< staged case folders, run in this order
  std::vector<std::string> variants;         ///< --variant (empty: all)
  bool time = false;                         ///< time passing runs (and measure the ceilings)
  /// With `time`: the witness dialog around each timed phase (run/witness_dialog.hpp), this many
  /// timed calls, each output kept and sampled. 0: the runner's own timing, untrusted.
  int witnessed_calls = 0;
  int witnessed_warmup = 3;  ///< untimed calls before them (the grader's number, not the child's)
  int case_timeout_s = 10;                   ///< the runner's own --timeout per case and variant
  std::filesystem::path work_dir;            ///< gets the JSON report and the outputs/ folder
  std::vector<std::string> wrapper;          ///< a program to run it under (compute-sanitizer ...)
  std::chrono::milliseconds deadline{0};     ///< the grader's kill; 0: derived from the runs
  int planned_runs = 1;                      ///< runs expected, to derive the deadline
  int grace_s = 30;                          ///< start-up and ceilings, added to the derived deadline
  /// The sandbox to run it in (system/sandbox.hpp): the executable and the cases are added
  /// read-only, work_dir is the one writable folder. nullopt: unsandboxed (--no-sandbox).
  std::optional<SandboxSpec> sandbox;
};

/// One entry of the runner's JSON "results".
struct RunnerEntry {
  std::string case_id;   ///< "conv2d/k5_37x53", or "(crash)"
  std::string variant;
  std::string status;    ///< PASS, FAIL, SKIP, ERROR, RAN
  std::string message;               ///< for people: never searched for reasons
  std::vector<std::string> reasons;  ///< the runner's tags (convlab/run_reasons.hpp), known ones only
  std::string details;
  /// Offsets of the output buffer's changed guard elements ("output_guard_offsets"), for error
  /// maps only: at most 2 × 4096 integers are read, anything malformed is ignored.
  std::vector<std::ptrdiff_t> output_guard_offsets;
  /// The median time the runner reports. The grader derives every rate from the time it accepts
  /// (performance/time_checks.hpp), so the report's rates are not read.
  std::optional<double> time_ms;
  /// "timed_calls": what the runner says of its timed phase. Its numbers are the child's: the
  /// grader checks them against its own clock and the samples (performance/time_checks.hpp).
  struct TimedCalls {
    int runs = 0;
    int warmup = 0;
    double event_median_ms = 0;  ///< CUDA events on the default stream
    double wall_median_ms = 0;   ///< host clock, idle device to idle device
  };
  std::optional<TimedCalls> timed_calls;
};

/// The GPU's ceilings as the runner measured them ("ceilings").
struct ReportedCeilings {
  double copy_gb_per_s = 0;
  double fma_gflop_per_s = 0;
};

/// What came back.
struct RunnerReport {
  ProcessResult process;
  std::vector<RunnerEntry> entries;   ///< finished results (a hung run's report still has these)
  bool report_found = false;          ///< the JSON file existed and parsed
  bool finished = false;              ///< the runner reached its end (or reported its crash)
  std::string report_error;           ///< why the JSON could not be read
  std::optional<std::string> crash;   ///< the sticky CUDA error, when the runner reported one
  std::vector<std::string> crash_reasons;  ///< its tags (crashed, illegal address or CUDA error)
  std::filesystem::path output_dir;   ///< where the outputs are: <case name>__<variant>.npy
  std::optional<ReportedCeilings> ceilings;
  std::vector<WitnessPhase> witness;  ///< the grader's record of each timed phase (witnessed calls)

  /// The runner exited on its own with one of its codes (not killed, not crashed).
  [[nodiscard]] bool exited() const { return !process.spawn_failed && !process.signaled && !process.timed_out; }
  /// A timeout: the runner's own (exit 5) or the grader's kill.
  [[nodiscard]] bool timed_out() const { return process.timed_out || (exited() && process.exit_code == 5); }
  /// A crash: a sticky CUDA error (exit 4) or a signal.
  [[nodiscard]] bool crashed() const { return process.signaled || (exited() && process.exit_code == 4); }
};

/// The output file of one run.
std::filesystem::path output_file(const std::filesystem::path& output_dir, const std::string& case_name,
                                  const std::string& variant);

/// `argv`, run in `sandbox` with `exe` and `inputs` added read-only and `writable` the one
/// writable folder; `argv` itself when there is no sandbox. One rule for every lab run (the
/// runner, its listing, compute-sanitizer and ncu around it).
std::vector<std::string> lab_sandbox_argv(const std::optional<SandboxSpec>& sandbox, const std::filesystem::path& exe,
                                          const std::vector<std::filesystem::path>& inputs,
                                          const std::filesystem::path& writable, const std::vector<std::string>& argv);

/// Runs the lab and reads its report; never throws for the child's failures.
RunnerReport call_runner(const RunnerCall& call);

}  // namespace convlab::grader
