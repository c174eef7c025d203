// grader — grading (one submission or a batch), analysis tables, dataset generation.
// `grader --help` lists the commands.
#include "commands/commands.hpp"

int main(int argc, char** argv) {
  using namespace convlab::grader;
  CLI::App app{"convlab grader: grade labs, print the lecture tables, analyze a configuration, "
               "generate datasets, regenerate the tables of the README and the slides (docs)"};
  app.require_subcommand(1);
  int exit_code = kGraded;
  add_grade_command(app, exit_code);
  add_batch_command(app, exit_code);
  add_merge_command(app, exit_code);
  add_slurm_command(app, exit_code);
  add_harness_command(app, exit_code);
  add_tables_command(app, exit_code);
  add_analyze_command(app, exit_code);
  add_datagen_command(app, exit_code);
  add_tune_command(app, exit_code);
  add_docs_command(app, exit_code);
  add_figures_command(app, exit_code);
  add_bench_command(app, exit_code);
  return run_command_line(app, argc, argv, exit_code);
}
