// The grader's subcommands. Each lives in its own file and adds itself to the CLI11 app;
// main.cpp only wires them together.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>

namespace convlab::grader {

/// Exit codes of the grader (design.md: "graded" is distinct from "could not grade").
enum GraderExit : int {
  kGraded = 0,        ///< the job ran to the end (whatever the score)
  kCouldNotGrade = 3, ///< no GPU, nothing to grade, a build that could not start...
  kUsageError = 2,    ///< bad flags or input files
};

/// The source tree (datasets/, labs/, solutions/): CONVLAB_SOURCE_DIR unless the
/// CONVLAB_HOME environment variable says otherwise.
std::filesystem::path source_dir();
/// The folder holding the lab executables (the grader's own folder).
std::filesystem::path bin_dir();

void add_datagen_command(CLI::App& app, int& exit_code);
void add_grade_command(CLI::App& app, int& exit_code);
void add_batch_command(CLI::App& app, int& exit_code);
void add_tables_command(CLI::App& app, int& exit_code);
void add_analyze_command(CLI::App& app, int& exit_code);
void add_tune_command(CLI::App& app, int& exit_code);  // tune_command.cpp: lab 07's autotuner
void add_docs_command(CLI::App& app, int& exit_code);   // docs_command.cpp: README and slide blocks
void add_bench_command(CLI::App& app, int& exit_code);  // bench_command.cpp: the benchmarks

}  // namespace convlab::grader
