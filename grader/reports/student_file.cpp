#include "reports/student_file.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "convlab/json_file.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/limits.hpp"
#include "reports/grade_report.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

template <typename T>
T field(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw std::runtime_error(fmt::format("{}: no field \"{}\"", where, key));
  try {
    return j.at(key).get<T>();
  } catch (const json::exception& e) {
    throw std::runtime_error(fmt::format("{}: field \"{}\": {}", where, key, e.what()));
  }
}

}  // namespace

StudentFile read_student_file(const fs::path& file) {
  json j;
  try {
    j = parse_json(read_file(file, kMaxTextFileBytes), file.string());
  } catch (const json::exception& e) {
    throw std::runtime_error(fmt::format("{}: not JSON: {}", file.string(), e.what()));
  }
  const std::string where = file.string();
  if (field<std::string>(j, "format", where) != "convlab-grade") {
    throw std::runtime_error(fmt::format("{}: \"format\" is not \"convlab-grade\"", where));
  }
  if (field<int>(j, "version", where) != kGradeJsonVersion) {
    throw std::runtime_error(fmt::format("{}: \"version\" is not {}", where, kGradeJsonVersion));
  }
  StudentFile f;
  f.run = field<json>(j, "run", where);
  f.submission = field<json>(j, "submission", where);
  const std::string sub = where + ": submission";
  SubmissionResult& r = f.result;
  r.name = field<std::string>(f.submission, "name", sub);
  r.kind = field<std::string>(f.submission, "kind", sub);
  r.path = field<std::string>(f.submission, "path", sub);
  r.could_not_grade = field<std::vector<std::string>>(f.submission, "could_not_grade", sub);
  for (const json& lj : field<json>(f.submission, "labs", sub)) {
    const std::string at = fmt::format("{}: lab {}", sub, lj.value("lab", "?"));
    LabResult l;
    const std::string id = field<std::string>(lj, "lab", at);  // "lab01"
    if (id.size() < 4 || id.rfind("lab", 0) != 0) throw std::runtime_error(fmt::format("{}: \"lab\" is not labNN", at));
    l.lab.number = id.substr(3);
    l.lab.folder = field<std::string>(lj, "folder", at);
    l.could_not_grade = field<bool>(lj, "could_not_grade", at);
    l.could_not_grade_reason = field<std::string>(lj, "could_not_grade_reason", at);
    l.built = field<bool>(lj, "built", at);
    l.reasons = field<std::vector<std::string>>(lj, "reasons", at);
    const json c = field<json>(lj, "correctness", at);
    l.correctness_points = field<double>(c, "points", at + ": correctness");
    l.correctness_max = field<double>(c, "max_points", at + ": correctness");
    l.correctness.runs = field<int>(c, "runs", at + ": correctness");
    l.correctness.passed = field<int>(c, "passed", at + ": correctness");
    l.correctness.failed = field<int>(c, "failed", at + ": correctness");
    const json p = field<json>(lj, "performance", at);
    l.performance_points = field<double>(p, "points", at + ": performance");
    l.performance_max = field<double>(p, "max_points", at + ": performance");
    r.labs.push_back(std::move(l));
  }
  return f;
}

SubmissionResult missing_student(const std::string& name, const fs::path& folder, const std::string& why) {
  SubmissionResult r;
  r.name = name;
  r.kind = "submission";
  r.path = folder;
  r.could_not_grade.push_back(why);
  return r;
}

}  // namespace convlab::grader
