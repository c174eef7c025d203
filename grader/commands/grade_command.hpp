// What `grader batch` shares with `grader grade` (grade_command.cpp): the options, each parsed
// and range-checked into the GradeOptions a grading session is set up from
// (schedule/grade_session.hpp), and the session opened from them.
#pragma once

#include <CLI/CLI.hpp>

#include "schedule/grade_session.hpp"

namespace convlab::grader {

/// Adds the options shared by grade and batch to `cmd`, parsed into `o`.
void add_common_grade_options(CLI::App* cmd, GradeOptions& o);

/// Sets up the session for a command: prints its warnings, or its error and sets `exit_code`.
/// @returns null when the run cannot go on.
std::unique_ptr<GradeSession> open_session_for_command(const GradeOptions& o, int& exit_code);

}  // namespace convlab::grader
