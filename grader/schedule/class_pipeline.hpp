// Grading a whole class on one host as a pipeline: every lab of every student is a build job
// (schedule/lab_jobs.hpp: from the shared compile store, or compiled with cores from the run's
// budget), taken in the students' order, so the first students are built with as many cores as
// their labs can use and reach the GPUs first, and the later ones are built while the GPUs grade.
// A student goes to the GPUs with its first built lab, and its other labs follow as they are
// built: its worker checks each lot in a shared turn while the rest compile, so that a student's
// slowest compile (lab 07's) no longer holds back its quick labs, nor, at the start of a run, the
// GPUs. GPU workers grade the students — correctness, sanitizer, timing: each GPU has
// `students_per_gpu` workers, each grading one student at a time; the students on one GPU share
// it for their correctness and sanitizer runs and take turns for their timed runs, so that a
// timed run always has the GPU to itself (session/gpu_turns.hpp). Each GPU has one grading
// environment, shared by its workers, so the reference solutions are timed once per GPU, on the
// GPU whose students they are compared with: from the start of the run, while the first builds
// run, a lab at a time, each in a turn alone, so that the first students' checks come between
// them. Every child a GPU worker starts sees only its GPU (CUDA_VISIBLE_DEVICES).
//
// The results come back sorted by the submission's name whatever the order in which they
// finished, so the reports are the same as those of one student after another. A build that
// throws costs only that lab; a grading that throws, only that student.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schedule/gpu_selection.hpp"
#include "session/grade_result.hpp"
#include "session/gpu_environment.hpp"
#include "grade/lab_grader.hpp"
#include "schedule/lab_jobs.hpp"

namespace convlab::grader {

/// One student's folder.
struct ClassSubmission {
  std::string name;
  std::filesystem::path folder;
  std::string refused;  ///< non-empty: the entry is not graded, and its row says why (class_folder.hpp)
};

/// When and where one submission was graded: seconds since the pipeline started.
struct ScheduleRecord {
  std::string submission;
  double build_start_s = 0, build_end_s = 0;  ///< its first lab's build began, its last one's ended
  double build_core_s = 0;   ///< CPU seconds of its labs' compiles (a lab shared from the store: none)
  std::vector<LabBuild> labs;  ///< each lab's build, in the run's lab order
  int gpu = -1;  ///< GpuSlot::index; -1: never reached a GPU (its build threw)
  int gpu_worker = -1;  ///< which of the GPU's workers: 0 .. students_per_gpu-1
  /// From its first check (its first lab built and a shared turn taken) to its result.
  double gpu_start_s = 0, gpu_end_s = 0;
  GpuPhases phases;  ///< its time on the GPU: checks (shared), timing (alone), waiting for turns
};

/// A turn that held a GPU, in seconds since the run started.
struct TurnSpan {
  bool alone = false;  ///< a turn alone (timing), else shared (checks)
  double start_s = 0, end_s = 0;
};

/// The turns `turns` held and released so far (GpuTurns::spans), in seconds since `start`.
std::vector<TurnSpan> turn_spans(GpuTurns& turns, std::chrono::steady_clock::time_point start);

/// What a class cost the machine, measured; the lower bound of its wall time is
/// max(build_core_s / cores, Σ gpu_busy_s / gpus).
struct ClassCost {
  int cores = 0;                  ///< the cores the builds had
  double wall_s = 0;              ///< from the start of grading (the harness's build included) to the last report
  double build_core_s = 0;        ///< CPU seconds of every build step: harness, compile folders, labs
  double harness_core_s = 0;      ///< of which the harness (0 when prebuilt: --harness)
  double setup_core_s = 0;        ///< of which configuring compile folders
  std::vector<double> gpu_busy_s; ///< per GPU: seconds some student's (or the references') turn held it
  std::vector<std::vector<TurnSpan>> gpu_turns;  ///< per GPU: every turn it held, the references' too
  double first_on_gpu_s = -1;     ///< when the first check of a student began (-1: none did)
  int compiles = 0;               ///< lab compiles that ran
  int shared = 0;                 ///< labs copied from an identical student's compile
  [[nodiscard]] double gpu_s() const;
  /// max(build_core_s / cores, gpu_s() / GPUs): no schedule can end sooner.
  [[nodiscard]] double bound_s() const;
};

/// Where the run stands, after each submission.
struct ClassProgress {
  std::size_t done = 0, total = 0;
  double elapsed_s = 0;
  std::string submission;  ///< the one that just finished
  int gpu = -1;
  double score = 0, max_score = 0;
  bool could_not_grade = false;

  [[nodiscard]] double per_minute() const;
  /// Seconds left at the rate so far; nullopt before the first one is done.
  [[nodiscard]] std::optional<double> eta_s() const;
  /// "[3/20] alice: 57.5/100 on GPU 1 | 4.2/min, about 4 min left".
  [[nodiscard]] std::string line() const;
};

/// What a class run needs.
struct ClassPlan {
  std::vector<ClassSubmission> submissions;
  std::vector<LabInfo> labs;
  std::vector<GpuSlot> gpus;
  int students_per_gpu = 1;        ///< GPU workers per GPU: students graded on it at once
  std::filesystem::path work_dir;  ///< executables between the two stages
  /// When the run started: every time of the schedule counts from it (LabJobs's too).
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  /// Reads one student's labs for their builds, one per lab of `labs`, in the order to start
  /// them; may throw for the student's folder (that student alone is not graded).
  std::function<std::vector<StagedLab>(const ClassSubmission&)> stage;
  /// A place in the cores' line for the job of `priority` (lower first: LabJobs::line_up), taken
  /// when the job is handed out, in the students' order.
  std::function<CoreBudget::Ticket(std::uint64_t priority)> line_up;
  /// Builds one staged lab of a student into exe_dir with its place in line (LabJobs::build).
  std::function<LabBuild(const ClassSubmission&, const StagedLab&, const std::filesystem::path& exe_dir,
                         CoreBudget::Ticket ticket)>
      build;
  int build_threads = 1;           ///< labs built, or waiting for cores or for an identical compile, at once
  /// The grading environment of one GPU, made once, on the thread of one of its workers.
  std::function<std::unique_ptr<GradingEnvironment>(const GpuSlot&)> make_environment;
  std::function<void(const ClassProgress&)> on_progress;  ///< may be empty; called under a lock
};

/// What came back.
struct ClassOutcome {
  std::vector<SubmissionResult> results;  ///< sorted by name
  std::vector<ScheduleRecord> schedule;   ///< sorted by name
  ClassCost cost;                         ///< wall time, first student on a GPU, GPU busy times (the builds' cores: the caller's)
};

/// Grades the class. Never throws for one submission's failure.
ClassOutcome grade_class(const ClassPlan& plan);

}  // namespace convlab::grader
