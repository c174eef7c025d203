// `grader analyze`: the analysis model for one configuration, per block and for the grid.
//
//   grader analyze --strategy tiled1 --height 32 --width 32 --mask 5 --tile 16 --block-index 0,0
//   grader analyze --strategy tiled2 --dims 1 --width 100 --mask 5 --tile 32
//   grader analyze --strategy untiled --height 100 --width 100 --mask 3 --block 32x8
//   grader analyze --lab lab03 --case datasets/conv2d/k5_37x53
//
// --lab takes the kernel and its tile or block from lab_config.hpp (the configuration the lab
// actually launches); --case takes H, W and K from a dataset's case.json.
#include <fmt/format.h>

#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <regex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "commands/commands.hpp"
#include "convlab/analysis_report.hpp"
#include "convlab/dataset.hpp"
#include "convlab/lab_config.hpp"

namespace convlab::grader {

namespace {

/// A bad command line, reported as "grader analyze: error: ..." with exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct AnalyzeOptions {
  std::string strategy, lab, case_dir, tile, block, block_index = "0,0", format = "text", layer;
  int dims = 2;
  std::optional<int> height, width, mask;
};

/// "16" → (16, 16) in 2D or (16, 1) in 1D; "16x8" → (16, 8).
std::pair<int, int> parse_shape(const std::string& text, const char* flag, int dims) {
  std::smatch m;
  if (std::regex_match(text, m, std::regex(R"((\d+))"))) {
    const int v = std::stoi(m[1]);
    return {v, dims == 2 ? v : 1};
  }
  if (std::regex_match(text, m, std::regex(R"((\d+)[xX](\d+))"))) {
    return {std::stoi(m[1]), std::stoi(m[2])};
  }
  throw UsageError(fmt::format("{} '{}': expected N or NxM (e.g. 16 or 32x8)", flag, text));
}

/// "1,0" → (1, 0); "3" → (3, 0).
std::pair<int, int> parse_index(const std::string& text) {
  std::smatch m;
  if (std::regex_match(text, m, std::regex(R"((\d+)(?:,(\d+))?)"))) {
    return {std::stoi(m[1]), m[2].matched ? std::stoi(m[2]) : 0};
  }
  throw UsageError(fmt::format("--block-index '{}': expected bx,by (e.g. 0,0)", text));
}

std::filesystem::path find_case(const std::string& dir) {
  std::filesystem::path p(dir);
  if (std::filesystem::exists(p / "case.json") || p.is_absolute()) return p;
  if (auto in_tree = source_dir() / p; std::filesystem::exists(in_tree / "case.json")) return in_tree;
  return p;  // read_case_info names the missing file
}

/// The lab's kernel with the tile or block it launches with (lab_config.hpp).
analysis::Config lab_config(const std::string& lab, int height, int width, int mask) {
  if (auto c = analysis::config_for_lab(lab, height, width, mask)) return *c;
  throw UsageError(fmt::format("--lab '{}': the analysis model covers lab01 to lab05", lab));
}

analysis::AnalysisReport build_report(const AnalyzeOptions& o) {
  if (o.dims != 1 && o.dims != 2) throw UsageError(fmt::format("--dims {}: expected 1 or 2", o.dims));
  int height = o.height.value_or(o.dims == 1 ? 1 : 0);
  int width = o.width.value_or(0);
  int mask = o.mask.value_or(0);
  std::string origin;

  if (!o.case_dir.empty()) {
    const CaseInfo info = read_case_info(find_case(o.case_dir));
    if (info.problem != Problem::conv2d) {
      throw UsageError(fmt::format("--case {}: a {} case; the analysis model is for conv2d",
                                   o.case_dir, problem_name(info.problem)));
    }
    height = info.conv2d.height;
    width = info.conv2d.width;
    mask = info.conv2d.mask_width;
    origin = fmt::format("case {}", info.id());
  }
  if (o.dims == 2 && !o.height) {
    if (o.case_dir.empty()) throw UsageError("give --height (or --case)");
  }
  if (!o.width && o.case_dir.empty()) throw UsageError("give --width (or --case)");
  if (!o.mask && o.case_dir.empty()) throw UsageError("give --mask (or --case)");
  if (o.dims == 1 && height != 1) throw UsageError("a 1D problem (--dims 1) has no --height");

  analysis::Config config;
  if (!o.lab.empty()) {
    if (o.dims != 2) throw UsageError("--lab: the labs are 2D");
    config = lab_config(o.lab, height, width, mask);
    origin = origin.empty() ? o.lab : fmt::format("{}, {}", o.lab, origin);
  } else {
    if (o.strategy.empty()) throw UsageError("give --strategy (or --lab)");
    const auto s = analysis::parse_strategy(o.strategy);
    if (!s) {
      throw UsageError(fmt::format("--strategy '{}': expected untiled, untiled-global-mask, "
                                   "tiled1, tiled2 or tiled3", o.strategy));
    }
    config.strategy = *s;
    config.dims = o.dims;
    config.height = height;
    config.width = width;
    config.mask_width = mask;
    if (config.untiled()) {
      if (!o.tile.empty()) throw UsageError("--tile is for the tiled strategies; the untiled ones take --block");
      using namespace convlab::config;
      const auto [bx, by] = o.block.empty() ? std::pair{kUntiledBlockX, o.dims == 2 ? kUntiledBlockY : 1}
                                            : parse_shape(o.block, "--block", o.dims);
      config.block_x = bx;
      config.block_y = by;
    } else {
      if (!o.block.empty()) {
        throw UsageError("--block is for the untiled strategies; a tiled kernel's block is its tile (--tile)");
      }
      if (o.tile.empty()) throw UsageError(fmt::format("--strategy {} needs --tile", o.strategy));
      const auto [tx, ty] = parse_shape(o.tile, "--tile", o.dims);
      config.tile_x = tx;
      config.tile_y = ty;
    }
  }
  try {
    config.validate();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const auto [bx, by] = parse_index(o.block_index);
  if (bx >= config.grid_x() || by >= config.grid_y()) {
    throw UsageError(fmt::format("--block-index {},{}: the grid is {}x{} blocks", bx, by,
                                 config.grid_x(), config.grid_y()));
  }
  return analysis::make_report(config, bx, by, origin);
}

/// "B,C,M,H,W,K[,S,P,D]" → a validated conv layer.
ConvLayerShape parse_layer(const std::string& text) {
  std::vector<int> v;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos) {
      throw UsageError(fmt::format("--layer '{}': '{}' is not a non-negative integer", text, item));
    }
    v.push_back(std::stoi(item));
  }
  if (v.size() != 6 && v.size() != 9) {
    throw UsageError(fmt::format("--layer '{}': expected B,C,M,H,W,K or B,C,M,H,W,K,S,P,D", text));
  }
  ConvLayerShape s{v[0], v[1], v[2], v[3], v[4], v[5]};
  if (v.size() == 9) {
    s.stride = v[6];
    s.padding = v[7];
    s.dilation = v[8];
  }
  try {
    s.validate();
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--layer '{}': {}", text, e.what()));
  }
  return s;
}

