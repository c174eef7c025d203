// The grader's subcommands. Each lives in its own file and adds itself to the CLI11 app;
// main.cpp only wires them together. Below them, what `grader batch` shares with `grader grade`
// (grade_command.cpp): the options, each parsed and range-checked into the GradeOptions a
// grading session is set up from (schedule/grade_session.hpp), and the session opened from them.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>

#include "schedule/grade_session.hpp"
#include "system/exit_codes.hpp"
#include "system/tool_paths.hpp"

namespace convlab::grader {

void add_datagen_command(CLI::App& app, int& exit_code);
void add_grade_command(CLI::App& app, int& exit_code);
void add_batch_command(CLI::App& app, int& exit_code);
void add_merge_command(CLI::App& app, int& exit_code);  // merge_command.cpp: class reports from per-student ones
void add_slurm_command(CLI::App& app, int& exit_code);  // slurm_command.cpp: a class on a Slurm cluster
void add_harness_command(CLI::App& app, int& exit_code);  // harness_command.cpp: the lab harness, built once
void add_tables_command(CLI::App& app, int& exit_code);
void add_analyze_command(CLI::App& app, int& exit_code);
void add_tune_command(CLI::App& app, int& exit_code);  // tune_command.cpp: lab 07's autotuner
void add_docs_command(CLI::App& app, int& exit_code);   // docs_command.cpp: README and slide blocks
void add_figures_command(CLI::App& app, int& exit_code);  // figures_command.cpp: the slides' diagrams
void add_bench_command(CLI::App& app, int& exit_code);  // bench_command.cpp: the benchmarks

/// Parses the command line and runs the chosen command (command_line.cpp). @returns the
/// command's `exit_code`, or kUsageError for a bad option or an error that escaped the command,
/// printed as one line that names the path and the reason.
int run_command_line(CLI::App& app, int argc, char** argv, const int& exit_code);

/// Adds the options shared by grade and batch to `cmd`, parsed into `o` (grade_command.cpp).
void add_common_grade_options(CLI::App* cmd, GradeOptions& o);

/// Sets up the session for a command: prints its warnings, or its error and sets `exit_code`.
/// @returns null when the run cannot go on.
std::unique_ptr<GradeSession> open_session_for_command(const GradeOptions& o, int& exit_code);

}  // namespace convlab::grader
