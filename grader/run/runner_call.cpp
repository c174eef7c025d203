#include "run/runner_call.hpp"

#include "run/reasons.hpp"

#include "convlab/json_file.hpp"
#include "convlab/autotune/kernel_source.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>

namespace convlab::grader {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The "reasons" of a result: tags of convlab/run_reasons.hpp. The report comes from a process
// that ran the student's code, so anything else in the list is dropped, and a list that is not
// a list of strings makes the report unreadable.
std::vector<std::string> reasons_at(const json& e) {
  std::vector<std::string> tags;
  const auto it = e.find("reasons");
  if (it == e.end()) return tags;
  if (!it->is_array()) throw std::runtime_error("\"reasons\" is not a list");
  for (const json& t : *it) {
    if (!t.is_string()) throw std::runtime_error("\"reasons\" holds something other than a tag");
    const std::string tag = t.get<std::string>();
    if (reason::is_known(tag) && std::find(tags.begin(), tags.end(), tag) == tags.end()) tags.push_back(tag);
  }
  return tags;
}

std::optional<double> number_at(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

void read_report(const fs::path& path, RunnerReport& r) {
  std::error_code ec;
  if (!fs::exists(path, ec) && !fs::is_symlink(path, ec)) {
    r.report_error = "the runner wrote no report";
    return;
  }
  try {
    // The child wrote it: a regular file of bounded size, parsed only after both are checked.
    const json j = parse_json(read_file(path, kMaxTextFileBytes), "the runner's report");
    if (j.value("format", "") != "convlab-run") throw std::runtime_error("not a convlab-run report");
    r.finished = j.value("finished", true);
    if (const auto c = j.find("ceilings"); c != j.end() && c->is_object()) {
      const auto copy = number_at(*c, "copy_gb_per_s"), fma = number_at(*c, "fma_gflop_per_s");
      if (copy && fma && *copy > 0 && *fma > 0) r.ceilings = ReportedCeilings{*copy, *fma};
    }
    for (const json& e : j.at("results")) {
      RunnerEntry entry;
      entry.case_id = e.value("case", "");
      entry.variant = e.value("variant", "");
      entry.status = e.value("status", "");
      entry.message = e.value("message", "");
      entry.reasons = reasons_at(e);
      entry.details = e.value("first_mismatches", "");
      if (const auto g = e.find("output_guard_offsets"); g != e.end() && g->is_array() && g->size() <= 8192) {
        for (const json& o : *g) {
          if (!o.is_number_integer()) {
            entry.output_guard_offsets.clear();
            break;
          }
          entry.output_guard_offsets.push_back(o.get<std::ptrdiff_t>());
        }
      }
      if (const auto t = e.find("time_ms"); t != e.end() && t->is_object()) entry.time_ms = number_at(*t, "median");
      if (const auto t = e.find("timed_calls"); t != e.end() && t->is_object()) {
        const auto runs = number_at(*t, "runs"), warmup = number_at(*t, "warmup");
        const auto event = number_at(*t, "event_median_ms"), wall = number_at(*t, "wall_median_ms");
        if (runs && warmup && event && wall && *runs >= 1 && *runs <= 1e6 && *warmup >= 0 && *warmup <= 1e6) {
          entry.timed_calls = RunnerEntry::TimedCalls{static_cast<int>(*runs), static_cast<int>(*warmup), *event, *wall};
        }
      }
      if (entry.case_id == "(crash)") {
        r.crash = entry.message;
        r.crash_reasons = entry.reasons;
        continue;
      }
      r.entries.push_back(std::move(entry));
    }
    r.report_found = true;
  } catch (const std::exception& e) {
    r.report_error = fmt::format("the runner's report is unreadable: {}", e.what());
  }
}

}  // namespace

fs::path output_file(const fs::path& output_dir, const std::string& case_name, const std::string& variant) {
  return output_dir / fmt::format("{}__{}.npy", case_name, variant);
}

std::vector<std::string> lab_sandbox_argv(const std::optional<SandboxSpec>& sandbox, const fs::path& exe,
                                          const std::vector<fs::path>& inputs, const fs::path& writable,
                                          const std::vector<std::string>& argv) {
  if (!sandbox) return argv;
  // Exactly the executable (the labs link the harness statically; the system's and the
  // driver's libraries are in every sandbox) and the staged inputs: no build folder, no
  // tuning file, no source tree.
  SandboxSpec spec = sandbox->with_read_only({exe});
  // Lab 07 compiles configurations at run time from the copy of its own kernel source that the
  // build puts beside it (bin/lab07.kernel.cuh), after looking in the folder the build compiled
  // them into (bin/lab07.jit-cache/): its own code, nothing the lab could not see.
  if (const fs::path kernel = exe.string() + lab07::kKernelCopySuffix; fs::is_regular_file(kernel)) {
    spec.read_only.push_back(kernel);
  }
  if (const fs::path cubins = exe.string() + lab07::kPrecompiledSuffix; fs::is_directory(fs::symlink_status(cubins))) {
    spec.read_only.push_back(cubins);
  }
  spec.read_only.insert(spec.read_only.end(), inputs.begin(), inputs.end());
  spec.writable = writable;
  return sandbox_argv(spec, argv);
}

RunnerReport call_runner(const RunnerCall& call) {
  RunnerReport r;
  fs::create_directories(call.work_dir);
  const fs::path json_path = call.work_dir / "report.json";
  r.output_dir = call.work_dir / "outputs";
  fs::remove(json_path);
  fs::remove_all(r.output_dir);
  fs::create_directories(r.output_dir);

  std::vector<std::string> argv = call.wrapper;
  argv.push_back(call.exe.string());
  for (const fs::path& c : call.cases) argv.push_back(c.string());
  for (const std::string& v : call.variants) {
    argv.push_back("--variant");
    argv.push_back(v);
  }
  argv.insert(argv.end(), {"--no-check", "--quiet", "--json", json_path.string(), "--output", r.output_dir.string(),
                           "--timeout", std::to_string(call.case_timeout_s)});
  if (!call.time) argv.push_back("--no-time");
  if (call.time && call.witnessed_calls > 0) {
    argv.insert(argv.end(), {"--witness", "--repeats", std::to_string(call.witnessed_calls), "--warmup",
                             std::to_string(call.witnessed_warmup)});
  }

  // The runner's own alarm fires first; the grader's kill is the backstop for a process that
  // does not answer it: every planned run may use its timeout, plus start-up and ceilings.
  auto deadline = call.deadline;
  if (deadline.count() == 0) {
    deadline = std::chrono::seconds(static_cast<long long>(call.case_timeout_s) * (std::max(call.planned_runs, 1) + 1) +
                                    call.grace_s);
  }
  std::random_device entropy;
  WitnessDialog witness((static_cast<std::uint64_t>(entropy()) << 32) ^ entropy());
  const LineDialog dialog = [&](std::string_view line) { return witness.on_line(line); };
  r.process = run_process(lab_sandbox_argv(call.sandbox, call.exe, call.cases, call.work_dir, argv), deadline,
                          call.work_dir.string(), call.time && call.witnessed_calls > 0 ? dialog : LineDialog{});
  r.witness = witness.phases();
  read_report(json_path, r);
  return r;
}

}  // namespace convlab::grader