/// Lab 06: the im2col view of a conv layer (the conv-layer lecture's replication analysis).
int run_layer_analysis(const ConvLayerShape& s, const std::string& origin, const std::string& format) {
  const analysis::Im2colTraffic t = analysis::im2col_traffic(s);
  const long long rows = static_cast<long long>(s.channels) * s.mask_width * s.mask_width;
  const long long cols = static_cast<long long>(s.out_height()) * s.out_width();
  const double flops = 2.0 * static_cast<double>(s.output_elements()) * static_cast<double>(s.terms_per_output());
  if (format == "json") {
    const nlohmann::json j = {{"format", "convlab-analyze-layer"}, {"version", 1}, {"layer", s.describe()},
                              {"origin", origin}, {"original_elements", t.original_elements},
                              {"unrolled_elements", t.unrolled_elements}, {"replication", t.replication},
                              {"extra_bytes", t.extra_bytes}, {"gemm_rows", rows}, {"gemm_cols", cols},
                              {"filters", s.filters}, {"flops", flops}};
    fmt::print("{}\n", j.dump(2));
    return kGraded;
  }
  fmt::print("im2col analysis of the conv layer {}{}\n", s.describe(), origin.empty() ? "" : " (" + origin + ")");
  fmt::print("  output                    Ho x Wo = {} x {}\n", s.out_height(), s.out_width());
  fmt::print("  input X                   B·C·H·W        = {:>14} elements ({:.3f} MB)\n", t.original_elements,
             4e-6 * static_cast<double>(t.original_elements));
  fmt::print("  unrolled X_unroll         B·C·K²·Ho·Wo   = {:>14} elements ({:.3f} MB)\n", t.unrolled_elements,
             4e-6 * static_cast<double>(t.unrolled_elements));
  fmt::print("  replication factor        unrolled / X   = {:.4f}\n", t.replication);
  fmt::print("  extra traffic of step 1   written + read = {:.3f} MB (absent when the unroll is fused, step 2)\n",
             t.extra_bytes * 1e-6);
  fmt::print("  GEMM per image            Y[{}][{}] = W[{}][{}] x X_unroll[{}][{}]\n", s.filters, cols, s.filters,
             rows, rows, cols);
  fmt::print("  flops                     2·B·M·Ho·Wo·C·K² = {:.4g}\n", flops);
  return kGraded;
}

