#include "reports/slurm_files.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "convlab/json_file.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/limits.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;
using nlohmann::json;

json roster_json(const Roster& roster) {
  json list = json::array();
  for (const RosterEntry& e : roster.submissions) list.push_back({{"name", e.name}, {"folder", e.folder}});
  return {{"format", "convlab-roster"}, {"version", 1}, {"class_dir", roster.class_dir}, {"submissions", list}};
}

Roster read_roster(const fs::path& file) {
  std::string text;
  try {
    text = read_file(file, kMaxTextFileBytes);
  } catch (const LoadError& e) {
    throw std::runtime_error(fmt::format("--roster {}", e.what()));
  }
  Roster r;
  try {
    json j = parse_json(text, file.string());
    if (j.value("format", "") != "convlab-roster" || j.value("version", 0) != 1) {
      throw std::runtime_error("not a convlab-roster version 1 (\"format\", \"version\")");
    }
    r.class_dir = j.at("class_dir").get<std::string>();
    for (const json& e : j.at("submissions")) {
      r.submissions.push_back({e.at("name").get<std::string>(), e.at("folder").get<std::string>()});
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("--roster {}: {}", file.string(), e.what()));
  }
  return r;
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

namespace {

std::string common_header(const SlurmJob& job) {
  std::string out;
  if (!job.partition.empty()) out += fmt::format("#SBATCH --partition={}\n", job.partition);
  for (const std::string& o : job.sbatch_options) out += fmt::format("#SBATCH {}\n", o);
  return out;
}

}  // namespace

std::string harness_script(const SlurmJob& job) {
  // Without --cuda-arch it runs on one of the partition's GPUs, to build for the architecture
  // the tasks will have (a partition of one kind of GPU).
  const bool on_gpu = job.cuda_arch.empty();
  return fmt::format(
      "#!/bin/bash\n"
      "# convlab: the lab harness, built once for every grading task of the class (written by `grader slurm`).\n"
      "#SBATCH --job-name=convlab-harness\n"
      "{gres}"
      "#SBATCH --cpus-per-task={cpus}\n"
      "#SBATCH --time={time}\n"
      "{mem}"
      "#SBATCH --output={logs}/harness-%j.out\n"
      "{header}"
      "set -u\n"
      "exec {grader} harness --out {out} --jobs \"${{SLURM_CPUS_PER_TASK:-1}}\" --quiet{arch}\n",
      fmt::arg("gres", on_gpu ? "#SBATCH --gres=gpu:1\n" : ""), fmt::arg("cpus", job.cpus_per_task),
      fmt::arg("time", job.time_minutes), fmt::arg("mem", job.mem.empty() ? "" : fmt::format("#SBATCH --mem={}\n", job.mem)),
      fmt::arg("logs", (job.out_dir / "logs").string()), fmt::arg("header", common_header(job)),
      fmt::arg("grader", shell_quote(job.grader.string())), fmt::arg("out", shell_quote(job.harness_dir().string())),
      fmt::arg("arch", on_gpu ? std::string() : " --cuda-arch " + shell_quote(job.cuda_arch)));
}

std::string array_script(const Roster& roster, const SlurmJob& job) {
  const fs::path results = job.out_dir / "results";
  std::string names;
  for (const RosterEntry& e : roster.submissions) names += "  " + shell_quote(e.folder) + "\n";
  std::string grade_options = " --harness " + shell_quote(job.harness_dir().string());
  for (const std::string& o : job.grade_options) grade_options += " " + shell_quote(o);
  if (!job.labs.empty()) grade_options += " --labs " + shell_quote(job.labs);
  return fmt::format(
      "#!/bin/bash\n"
      "# convlab: grade one submission per task of this job array, on one GPU each, against the\n"
      "# harness the harness job built (written by `grader slurm`; the roster is {roster}).\n"
      "#SBATCH --job-name=convlab-grade\n"
      "#SBATCH --array=0-{last}%{throttle}\n"
      "#SBATCH --gres=gpu:1\n"
      "#SBATCH --cpus-per-task={cpus}\n"
      "#SBATCH --time={time}\n"
      "{mem}"
      "#SBATCH --output={logs}/task-%A_%a.out\n"
      "{header}"
      "set -u\n"
      "folders=(\n{names})\n"
      "folder=${{folders[$SLURM_ARRAY_TASK_ID]}}\n"
      "name=$(basename -- \"$folder\")\n"
      "results={results}\n"
      "echo \"convlab: task $SLURM_ARRAY_TASK_ID grades $name on $(hostname) (CUDA_VISIBLE_DEVICES=${{CUDA_VISIBLE_DEVICES:-unset}})\"\n"
      "# The report is written atomically: a task that dies leaves no file, and `grader merge` says so.\n"
      "exec {grader} grade --submission \"$folder\" --json \"$results/$name.json\" "
      "--gradescope \"$results/$name.gradescope.json\" --jobs \"${{SLURM_CPUS_PER_TASK:-1}}\" --quiet{options}\n",
      fmt::arg("roster", (job.out_dir / "roster.json").string()), fmt::arg("last", roster.submissions.size() - 1),
      fmt::arg("throttle", job.throttle), fmt::arg("cpus", job.cpus_per_task), fmt::arg("time", job.time_minutes),
      fmt::arg("mem", job.mem.empty() ? "" : fmt::format("#SBATCH --mem={}\n", job.mem)),
      fmt::arg("logs", (job.out_dir / "logs").string()), fmt::arg("header", common_header(job)),
      fmt::arg("names", names), fmt::arg("results", shell_quote(results.string())),
      fmt::arg("grader", shell_quote(job.grader.string())), fmt::arg("options", grade_options));
}

std::string merge_script(const SlurmJob& job) {
  const fs::path& out = job.out_dir;
  return fmt::format(
      "#!/bin/bash\n"
      "# convlab: the class reports, once every grading task has ended (written by `grader slurm`).\n"
      "#SBATCH --job-name=convlab-merge\n"
      "#SBATCH --cpus-per-task=1\n"
      "#SBATCH --time=10\n"
      "#SBATCH --output={logs}/merge-%j.out\n"
      "{header}"
      "set -u\n"
      "exec {grader} merge {results} --roster {roster} --csv {csv} --json {json} --gradescope-dir {gradescope}{labs}\n",
      fmt::arg("logs", (out / "logs").string()), fmt::arg("header", common_header(job)),
      fmt::arg("grader", shell_quote(job.grader.string())), fmt::arg("results", shell_quote((out / "results").string())),
      fmt::arg("roster", shell_quote((out / "roster.json").string())),
      fmt::arg("csv", shell_quote((out / "class.csv").string())),
      fmt::arg("json", shell_quote((out / "class.json").string())),
      fmt::arg("gradescope", shell_quote((out / "gradescope").string())),
      fmt::arg("labs", job.labs.empty() ? "" : " --labs " + shell_quote(job.labs)));
}

}  // namespace convlab::grader
