// grader grade: grade labs/ (the default), solutions/ (--solutions) or a student's folder
// (--submission DIR) on the public, a private or a fresh random case set; print a table,
// and write the JSON report and Gradescope's results.json on request. The options it shares with
// `grader batch` (commands.hpp) are parsed here too.
#include "commands/commands.hpp"

#include <fmt/format.h>

#include "convlab/contained_paths.hpp"
#include "reports/grade_report.hpp"
#include "reports/report_files.hpp"
#include "system/exit_codes.hpp"
#include "system/seed_option.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

void add_common_grade_options(CLI::App* cmd, GradeOptions& o) {
  cmd->add_option("--labs", o.labs, "grade only these labs, e.g. 01,03 (default: all)");
  auto* datasets = cmd->add_option("--datasets", o.datasets,
                                   "grade on the cases in DIR (a private set) instead of the public datasets/");
  auto* seed = cmd->add_option("--random-seed", o.random_seed,
                               "grade on a fresh random set generated from this seed (conv2d and conv layers)")
                   ->check(seed_number());
  cmd->add_option("--random-count", o.random_count, "cases per problem in the random set (default 20)")
      ->check(CLI::Range(1, 10000));
  datasets->excludes(seed);
  cmd->add_option("--rubric", o.rubric, "the rubric (default: grader/rubric.json)");
  cmd->add_option("--timeout", o.timeout_s, "seconds one variant may take on one case (timing included) before it counts as hung (default 20)")
      ->check(CLI::Range(1, 3600));
  cmd->add_flag("--sanitize", o.sanitize, "also run compute-sanitizer memcheck and racecheck on each lab's small cases");
  cmd->add_flag("--profile", o.profile, "also measure Nsight Compute counters on the performance case (slow)");
  cmd->add_option("--json", o.json, "write the report as JSON to FILE (atomically)");
  cmd->add_option("--build-dir", o.build_dir,
                  "build submissions in DIR and keep it (reused: the harness in DIR/harness is built once, and a lab "
                  "whose files are byte-identical to one compiled before is copied from DIR/store, not compiled)");
  cmd->add_option("--harness", o.harness,
                  "link the labs against the harness that `grader harness --out DIR` built (a Slurm job's, or one "
                  "built once before timing a class) instead of building one");
  cmd->add_option("--jobs,-j", o.jobs, "cores for compiling the labs (default: every core); batch: shared by every "
                  "student's labs, the first students' first")
      ->check(CLI::Range(0, 1024));
  cmd->add_flag("--quiet,-q", o.quiet, "no progress lines");
  cmd->add_flag("--keep-work", o.keep_work, "keep the temporary folder (staged cases, outputs) for inspection");
  cmd->add_flag("--no-sandbox", o.no_sandbox,
                "run the submissions' compiles and runs without the bubblewrap sandbox (they can then read the "
                "datasets and write your files; every report says so)");
  cmd->add_flag("--no-host-code-check", o.no_host_code_check,
                "grade labs whose host code calls what a lab may not (threads, files, streams, exit hooks: "
                "grader/README.md, \"What a timed run cannot fake\"); for testing the sandbox alone, never for a "
                "class (every report's command line says so)");
}

std::unique_ptr<GradeSession> open_session_for_command(const GradeOptions& o, int& exit_code) {
  SessionStart start = open_grade_session(o);
  for (const std::string& w : start.warnings) fmt::print(stderr, "grader: warning: {}\n", w);
  if (start.error) {
    fmt::print(stderr, "{}\n", start.error->message);
    exit_code = start.error->exit_code;
    return nullptr;
  }
  exit_code = kGraded;
  return std::move(start.session);
}

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