int run_analyze(const AnalyzeOptions& o) {
  try {
    if (!o.layer.empty()) return run_layer_analysis(parse_layer(o.layer), "", o.format);
    if (!o.case_dir.empty()) {
      const CaseInfo info = read_case_info(find_case(o.case_dir));
      if (info.problem == Problem::conv_layer) return run_layer_analysis(info.layer, "case " + info.id(), o.format);
    }
    const analysis::AnalysisReport report = build_report(o);
    if (o.format == "json") {
      fmt::print("{}\n", analysis::report_json(report).dump(2));
    } else {
      fmt::print("{}", analysis::report_text(report));
    }
    return kGraded;
  } catch (const UsageError& e) {
    fmt::print(stderr, "grader analyze: error: {}\n", e.what());
  } catch (const DatasetError& e) {
    fmt::print(stderr, "grader analyze: error: {}\n", e.what());
  }
  return kUsageError;
}

}  // namespace

void add_analyze_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<AnalyzeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "analyze",
      "The analysis model for one configuration: global, mask and shared-memory accesses, "
      "bandwidth reduction and divergent warps, for one block and for the whole grid");
  CLI::Option* strategy = cmd->add_option(
      "--strategy", o->strategy, "untiled, untiled-global-mask, tiled1, tiled2 or tiled3");
  cmd->add_option("--dims", o->dims, "1 or 2 (default 2)");
  CLI::Option* height = cmd->add_option("--height", o->height, "image rows H");
  CLI::Option* width = cmd->add_option("--width", o->width, "image columns W (the length N in 1D)");
  CLI::Option* mask = cmd->add_option("--mask", o->mask, "mask width K");
  CLI::Option* tile = cmd->add_option(
      "--tile", o->tile, "tile T or TxU: the output tile (tiled1, tiled3) or input tile (tiled2)");
  CLI::Option* block = cmd->add_option("--block", o->block, "untiled block BXxBY (default 32x8)");
  cmd->add_option("--block-index", o->block_index, "the block to show, bx,by (default 0,0)");
  cmd->add_option("--format", o->format, "text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  CLI::Option* lab = cmd->add_option(
      "--lab", o->lab, "lab01..lab05: the lab's kernel with the tile or block it launches with");
  CLI::Option* case_dir = cmd->add_option(
      "--case", o->case_dir, "a dataset case folder: H, W and K of a conv2d case, or a conv layer (lab 06, im2col)");
  CLI::Option* layer = cmd->add_option("--layer", o->layer, "a conv layer B,C,M,H,W,K[,S,P,D]: its im2col analysis (lab 06)");
  layer->excludes(case_dir)->excludes(strategy)->excludes(lab);
  lab->excludes(strategy)->excludes(tile)->excludes(block);
  case_dir->excludes(height)->excludes(width)->excludes(mask);
  cmd->callback([o, &exit_code] { exit_code = run_analyze(*o); });
}

}  // namespace convlab::grader
