#include "performance/ncu_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "convlab/file_reader.hpp"
#include "convlab/limits.hpp"
#include "run/runner_call.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

std::vector<std::string> summed_metrics() {
  return {kMetricGlobalLoadBytes, kMetricSharedLoadBytes, kMetricDramReadBytes, kMetricDivergentBranches,
          kMetricAsyncCopyBytes,  kMetricAsyncCopyInsts,  kMetricThreadInsts,   kMetricThreadInstsPredOn,
          kMetricWarpInsts,       kMetricTensorMmaInsts};
}

Measured warp_execution_efficiency(const ProfileResult& p, bool pred_on) {
  const auto get = [&](const char* name) -> Measured {
    const auto it = p.metrics.find(name);
    return it == p.metrics.end() ? Measured{std::nullopt, std::string("unavailable: ncu did not report ") + name}
                                 : it->second;
  };
  const Measured threads = get(pred_on ? kMetricThreadInstsPredOn : kMetricThreadInsts);
  const Measured insts = get(kMetricWarpInsts);
  if (!threads.value) return threads;
  if (!insts.value) return insts;
  if (*insts.value <= 0) return {std::nullopt, "unavailable: no warp instruction was executed"};
  return {*threads.value / (32.0 * *insts.value), ""};
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  fields.push_back(std::move(field));
  return fields;
}

std::vector<NcuRow> parse_ncu_csv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    if (line.rfind("\"ID\"", 0) == 0) {
      header = split_csv_line(line);
      break;
    }
  }
  if (header.empty()) throw std::runtime_error("no CSV header in ncu's output");
  auto column = [&](const char* name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) throw std::runtime_error(fmt::format("ncu's CSV has no column \"{}\"", name));
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t id = column("ID"), kernel = column("Kernel Name"), metric = column("Metric Name"),
                    value = column("Metric Value");
  std::vector<NcuRow> rows;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '"') continue;  // ==PROF== notes between rows
    const std::vector<std::string> f = split_csv_line(line);
    if (f.size() < header.size()) continue;
    rows.push_back({f[id], f[kernel], f[metric], f[value]});
  }
  return rows;
}

std::optional<double> parse_ncu_number(const std::string& value) {
  std::string digits;
  for (char c : value) {
    if (c != ',') digits += c;
  }
  if (digits.empty() || digits == "n/a") return std::nullopt;
  try {
    std::size_t used = 0;
    const double v = std::stod(digits, &used);
    if (used != digits.size()) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

ProfileResult unavailable_profile(const std::string& variant, const std::string& reason) {
  ProfileResult p;
  p.variant = variant;
  p.unavailable = "unavailable: " + reason;
  for (const std::string& m : summed_metrics()) p.metrics[m] = {std::nullopt, p.unavailable};
  p.threads_per_warp_instruction = {{std::nullopt, p.unavailable}};
  return p;
}

namespace {

// The reason a profile failed, from ncu's console output and exit code; empty if none.
std::string profiler_error(const std::string& console, int exit_code) {
  if (console.find("ERR_NVGPUCTRPERM") != std::string::npos) {
    return "no permission to read the GPU's performance counters (ERR_NVGPUCTRPERM: an administrator must "
           "allow it, see https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
  }
  std::istringstream in(console);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("==ERROR==", 0) == 0) return "ncu: " + line.substr(10);
  }
  if (console.find("No kernels were profiled") != std::string::npos) return "ncu profiled no kernel";
  if (exit_code != 0) return fmt::format("ncu exited with {}", exit_code);
  return "";
}

}  // namespace

ProfileResult profile_from_ncu(const std::string& variant, const std::string& csv, const std::string& console,
                               int exit_code, const std::vector<std::string>& extra) {
  std::vector<NcuRow> rows;
  try {
    rows = parse_ncu_csv(csv);
  } catch (const std::exception& e) {
    const std::string why = profiler_error(console + "\n" + csv, exit_code);
    return unavailable_profile(variant, why.empty() ? e.what() : why);
  }
  if (rows.empty()) {
    const std::string why = profiler_error(console + "\n" + csv, exit_code);
    return unavailable_profile(variant, why.empty() ? "ncu profiled no kernel" : why);
  }
  ProfileResult p;
  p.variant = variant;
  std::vector<std::string> launches;  // in order
  std::map<std::string, std::map<std::string, std::string>> values;  // launch -> metric -> value
  for (const NcuRow& r : rows) {
    if (std::find(launches.begin(), launches.end(), r.launch_id) == launches.end()) {
      launches.push_back(r.launch_id);
      p.kernels.push_back(r.kernel);
    }
    values[r.launch_id][r.metric] = r.value;
  }
  auto read = [&](const std::string& launch, const std::string& metric) -> Measured {
    const auto& m = values[launch];
    const auto it = m.find(metric);
    if (it == m.end()) return {std::nullopt, "unavailable: ncu did not report " + metric};
    if (const auto v = parse_ncu_number(it->second)) return {v, ""};
    return {std::nullopt, fmt::format("unavailable: ncu reads \"{}\" for {} on this GPU", it->second, metric)};
  };
  std::vector<std::string> summed = summed_metrics();
  summed.insert(summed.end(), extra.begin(), extra.end());
  for (const std::string& metric : summed) {
    Measured total{0.0, ""};
    for (const std::string& launch : launches) {
      const Measured m = read(launch, metric);
      if (!m.value) {
        total = m;
        break;
      }
      *total.value += *m.value;
    }
    p.metrics[metric] = total;
  }
  for (const std::string& launch : launches) p.threads_per_warp_instruction.push_back(read(launch, kMetricThreadsPerWarpInst));
  return p;
}

ProfileResult run_ncu(const fs::path& ncu, const fs::path& exe, const std::string& variant, const fs::path& perf_case,
                      int timeout_s, const fs::path& work, const std::optional<SandboxSpec>& sandbox,
                      const std::vector<std::string>& extra) {
  fs::create_directories(work);
  const fs::path log = work / "ncu.csv";
  fs::remove(log);
  std::string metrics;
  for (const std::string& m : summed_metrics()) metrics += m + ",";
  for (const std::string& m : extra) metrics += m + ",";
  metrics += kMetricThreadsPerWarpInst;
  RunnerCall call;
  call.exe = exe;
  call.cases = {perf_case};
  call.variants = {variant};
  call.work_dir = work;
  call.case_timeout_s = timeout_s * 20;  // ncu replays each kernel once per counter pass
  call.planned_runs = 1;
  call.sandbox = sandbox;
  call.wrapper = {ncu.string(), "--csv", "--print-units", "base", "--clock-control", "none",
                  "--metrics", metrics, "-c", "64", "--log-file", log.string()};
  const RunnerReport report = call_runner(call);
  fs::remove_all(report.output_dir);
  if (report.process.spawn_failed) return unavailable_profile(variant, report.process.describe());
  if (report.process.timed_out) return unavailable_profile(variant, "ncu " + report.process.describe());
  std::string csv;
  try {
    csv = read_file(log, kMaxTextFileBytes);
  } catch (const LoadError&) {
    // No log (or not a file): profile_from_ncu reports the empty CSV.
  }
  return profile_from_ncu(variant, csv, report.process.output,
                          report.process.signaled ? -1 : report.process.exit_code, extra);
}

}  // namespace convlab::grader
