// The correctness pass: every variant of a lab on every case of the set, in child processes.
//
// One process runs all the cases; when it crashes (a sticky CUDA error ends a CUDA context, a
// signal ends the process) the run it was in fails with the reason and a fresh process takes
// the cases after it, up to GradeSettings::max_crash_restarts times. When it hangs, the hung
// run fails as "timed out" and the lab stops there: every further case could cost a timeout.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "session/grade_result.hpp"
#include "session/gpu_environment.hpp"

namespace convlab::grader {

/// The pass's result, and whether the failure was the grader's rather than the lab's.
struct CorrectnessOutcome {
  CorrectnessResult result;
  std::string could_not_grade;  ///< non-empty: the GPU or the runner could not run the lab at all
};

/// Runs `exe` over `cases` and judges every output.
CorrectnessOutcome run_correctness(const LabInfo& lab, const std::filesystem::path& exe, const LabVariants& listing,
                                   const std::vector<const GradingCase*>& cases, GradingEnvironment& env);

}  // namespace convlab::grader
