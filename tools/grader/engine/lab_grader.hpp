// Grading one lab of one submission, and a whole submission: correctness on the case set,
// compute-sanitizer on the small cases (--sanitize), speed against the reference solution,
// the analysis model's prediction and Nsight Compute's counters (--profile), and points.
//
// Where the executables come from (the project's build, or a submission built out of tree) is
// the caller's business: this part only runs them, which is what lets the CPU tests drive it
// with fake lab runners.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/grade_result.hpp"
#include "engine/grading_environment.hpp"

namespace convlab::grader {

/// A lab's executable in one submission, or why there is none.
struct LabExecutable {
  std::optional<std::filesystem::path> exe;  ///< nullopt: not built
  std::vector<std::string> build_reasons;    ///< "missing file", "compile error"
  std::string build_message;                 ///< the missing files, the compiler's first errors
  std::string could_not_grade;               ///< the grader's own failure (a build that could not start)
  std::vector<std::string> notes;            ///< shown with the lab (a stale executable, ...)
};

/// Grades one lab.
LabResult grade_lab(const LabInfo& lab, const LabExecutable& executable, GradingEnvironment& env);

/// Grades the labs of one submission; `executable_of` builds or finds each lab's executable
/// (called once per lab, in order, just before it is graded).
SubmissionResult grade_submission(const std::string& name, const std::string& kind, const std::filesystem::path& path,
                                  const std::vector<LabInfo>& labs,
                                  const std::function<LabExecutable(const LabInfo&)>& executable_of,
                                  GradingEnvironment& env);

}  // namespace convlab::grader
