#include "reports/report_files.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "convlab/atomic_file.hpp"
#include "system/exit_codes.hpp"

namespace convlab::grader {

bool write_report_file(const std::string& path, const std::string& content, const char* what) {
  if (path.empty()) return true;
  try {
    write_file_atomically(path, content);
    fmt::print(stderr, "grader: wrote the {} to {}\n", what, path);
    return true;
  } catch (const std::exception& e) {
    fmt::print(stderr, "grader: error: {}\n", e.what());
    return false;
  }
}

int finished_exit_code(const std::vector<SubmissionResult>& results, bool reports_written) {
  if (!reports_written) return kUsageError;
  const bool all_graded = std::all_of(results.begin(), results.end(),
                                      [](const SubmissionResult& r) { return r.could_not_grade.empty(); });
  return all_graded ? kGraded : kCouldNotGrade;
}

}  // namespace convlab::grader
