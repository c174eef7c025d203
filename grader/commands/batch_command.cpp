// grader batch DIR: every subfolder of DIR is one student's submission, graded like
// `grader grade --submission`; one row per student in CSV and JSON. The class is graded as a
// pipeline (schedule/class_pipeline.hpp): the students' labs are built on the -j cores, the
// first students' first, each lab once per distinct set of bytes (store/compile_store.hpp),
// while each GPU (--gpus) grades --students-per-gpu built ones at once: they share it for their
// correctness runs and are timed one after another, alone on it (session/gpu_turns.hpp). A
// submission that does not build, crashes or hangs costs that student points and never stops the
// batch. The reference solutions are timed once per GPU and serve every student graded there.
// The reports list the students by name, whatever the order in which they finished.
#include <fmt/format.h>

#include "reports/batch_report.hpp"
#include "commands/commands.hpp"
#include "convlab/contained_paths.hpp"
#include "reports/grade_report.hpp"
#include "reports/report_files.hpp"
#include "schedule/class_folder.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

void add_batch_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("batch", "grade every submission (one per subfolder of DIR); one row per student");
  auto o = std::make_shared<GradeOptions>();
  cmd->add_option("dir", o->batch_dir, "a folder with one submission folder per student")->required();
  add_common_grade_options(cmd, *o);
  cmd->add_option("--csv", o->csv, "write one row per student as CSV to FILE (atomically)");
  cmd->add_option("--gpus", o->gpus,
                  "grade on these GPUs, e.g. 0,1 (indices among the GPUs the grader sees; default: all)");
  auto* per_gpu = cmd->add_option("--students-per-gpu", o->students_per_gpu,
                  "students graded on one GPU at once: their correctness and sanitizer runs share it, their timed runs "
                  "take turns with the GPU to themselves (default 4)")
      ->check(CLI::Range(1, 64));
  cmd->add_flag("--serial", o->serial,
                "no pipeline: build and grade one submission after another on the first GPU of --gpus (the baseline)")
      ->excludes(per_gpu);
  cmd->add_option("--schedule", o->schedule,
                  "write what the run cost (build core-seconds, GPU busy time, the lower bound of the wall time) and "
                  "where and when each submission's labs were built and it was graded, as JSON");
  cmd->callback([o, &exit_code] {
    std::vector<ClassSubmission> submissions;
    try {
      submissions = read_class_folder(o->batch_dir, "batch");
    } catch (const PathError& e) {
      fmt::print(stderr, "grader: error: {}\n", e.what());
      exit_code = kUsageError;
      return;
    }
    if (submissions.empty()) {
      fmt::print(stderr, "grader: error: batch {}: no submission folders in it\n", o->batch_dir);
      exit_code = kUsageError;
      return;
    }
    const std::unique_ptr<GradeSession> session = open_session_for_command(*o, exit_code);
    if (!session) return;

    ClassOutcome outcome;
    try {
      outcome = o->serial ? session->grade_class_serially(submissions) : session->grade_class(submissions);
    } catch (const std::invalid_argument& e) {
      fmt::print(stderr, "grader: error: {}\n", e.what());
      exit_code = kUsageError;
      return;
    }
    const std::vector<SubmissionResult>& students = outcome.results;
    fmt::print("\n{}", batch_summary(students, session->labs(), session->run_info()));
    std::fflush(stdout);
    bool written = write_report_file(o->json, batch_json(students, session->run_info()).dump(2) + "\n", "JSON report");
    written &= write_report_file(o->csv, batch_csv(students, session->labs()), "CSV");
    written &= write_report_file(o->schedule, schedule_json(outcome).dump(2) + "\n", "schedule");
    exit_code = finished_exit_code(students, written);
  });
}

}  // namespace convlab::grader
