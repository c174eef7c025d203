// What a finished grading run leaves behind besides its printed tables: the report files the
// options asked for (written atomically, each announced on stderr) and the exit code the run
// ends with (system/exit_codes.hpp).
#pragma once

#include <string>
#include <vector>

#include "session/grade_result.hpp"

namespace convlab::grader {

/// Writes `content` to `path` atomically (nothing when `path` is empty), saying so on stderr;
/// prints the error and returns false on failure.
bool write_report_file(const std::string& path, const std::string& content, const char* what);

/// The exit code of a finished run: kUsageError when a report could not be written, else
/// kCouldNotGrade if anything could not be graded, else kGraded (whatever the score).
int finished_exit_code(const std::vector<SubmissionResult>& results, bool reports_written);

}  // namespace convlab::grader
