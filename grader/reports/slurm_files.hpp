// The files `grader slurm` writes for a class graded on a Slurm cluster: the roster (JSON: the
// students, in the order of the job array's task ids), the harness job's script (`grader
// harness`: what every lab links, built once for all the tasks), the job array's batch script
// (task i runs `grader grade --submission --harness` on the roster's i-th student, on one GPU,
// once the harness is built, and writes NAME.json and NAME.gradescope.json) and the merge job's
// script (`grader merge`, run after every task has ended, however it ended: --dependency=afterany).
//
// Students' folder names reach the scripts only inside single quotes (shell_quote), so a name
// like `$(rm -rf ~)` is a name, not a command.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace convlab::grader {

/// One student of the roster.
struct RosterEntry {
  std::string name;    ///< the folder's name: the report is NAME.json
  std::string folder;  ///< the submission folder (absolute)
};

/// The class, in task-id order.
struct Roster {
  std::string class_dir;
  std::vector<RosterEntry> submissions;
};

/// {"format": "convlab-roster", "version": 1, "class_dir", "submissions": [{"name", "folder"}]}.
nlohmann::json roster_json(const Roster& roster);
/// @throws std::runtime_error naming the file and the problem.
Roster read_roster(const std::filesystem::path& file);

/// `text` as one shell word: single-quoted, with every ' written as '\''.
std::string shell_quote(const std::string& text);

/// How the job array is submitted.
struct SlurmJob {
  std::filesystem::path grader;      ///< the grader executable the tasks run
  std::filesystem::path out_dir;     ///< results/, logs/, gradescope/, class.csv, class.json
  std::string partition;             ///< empty: the cluster's default
  int throttle = 8;                  ///< at most this many tasks at once (%N)
  int time_minutes = 60;             ///< per task
  int cpus_per_task = 8;             ///< the task builds the submission with these
  std::string mem;                   ///< per task, e.g. 16G (empty: the cluster's default)
  std::vector<std::string> sbatch_options;  ///< extra #SBATCH lines, e.g. --account=cs149
  std::vector<std::string> grade_options;   ///< passed to every `grader grade`
  std::string labs;                  ///< --labs for grade and merge
  /// The harness job builds for this GPU architecture (e.g. "90") without a GPU of its own;
  /// empty: on one GPU of the partition, for the architecture the tasks' GPUs have.
  std::string cuda_arch;
  /// Where the harness job builds the harness that every task links: OUT/harness.
  [[nodiscard]] std::filesystem::path harness_dir() const { return out_dir / "harness"; }
};

/// The harness job's script: `grader harness --out OUT/harness`, once, before any task.
std::string harness_script(const SlurmJob& job);

/// The job array's script.
std::string array_script(const Roster& roster, const SlurmJob& job);
/// The merge job's script.
std::string merge_script(const SlurmJob& job);

}  // namespace convlab::grader
