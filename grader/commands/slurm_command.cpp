// grader slurm DIR --out OUT: grade a class on a Slurm cluster. Writes the roster, a harness job
// (`grader harness`: what every lab links, built once for the whole class), a job array (one
// task per submission, one GPU each through --gres=gpu:1, at most --throttle at once) whose
// tasks start once the harness is built (--dependency=afterok) and run `grader grade
// --submission --harness` against it, each writing one report per student, and a merge job that
// runs `grader merge` once every task has ended (--dependency=afterany), then submits the three
// with sbatch. --dry-run prints the scripts and submits nothing. The cluster set-up is in
// grader/README.md.
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <regex>
#include <sstream>

#include "commands/commands.hpp"
#include "system/seed_option.hpp"
#include "convlab/atomic_file.hpp"
#include "build/lab_folders.hpp"
#include "convlab/contained_paths.hpp"
#include "schedule/class_folder.hpp"
#include "reports/slurm_files.hpp"
#include "system/subprocess.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

namespace {

struct SlurmOptions {
  std::string dir, out, labs, datasets, rubric;
  std::optional<std::uint64_t> random_seed;
  int random_count = 20;
  int timeout_s = 20;
  bool sanitize = false, profile = false, dry_run = false, no_sandbox = false;
  SlurmJob job;
};

// Where sbatch is: PATH.
std::optional<fs::path> find_in_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const fs::path candidate = fs::path(dirs.substr(start, end - start)) / program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

// sbatch --parsable prints "JOBID" or "JOBID;CLUSTER".
std::optional<std::string> submit(const fs::path& sbatch, std::vector<std::string> args, std::string* error) {
  args.insert(args.begin(), {sbatch.string(), "--parsable"});
  const ProcessResult p = run_process(args, std::chrono::seconds(120));
  // Its output may hold warnings too: the id is the line that is a number (before any ';').
  std::string id;
  std::istringstream lines(p.output);
  for (std::string line; std::getline(lines, line);) {
    line = line.substr(0, line.find(';'));
    if (!line.empty() && std::all_of(line.begin(), line.end(), [](char c) { return c >= '0' && c <= '9'; })) id = line;
  }
  const bool ok = !p.spawn_failed && !p.signaled && !p.timed_out && p.exit_code == 0;
  if (!ok || id.empty()) {
    *error = fmt::format("{} failed ({}):\n{}", args.back(), p.describe(), last_lines(p.output, 10));
    return std::nullopt;
  }
  return id;
}

int run(SlurmOptions& o) {
  std::vector<ClassSubmission> entries;
  try {
    entries = read_class_folder(o.dir, "slurm");
  } catch (const PathError& e) {
    fmt::print(stderr, "grader: error: {}\n", e.what());
    return kUsageError;
  }
  try {
    (void)select_labs(discover_labs(source_dir() / "labs"), o.labs);
  } catch (const std::exception& e) {
    fmt::print(stderr, "grader: error: {}\n", e.what());
    return kUsageError;
  }
  Roster roster;
  roster.class_dir = fs::absolute(o.dir).lexically_normal().string();
  for (const ClassSubmission& e : entries) {
    // The report is NAME.json, and Slurm's own files cannot hold a line break.
    if (std::any_of(e.name.begin(), e.name.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; })) {
      fmt::print(stderr, "grader: error: slurm {}: a folder name has a control character (a line break?); rename it\n",
                 o.dir);
      return kUsageError;
    }
    // A refused entry keeps its task: its log and the merged report name the link.
    if (!e.refused.empty()) fmt::print(stderr, "grader: warning: {}\n", e.refused);
    roster.submissions.push_back({e.name, (fs::path(roster.class_dir) / e.name).string()});
  }
  if (roster.submissions.empty()) {
    fmt::print(stderr, "grader: error: slurm {}: no submission folders in it\n", o.dir);
    return kUsageError;
  }
  SlurmJob& job = o.job;
  job.out_dir = fs::absolute(o.out).lexically_normal();
  // #SBATCH --output takes the path as it is: no quoting, so no spaces.
  if (job.out_dir.string().find_first_of(" \t\n'\"") != std::string::npos) {
    fmt::print(stderr, "grader: error: --out {}: Slurm's #SBATCH lines cannot take a path with spaces or quotes\n",
               o.out);
    return kUsageError;
  }
  job.grader = fs::read_symlink("/proc/self/exe");
  job.labs = o.labs;
  job.grade_options = {"--timeout", std::to_string(o.timeout_s)};
  if (!o.datasets.empty()) job.grade_options.insert(job.grade_options.end(), {"--datasets", fs::absolute(o.datasets).string()});
  if (o.random_seed) {
    job.grade_options.insert(job.grade_options.end(), {"--random-seed", std::to_string(*o.random_seed),
                                                       "--random-count", std::to_string(o.random_count)});
  }
  if (!o.rubric.empty()) job.grade_options.insert(job.grade_options.end(), {"--rubric", fs::absolute(o.rubric).string()});
  if (o.sanitize) job.grade_options.push_back("--sanitize");
  if (o.no_sandbox) job.grade_options.push_back("--no-sandbox");
  if (o.profile) job.grade_options.push_back("--profile");

