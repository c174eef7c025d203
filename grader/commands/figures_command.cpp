// `grader figures`: the slides' diagrams (docgen/figures.hpp), drawn from the code's sizes.
//
//   grader figures --out DIR     write every diagram as DIR/NAME.svg
//   grader figures --list        the diagrams' names and captions
//
// `grader docs` writes the same drawings into slides/figures/ (the decks' diagram blocks) and
// `grader docs --check` reports one that a change of tile size has made stale.
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "commands/commands.hpp"
#include "convlab/atomic_file.hpp"
#include "docgen/figures.hpp"

namespace convlab::grader {

namespace {

struct FiguresOptions {
  std::string out;
  bool list = false;
};

int run_figures(const FiguresOptions& o) {
  const std::vector<figures::Diagram> all = figures::diagrams();
  if (o.list) {
    for (const auto& d : all) fmt::print("{}  {}x{}  {}\n", d.name, d.width, d.height, d.caption);
    return kGraded;
  }
  if (o.out.empty()) {
    fmt::print(stderr, "grader figures: give --out DIR (or --list)\n");
    return kUsageError;
  }
  std::error_code ec;
  std::filesystem::create_directories(o.out, ec);
  if (!std::filesystem::is_directory(o.out, ec)) {
    fmt::print(stderr, "grader figures: --out {}: cannot create the folder\n", o.out);
    return kUsageError;
  }
  for (const auto& d : all) write_file_atomically(std::filesystem::path(o.out) / (d.name + ".svg"), d.svg);
  fmt::print("grader figures: {} diagrams written to {}\n", all.size(), o.out);
  return kGraded;
}

}  // namespace

void add_figures_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<FiguresOptions>();
  CLI::App* cmd = app.add_subcommand(
      "figures", "Draw the slides' diagrams (tiling strategies, im2col, register patch) as SVG from the code's sizes");
  cmd->add_option("--out", opts->out, "the folder to write NAME.svg into");
  cmd->add_flag("--list", opts->list, "list the diagrams and their captions");
  cmd->callback([opts, &exit_code] {
    try {
      exit_code = run_figures(*opts);
    } catch (const std::exception& e) {
      fmt::print(stderr, "grader figures: {}\n", e.what());
      exit_code = kUsageError;
    }
  });
}

}  // namespace convlab::grader
