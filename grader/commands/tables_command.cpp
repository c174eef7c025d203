// `grader tables`: every table and worked answer of the syllabus, published beside exact.
//
//   grader tables [--format text|markdown|json] [--table NAME]... [--no-gpu] [--list]
//
// With a GPU present (and no --no-gpu) its copy bandwidth and FMA rate are measured first
// (about a second) and the machine-balance tables gain a "this GPU" column.
#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <memory>

#include "commands/commands.hpp"
#include "convlab/analysis_tables.hpp"
#include "convlab/device_info.hpp"

namespace convlab::grader {

namespace {

struct TablesOptions {
  std::string format = "text";
  std::vector<std::string> tables;
  bool no_gpu = false;
  bool list = false;
};

/// The GPU columns: measured now, or the reason there are none.
analysis::GpuColumns gpu_columns(bool no_gpu) {
  analysis::GpuColumns cols;
  if (no_gpu) {
    cols.absent_reason = "left out with --no-gpu";
    return cols;
  }
  std::string why;
  const auto device = query_device(&why);
  if (!device) {
    cols.absent_reason = why.empty() ? "no GPU found" : why;
    return cols;
  }
  try {
    const Ceilings c = measure_ceilings();
    cols.gpu = analysis::Machine{device->describe(), c.copy_bytes_per_s, c.fma_flops_per_s};
  } catch (const std::exception& e) {
    cols.absent_reason = fmt::format("{} is present but measuring it failed: {}", device->name, e.what());
  }
  return cols;
}

int run_tables(const TablesOptions& o) {
  const auto names = analysis::lecture_table_names();
  if (o.list) {
    for (const auto& n : names) fmt::print("{}\n", n);
    return kGraded;
  }
  for (const auto& wanted : o.tables) {
    if (std::find(names.begin(), names.end(), wanted) == names.end()) {
      fmt::print(stderr, "grader tables: no table named '{}'; the tables are: {}\n", wanted,
                 fmt::join(names, ", "));
      return kUsageError;
    }
  }
  const analysis::GpuColumns gpu = gpu_columns(o.no_gpu);
  std::vector<analysis::LectureTable> tables = analysis::lecture_tables(gpu);
  if (!o.tables.empty()) {
    // In the order asked for, so that a slide deck gets exactly what it names.
    std::vector<analysis::LectureTable> chosen;
    for (const auto& wanted : o.tables) {
      chosen.push_back(*std::find_if(tables.begin(), tables.end(),
                                     [&](const analysis::LectureTable& t) { return t.name == wanted; }));
    }
    tables = std::move(chosen);
  }
  if (o.format == "json") {
    fmt::print("{}\n", analysis::tables_json(tables, gpu).dump(2));
  } else if (o.format == "markdown") {
    fmt::print("{}", analysis::render_markdown(tables, gpu));
  } else {
    fmt::print("{}", analysis::render_text(tables, gpu));
  }
  return kGraded;
}

}  // namespace

void add_tables_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<TablesOptions>();
  CLI::App* cmd = app.add_subcommand(
      "tables",
      "Reproduce every table and worked answer of the lectures, the talk and the paper: "
      "published value beside the exact one, flagged where they differ");
  cmd->add_option("--format", opts->format, "text (default), markdown (for the slides) or json")
      ->check(CLI::IsMember({"text", "markdown", "json"}));
  cmd->add_option("--table", opts->tables, "print only this table (repeatable); see --list");
  cmd->add_flag("--no-gpu", opts->no_gpu,
               "do not measure the GPU; leave out the 'this GPU' columns (same bytes on every machine: use it for the slides)");
  cmd->add_flag("--list", opts->list, "list the table names and exit");
  cmd->callback([opts, &exit_code] { exit_code = run_tables(*opts); });
}

}  // namespace convlab::grader
