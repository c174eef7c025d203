// grader batch DIR: every subfolder of DIR is one student's submission, graded like
// `grader grade --submission`; one row per student in CSV and JSON. A submission that does
// not build, crashes or hangs costs that student points and never stops the batch. The
// reference solutions are timed once and serve every student.
#include <fmt/format.h>

#include <algorithm>

#include "reports/batch_report.hpp"
#include "commands/commands.hpp"
#include "reports/grade_report.hpp"
#include "engine/grade_session.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

void add_batch_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("batch", "grade every submission (one per subfolder of DIR); one row per student");
  auto o = std::make_shared<GradeOptions>();
  cmd->add_option("dir", o->batch_dir, "a folder with one submission folder per student")->required();
  add_common_grade_options(cmd, *o);
  cmd->add_option("--csv", o->csv, "write one row per student as CSV to FILE (atomically)");
  cmd->callback([o, &exit_code] {
    if (!fs::is_directory(o->batch_dir)) {
      fmt::print(stderr, "grader: error: batch {}: no such folder\n", o->batch_dir);
      exit_code = kUsageError;
      return;
    }
    std::vector<fs::path> folders;
    for (const auto& e : fs::directory_iterator(o->batch_dir)) {
      const std::string name = e.path().filename().string();
      if (e.is_directory() && !name.empty() && name[0] != '.') folders.push_back(e.path());
    }
    std::sort(folders.begin(), folders.end());
    if (folders.empty()) {
      fmt::print(stderr, "grader: error: batch {}: no submission folders in it\n", o->batch_dir);
      exit_code = kUsageError;
      return;
    }
    GradeSession session(*o, exit_code);
    if (!session.ok()) return;

    std::vector<SubmissionResult> students;
    for (std::size_t i = 0; i < folders.size(); ++i) {
      const std::string name = folders[i].filename().string();
      fmt::print(stderr, "[{}/{}] {}\n", i + 1, folders.size(), name);
      SubmissionResult r;
      try {
        r = session.grade_folder(folders[i], name);
      } catch (const std::exception& e) {  // the grader's own failure on this folder: note it, go on
        r.name = name;
        r.kind = "submission";
        r.path = fs::absolute(folders[i]);
        r.could_not_grade.push_back(fmt::format("grading stopped with an error: {}", e.what()));
      }
      fmt::print(stderr, "[{}/{}] {}: {:.1f}/{:g}{}\n", i + 1, folders.size(), name, r.score(), r.max_score(),
                 r.could_not_grade.empty() ? "" : " (could not grade everything)");
      students.push_back(std::move(r));
    }
    fmt::print("\n{}", batch_summary(students, session.labs(), session.run_info()));
    std::fflush(stdout);
    bool written = write_report_file(o->json, batch_json(students, session.run_info()).dump(2) + "\n", "JSON report");
    written &= write_report_file(o->csv, batch_csv(students, session.labs()), "CSV");
    exit_code = written ? finished_exit_code(students) : kUsageError;
  });
}

}  // namespace convlab::grader
