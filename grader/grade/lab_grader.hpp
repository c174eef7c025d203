// Grading one lab of one submission, and a whole submission: correctness on the case set,
// compute-sanitizer on the small cases (--sanitize), speed against the reference solution,
// the analysis model's prediction and Nsight Compute's counters (--profile), and points.
//
// A lab is graded in three steps, so that students graded on one GPU at once can share it
// where sharing is fair (session/gpu_turns.hpp): check_lab (correctness, sanitizers: a shared
// turn), time_lab (timing, Nsight Compute: a turn alone), finish_lab (the model's prediction and
// the points, and the judging of the timed calls' samples: no GPU). A submission takes one
// shared turn for its labs' checks (or one per lot of labs, when they are handed over as they are
// built), then one turn alone for all their timing.
//
// Where the executables come from (the project's build, or a submission built out of tree) is
// the caller's business: this part only runs them, which is what lets the CPU tests drive it
// with fake lab runners.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "build/lab_compile.hpp"
#include "performance/performance_pass.hpp"
#include "session/grade_result.hpp"
#include "session/gpu_environment.hpp"

namespace convlab::grader {

/// A lab between its checks and its timing.
struct CheckedLab {
  LabResult result;
  bool settled = false;  ///< nothing more to do: not built, or not gradable (the result says why)
  std::filesystem::path exe;
  const LabVariants* listing = nullptr;
  std::set<std::string> stretch_stubs;  ///< the rubric's stretch variants still stubs: not timed
  bool timing_due = false;              ///< correct enough to be timed
  std::optional<TimedPerformance> timed;  ///< timed by time_lab, its samples judged by finish_lab
  [[nodiscard]] bool needs_gpu_alone(const GradeSettings& s) const {
    return !settled && (timing_due || (s.profile && !result.correctness.hung));
  }
};

/// Correctness and sanitizers: GPU runs that may share the GPU with other students' checks.
CheckedLab check_lab(const LabInfo& lab, const LabExecutable& executable, GradingEnvironment& env);
/// Timing against the reference, and Nsight Compute: runs that need the GPU alone.
void time_lab(CheckedLab& lab, GradingEnvironment& env);
/// The timed calls' samples judged and the speed scored (performance_pass.hpp's judge_performance),
/// the model's prediction and the points: no GPU.
LabResult finish_lab(CheckedLab lab, GradingEnvironment& env);

/// Grades one lab: the three steps, each in its turn on the environment's GPU.
LabResult grade_lab(const LabInfo& lab, const LabExecutable& executable, GradingEnvironment& env);

/// Where one submission's time on its GPU went (grader batch --schedule).
struct GpuPhases {
  double checks_s = 0;  ///< in its shared turns
  double timing_s = 0;  ///< in its turn alone
  /// Seconds of its turn alone lab by lab, in the order timed (lab id, seconds): where the turn went.
  std::vector<std::pair<std::string, double>> timing_by_lab;
  double waited_s = 0;  ///< waiting for its turns
  double waited_for_builds_s = 0;  ///< waiting for labs still compiling, holding no turn
  /// When its first check began (its first shared turn taken); unset if it never took one.
  std::optional<std::chrono::steady_clock::time_point> first_check;
};

/// Grades the labs of one submission, `executables[i]` being the lab `labs[i]`'s, built or found
/// beforehand: one shared turn for every lab's checks, then one turn alone for their timing.
/// `phases`, if given, gets the times. @throws std::invalid_argument if the counts differ.
SubmissionResult grade_submission(const std::string& name, const std::string& kind, const std::filesystem::path& path,
                                  const std::vector<LabInfo>& labs, const std::vector<LabExecutable>& executables,
                                  GradingEnvironment& env, GpuPhases* phases = nullptr);

/// Labs of one submission handed over as they are built: each call waits until at least one
/// more lab is built and returns those built since the last call, as (position in `labs`,
/// executable); it returns none once every lab has been handed over.
using BuiltLabs = std::function<std::vector<std::pair<std::size_t, LabExecutable>>()>;

/// Grades a submission whose labs are still being built: each lot `built` hands over is checked
/// in a shared turn while the rest compile (no turn is held while waiting, so other students use
/// the GPU meanwhile), then one turn alone times them all. The result is the one
/// grade_submission gives with every lab built beforehand.
/// @throws std::logic_error if `built` hands over a position twice or outside `labs`.
SubmissionResult grade_submission_as_built(const std::string& name, const std::string& kind,
                                           const std::filesystem::path& path, const std::vector<LabInfo>& labs,
                                           const BuiltLabs& built, GradingEnvironment& env, GpuPhases* phases = nullptr);

}  // namespace convlab::grader
