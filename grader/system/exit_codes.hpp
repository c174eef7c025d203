// The grader's exit codes, shared by every command (docs/design.md, "Grader contract"):
// "graded" is distinct from "could not grade", whatever the score.
#pragma once

namespace convlab::grader {

enum GraderExit : int {
  kGraded = 0,         ///< the job ran to the end (whatever the score)
  kUsageError = 2,     ///< bad flags or input files
  kCouldNotGrade = 3,  ///< no GPU, nothing to grade, a build that could not start...
};

}  // namespace convlab::grader
