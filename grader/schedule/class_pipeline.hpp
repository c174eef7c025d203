// Grading a whole class on one host as a pipeline: a pool of CPU workers builds submissions
// (each worker owns a build folder, so no two builds share files) while GPU workers grade the
// built ones — correctness, sanitizer, timing. Each GPU has `students_per_gpu` workers, each
// grading one student at a time; the students on one GPU share it for their correctness and
// sanitizer runs and take turns for their timed runs, so that a timed run always has the GPU
// to itself (session/gpu_turns.hpp). Each GPU has one grading environment, shared by its
// workers, so the reference solutions are timed once per GPU, on the GPU whose students they
// are compared with, and before its first student, while the first builds run. Every child a
// GPU worker starts sees only its GPU (CUDA_VISIBLE_DEVICES).
//
// The results come back sorted by the submission's name whatever the order in which they
// finished, so the reports are the same as those of one student after another. A build or a
// grading that throws costs only that student.
#pragma once

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

namespace convlab::grader {

/// One student's folder.
struct ClassSubmission {
  std::string name;
  std::filesystem::path folder;
  std::string refused;  ///< non-empty: the entry is not graded, and its row says why (class_folder.hpp)
};

/// Builds one submission's labs, in the order of the run's labs, copying the executables into
/// `exe_dir`. One per CPU worker; called by that worker's thread only.
using SubmissionBuild =
    std::function<std::vector<LabExecutable>(const ClassSubmission&, const std::filesystem::path& exe_dir)>;

/// When and where one submission was graded: seconds since the pipeline started.
struct ScheduleRecord {
  std::string submission;
  int build_worker = -1;
  double build_start_s = 0, build_end_s = 0;
  int gpu = -1;  ///< GpuSlot::index; -1: never reached a GPU (its build threw)
  int gpu_worker = -1;  ///< which of the GPU's workers: 0 .. students_per_gpu-1
  double gpu_start_s = 0, gpu_end_s = 0;
  GpuPhases phases;  ///< its time on the GPU: checks (shared), timing (alone), waiting for turns
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
  int build_workers = 1;
  std::filesystem::path work_dir;  ///< executables between the two stages
  std::function<SubmissionBuild(int worker)> make_build;
  /// The grading environment of one GPU, made once, on the thread of one of its workers.
  std::function<std::unique_ptr<GradingEnvironment>(const GpuSlot&)> make_environment;
  std::function<void(const ClassProgress&)> on_progress;  ///< may be empty; called under a lock
};

/// What came back.
struct ClassOutcome {
  std::vector<SubmissionResult> results;  ///< sorted by name
  std::vector<ScheduleRecord> schedule;   ///< sorted by name
};

/// Grades the class. Never throws for one submission's failure.
ClassOutcome grade_class(const ClassPlan& plan);

}  // namespace convlab::grader
