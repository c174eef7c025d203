// Grading a whole class on one host as a pipeline: a pool of CPU workers builds submissions
// (each worker owns a build folder, so no two builds share files) while one worker per GPU
// grades the built ones — correctness, sanitizer, timing — one student at a time on its GPU,
// so that no two timed runs ever share a GPU. Each GPU worker has its own grading environment,
// so the reference solutions are timed once per GPU, on the GPU whose students they are
// compared with. Every child a GPU worker starts sees only its GPU (CUDA_VISIBLE_DEVICES).
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

#include "engine/gpu_slots.hpp"
#include "engine/grade_result.hpp"
#include "engine/grading_environment.hpp"
#include "engine/lab_grader.hpp"

namespace convlab::grader {

/// One student's folder.
struct ClassSubmission {
  std::string name;
  std::filesystem::path folder;
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
  double gpu_start_s = 0, gpu_end_s = 0;
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
  std::vector<GpuSlot> gpus;       ///< one GPU worker each
  int build_workers = 1;
  std::filesystem::path work_dir;  ///< executables between the two stages
  std::function<SubmissionBuild(int worker)> make_build;
  /// The grading environment of one GPU worker, made on that worker's thread.
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
