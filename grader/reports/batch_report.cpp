#include "reports/batch_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "reports/grade_report.hpp"

namespace convlab::grader {
using nlohmann::json;

namespace {

const LabResult* find_lab(const SubmissionResult& s, const LabInfo& lab) {
  for (const LabResult& l : s.labs) {
    if (l.lab.number == lab.number) return &l;
  }
  return nullptr;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string student_status(const SubmissionResult& s) {
  if (s.could_not_grade.empty()) return "graded";
  const bool any_graded = std::any_of(s.labs.begin(), s.labs.end(), [](const LabResult& l) { return !l.could_not_grade; });
  return any_graded ? "partly graded" : "could not grade";
}

std::string batch_csv(const std::vector<SubmissionResult>& students, const std::vector<LabInfo>& labs) {
  std::vector<std::string> header = {"student", "score", "max_score", "status"};
  for (const LabInfo& lab : labs) {
    for (const char* col : {"points", "correctness", "performance", "runs_passed", "runs", "reasons"}) {
      header.push_back(fmt::format("{}_{}", lab.id(), col));
    }
  }
  header.push_back("could_not_grade");
  std::string out = join(header, ",") + "\n";
  for (const SubmissionResult& s : students) {
    std::vector<std::string> row = {csv_field(s.name), fmt::format("{:g}", s.score()), fmt::format("{:g}", s.max_score()),
                                    student_status(s)};
    for (const LabInfo& lab : labs) {
      const LabResult* l = find_lab(s, lab);
      if (!l) {
        row.insert(row.end(), {"", "", "", "", "", ""});
        continue;
      }
      row.push_back(fmt::format("{:g}", l->points()));
      row.push_back(fmt::format("{:g}", l->correctness_points));
      row.push_back(fmt::format("{:g}", l->performance_points));
      row.push_back(std::to_string(l->correctness.passed));
      row.push_back(std::to_string(l->correctness.runs));
      row.push_back(csv_field(join(l->reasons, "; ")));
    }
    row.push_back(csv_field(join(s.could_not_grade, "; ")));
    out += join(row, ",") + "\n";
  }
  return out;
}

json batch_json(const std::vector<SubmissionResult>& students, const RunInfo& run) {
  json list = json::array();
  double total = 0;
  int could_not = 0;
  for (const SubmissionResult& s : students) {
    json j = submission_json(s);
    j["status"] = student_status(s);
    list.push_back(std::move(j));
    total += s.score();
    could_not += s.could_not_grade.empty() ? 0 : 1;
  }
  return {{"format", "convlab-batch"},
          {"version", kBatchJsonVersion},
          {"run", run_info_json(run)},
          {"students", list},
          {"summary",
           {{"students", students.size()},
            {"mean_score", students.empty() ? 0.0 : total / static_cast<double>(students.size())},
            {"max_score", students.empty() ? 0.0 : students.front().max_score()},
            {"could_not_grade", could_not}}}};
}

json schedule_json(const ClassOutcome& outcome) {
  json list = json::array();
  for (const ScheduleRecord& r : outcome.schedule) {
    json labs = json::array();
    for (const LabBuild& b : r.labs) {
      labs.push_back({{"lab", b.lab}, {"start_s", b.start_s}, {"end_s", b.end_s}, {"cores", b.cores},
                      {"core_s", b.core_s}, {"compiled", b.compiled}, {"shared_from", b.shared_from}});
    }
    json timing_by_lab = json::array();
    for (const auto& [lab, seconds] : r.phases.timing_by_lab) timing_by_lab.push_back({{"lab", lab}, {"s", seconds}});
    list.push_back({{"submission", r.submission}, {"build_start_s", r.build_start_s}, {"build_end_s", r.build_end_s},
                    {"build_core_s", r.build_core_s}, {"labs", labs}, {"gpu", r.gpu}, {"gpu_worker", r.gpu_worker},
                    {"gpu_start_s", r.gpu_start_s}, {"gpu_end_s", r.gpu_end_s}, {"checks_s", r.phases.checks_s},
                    {"timing_s", r.phases.timing_s}, {"timing_by_lab", timing_by_lab}, {"waited_s", r.phases.waited_s},
                    {"waited_for_builds_s", r.phases.waited_for_builds_s}});
  }
  const ClassCost& c = outcome.cost;
  json gpu_turns = json::array();
  for (const std::vector<TurnSpan>& gpu : c.gpu_turns) {
    json spans = json::array();
    for (const TurnSpan& t : gpu) spans.push_back({{"alone", t.alone}, {"start_s", t.start_s}, {"end_s", t.end_s}});
    gpu_turns.push_back(std::move(spans));
  }
  const json measured = {{"cores", c.cores},
                         {"gpus", c.gpu_busy_s.size()},
                         {"wall_s", c.wall_s},
                         {"build_core_s", c.build_core_s},
                         {"harness_core_s", c.harness_core_s},
                         {"setup_core_s", c.setup_core_s},
                         {"gpu_busy_s", c.gpu_busy_s},
                         {"gpu_turns", gpu_turns},
                         {"gpu_s", c.gpu_s()},
                         {"bound_s", c.bound_s()},
                         {"first_on_gpu_s", c.first_on_gpu_s},
                         {"compiles", c.compiles},
                         {"shared", c.shared}};
  return {{"format", "convlab-schedule"}, {"version", kScheduleJsonVersion}, {"measured", measured}, {"submissions", list}};
}

std::string batch_summary(const std::vector<SubmissionResult>& students, const std::vector<LabInfo>& labs,
                          const RunInfo& run) {
  std::string out = fmt::format("sandbox: {}\n", run.sandbox);
  out += fmt::format("{:<32}{:>12}  {:<16} {}\n", "student", "score", "status", "problems");
  double total = 0;
  for (const SubmissionResult& s : students) {
    std::vector<std::string> problems;
    for (const LabResult& l : s.labs) {
      if (!l.reasons.empty()) problems.push_back(fmt::format("{}: {}", l.lab.id(), join(l.reasons, ", ")));
    }
    out += fmt::format("{:<32}{:>12}  {:<16} {}\n", s.name, fmt::format("{:.1f}/{:g}", s.score(), s.max_score()),
                       student_status(s), problems.empty() ? "-" : join(problems, "; "));
    total += s.score();
  }
  out += fmt::format("\n{} submissions, mean score {:.1f}\n", students.size(),
                     students.empty() ? 0.0 : total / static_cast<double>(students.size()));
  for (const LabInfo& lab : labs) {
    int full = 0, some = 0;
    for (const SubmissionResult& s : students) {
      if (const LabResult* l = find_lab(s, lab)) {
        full += l->correctness.runs > 0 && l->correctness.passed == l->correctness.runs ? 1 : 0;
        some += l->correctness.passed > 0 ? 1 : 0;
      }
    }
    out += fmt::format("  {}: {} of {} pass every run, {} pass some\n", lab.id(), full, students.size(), some);
  }
  return out;
}

}  // namespace convlab::grader
