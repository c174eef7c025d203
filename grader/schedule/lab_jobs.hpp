// A run's labs as build jobs: each lab of each student is looked up in the shared compile store
// (store/compile_store.hpp) and, when no identical compile exists, compiled with cores from the
// run's budget (schedule/core_budget.hpp), earlier students first. `grade --submission` and
// `batch --serial` build one student's labs at once with every core; a class's pipeline
// (schedule/class_pipeline.hpp) feeds every student's labs through the same jobs.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "schedule/core_budget.hpp"
#include "schedule/platform.hpp"
#include "store/compile_store.hpp"

namespace convlab::grader {

/// One lab of one student, built: what grading gets and what the schedule records.
struct LabBuild {
  LabExecutable exe;
  std::string lab;              ///< "lab01"
  double start_s = 0;           ///< since the run started: its compile (cores granted) or its copy began
  double end_s = 0;             ///< ... and ended
  int cores = 0;                ///< granted to its compile (0: no compile ran)
  double core_s = 0;            ///< CPU seconds of its compile (0 when shared)
  bool compiled = false;        ///< a compile ran for this student
  std::string shared_from;      ///< when shared: the student whose compile it got
};

/// The labs of one run.
class LabJobs {
 public:
  /// @param cores the budget every compile of the run shares
  /// @param start the run's start, which LabBuild's times count from
  LabJobs(std::unique_ptr<LabBuilder> builder, const std::filesystem::path& store_dir, int cores,
          std::chrono::steady_clock::time_point start);

  /// Reads one lab of `submission` for its build.
  StagedLab stage(const std::filesystem::path& submission, const LabInfo& lab);
  /// How many cores a compile of `lab` can use.
  [[nodiscard]] int useful_cores(const StagedLab& lab) const;
  /// The positions of `labs`, those that keep the most cores busy first (the longest compiles:
  /// started first, they end no later than the rest).
  [[nodiscard]] std::vector<std::size_t> widest_first(const std::vector<StagedLab>& labs) const;
  /// A place in the budget's line for a job of `priority` (lower first), taken when the job is
  /// handed out, before its lab is read.
  [[nodiscard]] CoreBudget::Ticket line_up(std::uint64_t priority) { return budget_.line_up(priority); }
  /// Builds one staged lab into `exe_dir`/<lab id>/: from the store (the ticket leaves the line),
  /// or compiled with cores from the budget once `ticket` is first in line. Never throws: the
  /// grader's own failure comes back as the lab's could_not_grade.
  LabBuild build(const std::string& submission, const StagedLab& lab, const std::filesystem::path& exe_dir,
                 CoreBudget::Ticket ticket);
  /// Every lab of one student at once, a thread each, in the order of `labs`.
  std::vector<LabBuild> build_all(const std::string& submission, const std::filesystem::path& folder,
                                  const std::vector<LabInfo>& labs, const std::filesystem::path& exe_dir);

  [[nodiscard]] int cores() const { return budget_.total(); }
  /// CPU seconds of getting ready to compile (configuring compile folders) so far.
  [[nodiscard]] double setup_core_s() { return builder_->setup_core_s(); }
  CompileStore& store() { return store_; }

 private:
  double now_s() const;

  std::unique_ptr<LabBuilder> builder_;
  CompileStore store_;
  CoreBudget budget_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace convlab::grader
