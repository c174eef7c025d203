#include "correctness/sanitizer.hpp"

#include <fmt/format.h>

#include <regex>
#include <sstream>

#include "run/runner_call.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

namespace {

constexpr int kFindingExitCode = 86;  // --error-exitcode: distinct from the runner's codes
constexpr std::size_t kMaxQuoted = 4;

std::string strip_prefix(const std::string& line) {
  static const std::regex prefix(R"(^=========\s?)");
  return std::regex_replace(line, prefix, "");
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace

SanitizerResult parse_sanitizer_output(const std::string& tool, const std::string& output) {
  SanitizerResult r;
  r.tool = tool;
  static const std::regex error_summary(R"(ERROR SUMMARY:\s*([0-9,]+)\s+error)");
  static const std::regex race_summary(R"(RACECHECK SUMMARY:\s*([0-9,]+)\s+hazards?\s+displayed)");
  // The first line of a finding: memcheck's "Invalid __global__ write of size 4 bytes",
  // "Program hit cudaErrorIllegalAddress ...", racecheck's "Error: Race reported between ...".
  static const std::regex finding(
      R"(^(Invalid |Misaligned |Program hit |Out-of-range |Error: |ERROR: |Warning: |WARNING: |Barrier error|Malloc/Free error))");
  std::istringstream in(output);
  std::string line;
  int errors = -1, races = -1;
  std::string current;  // the finding being collected (its first line and its "at ..." line)
  auto flush = [&] {
    if (!current.empty() && r.findings.size() < kMaxQuoted) r.findings.push_back(current);
    current.clear();
  };
  std::vector<std::string> tool_errors;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, error_summary)) errors = std::stoi(std::regex_replace(m[1].str(), std::regex(","), ""));
    if (std::regex_search(line, m, race_summary)) races = std::stoi(std::regex_replace(m[1].str(), std::regex(","), ""));
    if (line.rfind("=========", 0) != 0) continue;
    const std::string body = strip_prefix(line);
    const std::string text = trim(body);
    if (text.find("SUMMARY") != std::string::npos) {
      flush();
      continue;
    }
    if (std::regex_search(text, finding)) {
      flush();
      current = text;
      if (text.rfind("Error: Target application", 0) == 0 || text.rfind("Error: No attachable", 0) == 0) {
        tool_errors.push_back(text);
      }
    } else if (!current.empty() && (text.rfind("at ", 0) == 0 || text.rfind("and ", 0) == 0) &&
               current.find('\n') == std::string::npos) {
      current += "\n" + text;  // where: "at kernel+0x1b0 in naive.cu:40", racecheck's second access
    } else if (text.empty()) {
      flush();
    }
  }
  flush();
  r.ran = errors >= 0 || races >= 0;
  if (!r.ran) {
    r.unavailable = tool_errors.empty() ? "compute-sanitizer printed no summary" : tool_errors.front();
    r.findings.clear();
    return r;
  }
  r.hazards = std::max(errors, 0);
  if (races > r.hazards) r.hazards = races;
  if (r.hazards == 0) r.findings.clear();  // notes printed by a clean run are not findings
  return r;
}

SanitizerResult run_sanitizer(const fs::path& sanitizer, const std::string& tool, const fs::path& exe,
                              const std::vector<fs::path>& cases, int planned_runs, int timeout_s,
                              const fs::path& work, const std::optional<SandboxSpec>& sandbox) {
  RunnerCall call;
  call.exe = exe;
  call.cases = cases;
  call.work_dir = work;
  call.case_timeout_s = timeout_s * 10;  // instrumented kernels run far slower
  call.planned_runs = planned_runs;
  call.sandbox = sandbox;
  call.wrapper = {sanitizer.string(), "--tool", tool, "--error-exitcode", std::to_string(kFindingExitCode),
                  "--print-limit", "10"};
  const RunnerReport report = call_runner(call);
  SanitizerResult r = parse_sanitizer_output(tool, report.process.output);
  r.cases = static_cast<int>(cases.size());
  if (report.process.timed_out) {
    r.ran = false;
    r.unavailable = fmt::format("{} did not finish: {}", tool, report.process.describe());
  }
  fs::remove_all(report.output_dir);
  return r;
}

}  // namespace convlab::grader
