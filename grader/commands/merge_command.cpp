// grader merge DIR: the class reports (CSV, JSON, Gradescope files) from one `grader grade
// --json` report per student in DIR — how a class graded by a Slurm job array (grader slurm)
// is put together. With --roster, every student of the roster gets a row: one whose report is
// missing or unreadable (the task died, was cancelled or ran out of time) gets a row saying so.
// The rows are sorted by name, as `grader batch` sorts them, so both give the same CSV.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "commands/commands.hpp"
#include "convlab/atomic_file.hpp"
#include "convlab/contained_paths.hpp"
#include "reports/report_files.hpp"
#include "build/lab_folders.hpp"
#include "reports/batch_report.hpp"
#include "reports/student_file.hpp"
#include "reports/slurm_files.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct MergeOptions {
  std::string dir, roster, labs, csv, json, gradescope_dir;
};

// The students to merge: the roster's, or every report in the folder.
std::vector<RosterEntry> students_of(const MergeOptions& o) {
  if (!o.roster.empty()) return read_roster(o.roster).submissions;
  std::vector<RosterEntry> out;
  std::error_code ec;
  for (fs::directory_iterator it(o.dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const fs::directory_entry& e = *it;
    const std::string file = e.path().filename().string();
    // A link is listed too: reading it is checked where the report is read.
    std::error_code e_ec;
    if (e.is_directory(e_ec) || e.path().extension() != ".json" || file.find(".gradescope.") != std::string::npos) continue;
    out.push_back({e.path().stem().string(), ""});
  }
  return out;
}

int merge(const MergeOptions& o) {
  std::vector<RosterEntry> roster;
  std::vector<LabInfo> labs;
  try {
    (void)given_folder(o.dir, "merge");
    roster = students_of(o);
    labs = select_labs(discover_labs(source_dir() / "labs"), o.labs);
  } catch (const std::exception& e) {
    fmt::print(stderr, "grader: error: {}\n", e.what());
    return kUsageError;
  }
  std::sort(roster.begin(), roster.end(), [](const RosterEntry& a, const RosterEntry& b) { return a.name < b.name; });
  if (roster.empty()) {
    fmt::print(stderr, "grader: error: merge {}: no student reports (NAME.json) in it\n", o.dir);
    return kUsageError;
  }

  std::vector<SubmissionResult> students;
  std::vector<json> submissions;
  json run;
  for (const RosterEntry& entry : roster) {
    const fs::path file = fs::path(o.dir) / (entry.name + ".json");
    std::string why;
    std::error_code ec;
    if (fs::symlink_status(file, ec).type() == fs::file_type::not_found) {
      why = fmt::format("no result: the grading task of {} wrote no report ({}): it died, was cancelled or ran out "
                        "of time; its log says why",
                        entry.name, file.string());
    } else {
      try {
        StudentFile f = read_student_file(resolve_inside(o.dir, file));
        if (f.result.name != entry.name) {
          throw std::runtime_error(fmt::format("{}: the report is about \"{}\", not \"{}\"", file.string(),
                                               f.result.name, entry.name));
        }
        if (run.is_null()) run = f.run;
        students.push_back(std::move(f.result));
        f.submission["status"] = student_status(students.back());
        submissions.push_back(std::move(f.submission));
        continue;
      } catch (const std::exception& e) {
        why = fmt::format("no result: the report could not be read: {}", e.what());
      }
    }
    students.push_back(missing_student(entry.name, entry.folder, why));
    json j = {{"name", entry.name}, {"kind", "submission"}, {"path", entry.folder}, {"score", 0.0},
              {"max_score", 0.0}, {"could_not_grade", {why}}, {"labs", json::array()}};
    j["status"] = student_status(students.back());
    submissions.push_back(std::move(j));
  }

  // The tasks' own run records say whether they were sandboxed; the class report repeats it.
  RunInfo info;
  if (run.is_object()) {
    info.sandboxed = run.value("sandboxed", true);
    info.sandbox = run.value("sandbox", std::string());
  }
  if (info.sandbox.empty()) info.sandbox = "as each student's report says";
  fmt::print("{}", batch_summary(students, labs, info));
  std::fflush(stdout);
  json report = batch_json(students, info);
  report["run"] = run.is_null() ? json::object() : run;
  report["students"] = submissions;
  bool written = write_report_file(o.json, report.dump(2) + "\n", "JSON report");
  written &= write_report_file(o.csv, batch_csv(students, labs), "CSV");
  if (!o.gradescope_dir.empty()) {
    // Gradescope's results.json per student: the task's own, or a zero score that says why.
    fs::create_directories(o.gradescope_dir);
    for (std::size_t i = 0; i < roster.size(); ++i) {
      const fs::path own = fs::path(o.dir) / (roster[i].name + ".gradescope.json");
      const fs::path dest = fs::path(o.gradescope_dir) / (roster[i].name + ".json");
      std::string content;
      if (students[i].labs.empty() || !fs::exists(own)) {
        const std::string why = students[i].could_not_grade.empty() ? "no Gradescope report was written"
                                                                    : students[i].could_not_grade.front();
        content = json({{"score", 0.0}, {"output", why}, {"tests", json::array()}, {"stdout_visibility", "visible"}})
                      .dump(2) + "\n";
      } else {
        std::ifstream in(own);
        content.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
      try {
        write_file_atomically(dest, content);
      } catch (const std::exception& e) {
        fmt::print(stderr, "grader: error: {}\n", e.what());
        written = false;
      }
    }
    fmt::print(stderr, "grader: wrote {} Gradescope results to {}\n", roster.size(), o.gradescope_dir);
  }
  return finished_exit_code(students, written);
}

}  // namespace

void add_merge_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "merge", "build the class CSV, JSON and Gradescope files from one `grade --json` report per student in DIR");
  auto o = std::make_shared<MergeOptions>();
  cmd->add_option("dir", o->dir, "a folder of NAME.json reports (and NAME.gradescope.json)")->required();
  cmd->add_option("--roster", o->roster,
                  "the class roster `grader slurm` wrote: every student in it gets a row, graded or not");
  cmd->add_option("--labs", o->labs, "the labs graded, e.g. 01,03: the CSV's columns (default: all)");
  cmd->add_option("--csv", o->csv, "write one row per student as CSV to FILE (atomically)");
  cmd->add_option("--json", o->json, "write the class report as JSON to FILE (atomically)");
  cmd->add_option("--gradescope-dir", o->gradescope_dir, "write each student's Gradescope results as DIR/NAME.json");
  cmd->callback([o, &exit_code] { exit_code = merge(*o); });
}

}  // namespace convlab::grader