  const std::string harness = harness_script(job);
  const std::string array = array_script(roster, job);
  const std::string merge = merge_script(job);
  const fs::path harness_file = job.out_dir / "harness.sbatch", array_file = job.out_dir / "grade-array.sbatch",
                 merge_file = job.out_dir / "merge.sbatch";
  if (o.dry_run) {
    fmt::print("# {}\n{}\n# {}\n{}\n# {}\n{}\n# then: sbatch --parsable {}, sbatch --parsable "
               "--dependency=afterok:HARNESS_JOB --kill-on-invalid-dep=yes {} and sbatch --parsable "
               "--dependency=afterany:ARRAY_JOB {}\n",
               harness_file.string(), harness, array_file.string(), array, merge_file.string(), merge,
               harness_file.string(), array_file.string(), merge_file.string());
    return kGraded;
  }
  const std::optional<fs::path> sbatch = find_in_path("sbatch");
  if (!sbatch) {
    fmt::print(stderr, "grader: cannot submit: sbatch is not in PATH (this is not a Slurm login node?). Nothing was "
                       "submitted; --dry-run prints the scripts.\n");
    return kCouldNotGrade;
  }
  try {
    for (const char* sub : {"results", "logs", "gradescope"}) fs::create_directories(job.out_dir / sub);
    write_file_atomically(job.out_dir / "roster.json", roster_json(roster).dump(2) + "\n");
    write_file_atomically(harness_file, harness);
    write_file_atomically(array_file, array);
    write_file_atomically(merge_file, merge);
  } catch (const std::exception& e) {
    fmt::print(stderr, "grader: error: --out {}: {}\n", o.out, e.what());
    return kUsageError;
  }
  std::string error;
  const auto harness_id = submit(*sbatch, {harness_file.string()}, &error);
  if (!harness_id) {
    fmt::print(stderr, "grader: cannot submit the harness job: {}\n", error);
    return kCouldNotGrade;
  }
  // The tasks wait for the harness; if its build fails they never start (their dependency can
  // no longer be met), and the merge says so for every student.
  const auto array_id =
      submit(*sbatch, {"--dependency=afterok:" + *harness_id, "--kill-on-invalid-dep=yes", array_file.string()}, &error);
  if (!array_id) {
    fmt::print(stderr, "grader: the harness job {} is submitted, but the job array is not: {}\n", *harness_id, error);
    return kCouldNotGrade;
  }
  const auto merge_id = submit(*sbatch, {"--dependency=afterany:" + *array_id, merge_file.string()}, &error);
  if (!merge_id) {
    fmt::print(stderr, "grader: the job array {} is submitted, but the merge job is not: {}\n"
                       "Once the array has ended, run: {} merge {}/results --roster {}/roster.json --csv ...\n",
               *array_id, error, job.grader.string(), job.out_dir.string(), job.out_dir.string());
    return kCouldNotGrade;
  }
  // Structured, for scripts: the job ids.
  fmt::print("{{\"harness_job\": \"{}\", \"array_job\": \"{}\", \"merge_job\": \"{}\", \"tasks\": {}, \"out\": \"{}\"}}\n",
             *harness_id, *array_id, *merge_id, roster.submissions.size(), job.out_dir.string());
  fmt::print(stderr,
             "grader: submitted the harness's build (job {}), {} grading tasks after it (job {}, at most {} at once) "
             "and the merge (job {}); the class reports will be {}/class.csv and class.json\n",
             *harness_id, roster.submissions.size(), *array_id, job.throttle, *merge_id, job.out_dir.string());
  return kGraded;
}

}  // namespace

