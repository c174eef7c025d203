// grader grade: grade labs/ (the default), solutions/ (--solutions) or a student's folder
// (--submission DIR) on the public, a private or a fresh random case set; print a table,
// and write the JSON report and Gradescope's results.json on request.
#include <fmt/format.h>

#include "commands/commands.hpp"
#include "commands/grade_options.hpp"
#include "convlab/contained_paths.hpp"
#include "reports/grade_report.hpp"
#include "reports/report_files.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

void add_grade_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "grade",
      "grade labs/ (default), solutions/ (--solutions) or a student's folder (--submission DIR): every lab on "
      "every case in a child process with a timeout, speed against the reference solution, points by a rubric");
  auto o = std::make_shared<GradeOptions>();
  auto* solutions = cmd->add_flag("--solutions", o->solutions, "grade the reference solutions instead of labs/");
  auto* submission = cmd->add_option("--submission", o->submission,
                                     "grade this folder (same layout as labs/: NN-name/ with the same files), "
                                     "built out of tree with the project's CMake");
  solutions->excludes(submission);
  add_common_grade_options(cmd, *o);
  cmd->add_option("--gradescope", o->gradescope, "write Gradescope's results.json to FILE (atomically)");
  cmd->add_option("--error-map", o->error_map,
                  "draw each failing run's error map as DIR/<lab>__<variant>__<case>.png (correct, wrong, not finite "
                  "and unwritten outputs, writes past the output buffer, the lab's tile grid)");
  cmd->callback([o, &exit_code] {
    try {
      if (!o->submission.empty()) (void)given_folder(o->submission, "--submission");
    } catch (const PathError& e) {
      fmt::print(stderr, "grader: error: {}\n", e.what());
      exit_code = kUsageError;
      return;
    }
    const std::unique_ptr<GradeSession> session = open_session_for_command(*o, exit_code);
    if (!session) return;
    const SubmissionResult result =
        o->submission.empty()
            ? session->grade_project(o->solutions)
            : session->grade_folder(o->submission, fs::path(o->submission).lexically_normal().filename().string());
    fmt::print("\n{}", grade_text(result, session->run_info()));
    std::fflush(stdout);
    bool written = write_report_file(o->json, grade_json(result, session->run_info()).dump(2) + "\n", "JSON report");
    written &= write_report_file(o->gradescope, gradescope_json(result, session->run_info()).dump(2) + "\n",
                                 "Gradescope results");
    exit_code = finished_exit_code({result}, written);
  });
}

}  // namespace convlab::grader
