// Reading back what `grader grade --json` wrote, for `grader merge`: the class reports of a
// Slurm run are built from one such file per student, and must be the same as those of
// `grader batch` over the same class. The reader fills what the class reports use (points,
// runs, reasons, what could not be graded) and keeps the submission's JSON as it was written.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "session/grade_result.hpp"

namespace convlab::grader {

/// One student's report, read back.
struct StudentFile {
  SubmissionResult result;       ///< the fields the class CSV and summary use
  nlohmann::json submission;     ///< the "submission" object, verbatim
  nlohmann::json run;            ///< the "run" object
};

/// Reads a convlab-grade JSON report.
/// @throws std::runtime_error naming the file and the field that is missing or wrong.
StudentFile read_student_file(const std::filesystem::path& file);

/// The row of a student whose report is missing or unreadable: no labs, and `why` as the one
/// thing that could not be graded.
SubmissionResult missing_student(const std::string& name, const std::filesystem::path& folder, const std::string& why);

}  // namespace convlab::grader