void add_slurm_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "slurm", "grade a class on a Slurm cluster: a harness job (built once), a job array after it (one task and one "
               "GPU per submission) and a merge job");
  auto o = std::make_shared<SlurmOptions>();
  cmd->add_option("dir", o->dir, "a folder with one submission folder per student")->required();
  cmd->add_option("--out", o->out, "the folder for the scripts, the logs, each student's report and the class reports "
                                   "(on storage every node sees)")
      ->required();
  // Each of these becomes one #SBATCH line of the job scripts: a line break would end it and
  // start a line of the user's choosing.
  const auto sbatch_value = [](const char* shape, const std::string& pattern) {
    return CLI::Validator(
        [shape, pattern](std::string& v) -> std::string {
          return std::regex_match(v, std::regex(pattern)) ? "" : fmt::format("'{}' is not {}", v, shape);
        },
        "TEXT");
  };
  cmd->add_option("--partition", o->job.partition, "the GPU partition (default: the cluster's default)")
      ->check(sbatch_value("a partition name (letters, digits, ._-, commas)", R"([A-Za-z0-9._,-]{1,128})"));
  cmd->add_option("--throttle", o->job.throttle, "at most this many tasks at once (default 8)")->check(CLI::Range(1, 100000));
  cmd->add_option("--time", o->job.time_minutes, "minutes one task may take (default 60)")->check(CLI::Range(1, 100000));
  cmd->add_option("--cpus-per-task", o->job.cpus_per_task,
                  "cores per task, for building the submission, and for the harness job (default 8)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--cuda-arch", o->job.cuda_arch,
                  "the GPUs' architecture, e.g. 90: the harness job then builds without a GPU (default: on one of the "
                  "partition's GPUs, for its architecture)")
      ->check(sbatch_value("a CUDA architecture such as 90", R"([0-9]{2,3})"));
  cmd->add_option("--mem", o->job.mem, "memory per task, e.g. 16G (default: the cluster's)")
      ->check(sbatch_value("a size such as 16G or 16000M", R"([0-9]{1,9}[KMGT]?)"));
  cmd->add_option("--sbatch-option", o->job.sbatch_options, "an extra #SBATCH line for both jobs, e.g. --account=cs149")
      ->check(sbatch_value("one sbatch option on one line, e.g. --account=cs149", R"(--?[A-Za-z][^\x00-\x1f\x7f]{0,254})"));
  cmd->add_flag("--dry-run", o->dry_run, "print the scripts; submit nothing, write nothing");
  cmd->add_option("--labs", o->labs, "grade only these labs, e.g. 01,03 (default: all)");
  auto* datasets = cmd->add_option("--datasets", o->datasets, "grade on the cases in DIR (seen by every node)");
  auto* seed = cmd->add_option("--random-seed", o->random_seed, "grade on a fresh random set from this seed")
                   ->check(seed_number());
  datasets->excludes(seed);
  cmd->add_option("--random-count", o->random_count, "cases per problem in the random set (default 20)")
      ->check(CLI::Range(1, 10000));
  cmd->add_option("--rubric", o->rubric, "the rubric (default: grader/rubric.json)");
  cmd->add_option("--timeout", o->timeout_s, "seconds per variant and case (default 20)")->check(CLI::Range(1, 3600));
  cmd->add_flag("--sanitize", o->sanitize, "also run compute-sanitizer");
  cmd->add_flag("--no-sandbox", o->no_sandbox,
                "grade without the bubblewrap sandbox (nodes without user namespaces; every report says so)");
  cmd->add_flag("--profile", o->profile, "also measure Nsight Compute counters");
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace convlab::grader
