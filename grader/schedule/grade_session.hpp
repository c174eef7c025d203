// What `grader grade` and `grader batch` share: a grading run set up from their options (labs,
// rubric, GPU, tools, case set) — or exactly one message for the first thing that stops it, a bad
// option (exit 2) or something the grader cannot do here (exit 3) — and the ways it grades: the
// project's build, one student's folder, a class. The options are parsed in
// commands/grade_command.cpp; the reports are written in reports/.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schedule/class_pipeline.hpp"
#include "session/grade_result.hpp"
#include "session/gpu_environment.hpp"
#include "grade/lab_grader.hpp"
#include "schedule/platform.hpp"
#include "build/lab_compile.hpp"
#include "schedule/lab_jobs.hpp"

namespace convlab::grader {

/// The options of grade and batch (commands/grade_command.cpp parses them).
struct GradeOptions {
  bool solutions = false;          ///< grade solutions/ instead of labs/
  std::string submission;          ///< grade a student's folder
  std::string batch_dir;           ///< batch: one submission per subfolder
  std::string labs;                ///< "01,03" (default: all)
  std::string datasets;            ///< a private case folder
  std::optional<std::uint64_t> random_seed;
  int random_count = 20;
  std::string rubric;              ///< default: grader/rubric.json
  int timeout_s = 20;
  bool sanitize = false;
  bool profile = false;
  std::string json, gradescope, csv;
  std::string build_dir;           ///< where submissions are built (default: a temporary folder)
  std::string harness;             ///< a harness built before by `grader harness` (default: built in the run)
  int jobs = 0;                    ///< cores for the builds (0: every core)
  std::string gpus;                ///< batch: "0,1" (default: every GPU the grader sees)
  int students_per_gpu = 0;        ///< batch: students graded on one GPU at once (0: the default)
  std::string schedule;            ///< batch: where and when each submission was graded, as JSON
  bool serial = false;             ///< batch: one submission after another, no pipeline
  bool quiet = false;
  bool keep_work = false;
  bool no_sandbox = false;         ///< run the submissions' steps unsandboxed (reports say so)
  bool no_host_code_check = false; ///< build labs whose host code breaks build/host_code_rules.hpp (reports say so)
  std::string error_map;           ///< grade: draw each failing run's error map into this folder
};

class GradeSession;

/// Why a grading run could not be set up: the whole message, and the exit code it ends with
/// (kUsageError or kCouldNotGrade).
struct SessionError {
  int exit_code = 0;
  std::string message;
};

/// A grading run set up, or why not.
struct SessionStart {
  std::unique_ptr<GradeSession> session;  ///< null when `error` is set
  std::optional<SessionError> error;
  std::vector<std::string> warnings;      ///< to say before grading (--no-sandbox, cases skipped)
};

/// Sets up a grading run: what the user typed first (kUsageError), then what this machine
/// cannot do (kCouldNotGrade), then the case set. Prints nothing but progress lines.
SessionStart open_grade_session(const GradeOptions& o);

/// A grading run, set up (open_grade_session).
class GradeSession {
 public:
  ~GradeSession();

  GradingEnvironment& env() { return *env_; }
  [[nodiscard]] const std::vector<LabInfo>& labs() const { return labs_; }
  [[nodiscard]] const RunInfo& run_info() const { return run_; }

  /// Grades the project's own build of labs/ (or solutions/ with `solutions`).
  SubmissionResult grade_project(bool solutions);
  /// Builds a student's folder (every lab at once, with every core of -j), then grades it;
  /// `record`, if given, gets its builds and GPU times.
  SubmissionResult grade_folder(const std::filesystem::path& folder, const std::string& name,
                                ScheduleRecord* record = nullptr);

  /// Grades a class as a pipeline (schedule/class_pipeline.hpp): its labs built on the -j cores,
  /// earlier students first, and --students-per-gpu grading workers on each GPU of --gpus.
  /// @throws std::invalid_argument for a bad --gpus.
  ClassOutcome grade_class(const std::vector<ClassSubmission>& submissions);
  /// Grades a class one submission after another (build, then grade), on the first GPU of
  /// --gpus: the baseline the pipeline is measured against.
  ClassOutcome grade_class_serially(const std::vector<ClassSubmission>& submissions);

  /// Prints a progress line on stderr (unless --quiet).
  void progress(const std::string& line) const;

 private:
  friend SessionStart open_grade_session(const GradeOptions& o);
  explicit GradeSession(const GradeOptions& o) : options_(o) {}
  /// Where submissions are built: --build-dir, or a folder of the session's own.
  std::filesystem::path build_root() const;
  /// The run's labs as build jobs (schedule/lab_jobs.hpp), made on first use: the harness
  /// (--harness, else built in build_root()/harness on every core), the compile folders in
  /// build_root()/labs, the compile store in build_root()/store, the -j cores. Every compile
  /// runs in the session's sandbox (none only under --no-sandbox). Called from the session's
  /// own thread, before any build thread starts.
  LabJobs& lab_jobs();
  /// lab07_precompile --shapes for this run's cases: every conv2d case and lab 07's performance case.
  std::string lab07_shapes() const;
  /// What the run's builds cost so far, on top of what `outcome` measured of its labs and GPUs.
  void add_build_costs(ClassOutcome& outcome);

  GradeOptions options_;
  std::vector<LabInfo> all_labs_, labs_;
  RunInfo run_;
  std::string cuda_architectures_;
  std::filesystem::path work_root_;
  std::unique_ptr<GradingEnvironment> env_;
  std::shared_ptr<HarnessBuild> harness_;
  std::unique_ptr<LabJobs> jobs_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();  ///< the builds' clock
};

}  // namespace convlab::grader
