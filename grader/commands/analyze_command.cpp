// `grader analyze`: the analysis model for one configuration, per block and for the grid.
//
//   grader analyze --strategy tiled1 --height 32 --width 32 --mask 5 --tile 16 --block-index 0,0
//   grader analyze --strategy tiled2 --dims 1 --width 100 --mask 5 --tile 32
//   grader analyze --strategy untiled --height 100 --width 100 --mask 3 --block 32x8
//   grader analyze --lab lab03 --case datasets/conv2d/k5_37x53
//   grader analyze --lab lab07 --case datasets/conv2d/k5_37x53 [--tuning build/tuning/lab07-nvidia-h200.json]
//   grader analyze --lab lab06 --case datasets/conv_layer/<case> [--sms 132]
//   grader analyze --lab lab08 --layer 8,128,128,128,128,3,1,1,1 [--ceilings results/bench/<gpu>/bench.json]   (steps 1, 2, 5 and 6)
//   grader analyze --lab lab08 --height 8192 --width 8192 --mask 17 [--ceilings ...]   (steps 3 and 4)
//
// --lab takes the kernel and its tile or block from lab_config.hpp (the configuration the lab
// actually launches); --case takes H, W and K from a dataset's case.json.
#include <fmt/format.h>

#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <limits>
#include <regex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "commands/commands.hpp"
#include "convlab/lab_registry.hpp"
#include "convlab/analysis_im2col_report.hpp"
#include "convlab/analysis_lab07_report.hpp"
#include "convlab/analysis_lab08_report.hpp"
#include "convlab/analysis_report.hpp"
#include "convlab/autotune/tuning_file.hpp"
#include "convlab/dataset.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/json_file.hpp"
#include "convlab/lab_config.hpp"
#include "convlab/limits.hpp"

namespace convlab::grader {

namespace {

/// A bad command line, reported as "grader analyze: error: ..." with exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct AnalyzeOptions {
  std::string strategy, lab, case_dir, tile, block, block_index = "0,0", format = "text", layer, tuning, ceilings;
  int dims = 2;
  int sms = 132;  // lab 06's step 3 plan and lab 08's split: an H100 SXM or H200 unless told
  std::optional<int> height, width, mask;
  bool sms_given = false, block_index_given = false;  // refused where they would be ignored
};

/// Largest image side, tile, block or mask width the analysis takes: grids and counts of such
/// sizes stay exact in the model's integers (⌈W / tile⌉ with W + tile well below 2^31).
constexpr long long kMaxAnalyzedSize = 1 << 20;

/// One whole number of an option's text: digits only ("3x", "-1", "+3" are not numbers), at most
/// `limit`, which the message names (no std::stoi: it throws "stoi" for 99999999999).
int parse_count(const std::string& item, const std::string& flag, const std::string& text, long long limit) {
  if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos) {
    throw UsageError(fmt::format("{} '{}': '{}' is not a non-negative integer", flag, text, item));
  }
  const std::size_t digits = item.size() - std::min(item.find_first_not_of('0'), item.size());
  if (digits > 18 || std::stoll(item) > limit) {
    throw UsageError(fmt::format("{} '{}': {} is above the limit {}", flag, text, item, limit));
  }
  return static_cast<int>(std::stoll(item));
}

/// "16" → (16, 16) in 2D or (16, 1) in 1D; "16x8" → (16, 8).
std::pair<int, int> parse_shape(const std::string& text, const char* flag, int dims) {
  std::smatch m;
  if (std::regex_match(text, m, std::regex(R"((\d+))"))) {
    const int v = parse_count(m[1], flag, text, kMaxAnalyzedSize);
    return {v, dims == 2 ? v : 1};
  }
  if (std::regex_match(text, m, std::regex(R"((\d+)[xX](\d+))"))) {
    return {parse_count(m[1], flag, text, kMaxAnalyzedSize), parse_count(m[2], flag, text, kMaxAnalyzedSize)};
  }
  throw UsageError(fmt::format("{} '{}': expected N or NxM (e.g. 16 or 32x8)", flag, text));
}

/// "1,0" → (1, 0); "3" → (3, 0). Each at most kMaxAnalyzedSize (the grid is checked after).
std::pair<int, int> parse_index(const std::string& text) {
  std::smatch m;
  if (std::regex_match(text, m, std::regex(R"((\d+)(?:,(\d+))?)"))) {
    return {parse_count(m[1], "--block-index", text, kMaxAnalyzedSize),
            m[2].matched ? parse_count(m[2], "--block-index", text, kMaxAnalyzedSize) : 0};
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
  // A mask width the lab's kernels do not take would be analysed for a launch that never runs.
  if (const labs::LabEntry* entry = labs::find_lab(lab);
      entry != nullptr && entry->problem == Problem::conv2d && !entry->mask_widths.contains(mask)) {
    throw UsageError(fmt::format("--mask {}: {} takes mask widths {}", mask, lab, entry->mask_widths.to_string()));
  }
  if (auto c = analysis::config_for_lab(lab, height, width, mask)) return *c;
  throw UsageError(fmt::format("--lab '{}': expected lab01 to lab08", lab));
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
    if (height > kMaxAnalyzedSize || width > kMaxAnalyzedSize) {
      throw UsageError(fmt::format("--case {}: a {}x{} image is above the analysis' limit of {} per side", o.case_dir,
                                   height, width, kMaxAnalyzedSize));
    }
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
  while (std::getline(ss, item, ',')) v.push_back(parse_count(item, "--layer", text, std::numeric_limits<int>::max()));
  if (v.size() != 6 && v.size() != 9) {
    throw UsageError(fmt::format("--layer '{}': expected B,C,M,H,W,K or B,C,M,H,W,K,S,P,D", text));
  }
  ConvLayerShape s{v[0], v[1], v[2], v[3], v[4], v[5]};
  if (v.size() == 9) {
    s.stride = v[6];
    s.padding = v[7];
    s.dilation = v[8];
  }
  // Each field fits an int, but D·(K−1) and H + 2P need not: checked in 64 bits first, so that
  // an overflow cannot pass for a small extent.
  const long long extent = static_cast<long long>(s.dilation) * (s.mask_width - 1) + 1;
  const long long padded_h = s.height + 2LL * s.padding;
  const long long padded_w = s.width + 2LL * s.padding;
  if (padded_h > std::numeric_limits<int>::max() || padded_w > std::numeric_limits<int>::max()) {
    throw UsageError(fmt::format("--layer '{}': the padded {}x{} input is above the limit {}", text, padded_h, padded_w,
                                 std::numeric_limits<int>::max()));
  }
  if (extent > padded_h || extent > padded_w) {
    throw UsageError(fmt::format("--layer '{}': the dilated {}x{} mask (extent {}) does not fit the padded {}x{} input",
                                 text, s.mask_width, s.mask_width, extent, padded_h, padded_w));
  }
  try {
    s.validate();
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--layer '{}': {}", text, e.what()));
  }
  return s;
}

/// Prints the report as text, or as JSON under --format json; only the one printed is made.
template <class Text, class Json>
int print_report(const std::string& format, Text text, Json json) {
  if (format == "json") {
    fmt::print("{}\n", json().dump(2));
  } else {
    fmt::print("{}", text());
  }
  return kGraded;
}

/// The im2col view of a conv layer (the conv-layer lecture's replication analysis).
int run_layer_analysis(const ConvLayerShape& s, const std::string& origin, const std::string& format) {
  return print_report(format, [&] { return analysis::im2col_report_text(s, origin); },
                      [&] { return analysis::im2col_report_json(s, origin); });
}

/// Lab 06: every step of the solution on a layer, with step 3's plan for a GPU of `sms` SMs.
int run_lab06_analysis(const ConvLayerShape& s, int sms, const std::string& origin, const std::string& format) {
  if (sms < 1) throw UsageError(fmt::format("--sms {}: expected at least 1", sms));
  return print_report(format, [&] { return analysis::lab06_report_text(s, sms, origin); },
                      [&] { return analysis::lab06_report_json(s, sms, origin); });
}

/// The ceilings a `grader bench` run measured (its bench.json), for lab 08's bounds.
analysis::TensorCoreCeilings read_ceilings(const std::string& path) {
  try {
    const nlohmann::json bench = parse_json(read_file(path, kMaxTextFileBytes), path);
    const nlohmann::json& c = bench.at("ceilings");
    const analysis::TensorCoreCeilings out{c.at("copy_bytes_per_s").get<double>(), c.at("fma_flops_per_s").get<double>(),
                                           c.value("tf32_mma_flops_per_s", 0.0), c.value("tf32_mma_k4_flops_per_s", 0.0)};
    if (!(out.copy_bytes_per_s > 0 && out.fma_flops_per_s > 0 && out.tf32_mma_flops_per_s > 0)) {
      throw std::runtime_error("its ceilings lack a positive copy, FMA or TF32 mma.sync rate (a run from before lab 08?)");
    }
    return out;
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("--ceilings {}: {}", path, e.what()));
  }
}

/// Lab 08: its conv-layer steps (1, 2, 5) on a layer, split for a GPU of `sms` SMs, bounded by measured ceilings.
int run_lab08_analysis(const ConvLayerShape& s, const AnalyzeOptions& o, const std::string& origin) {
  if (o.sms < 1) throw UsageError(fmt::format("--sms {}: expected at least 1", o.sms));
  const analysis::TensorCoreCeilings c = o.ceilings.empty() ? analysis::TensorCoreCeilings{} : read_ceilings(o.ceilings);
  return print_report(o.format, [&] { return analysis::lab08_report_text(s, o.sms, c, origin, o.ceilings); },
                      [&] { return analysis::lab08_report_json(s, o.sms, c, origin, o.ceilings); });
}

/// Lab 08 step 3: one image (--height, --width, --mask), as banded GEMMs on tensor cores.
int run_lab08_banded_analysis(int height, int width, int mask, const AnalyzeOptions& o, const std::string& origin) {
  if (o.sms_given) throw UsageError("--sms is for conv layers (lab 08 step 3 has no split-K)");
  const analysis::TensorCoreCeilings c = o.ceilings.empty() ? analysis::TensorCoreCeilings{} : read_ceilings(o.ceilings);
  try {
    (void)analysis::analyze_lab08_banded(height, width, mask);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return print_report(
      o.format, [&] { return analysis::lab08_banded_report_text(height, width, mask, c, origin, o.ceilings); },
      [&] { return analysis::lab08_banded_report_json(height, width, mask, c, origin, o.ceilings); });
}

/// Labs 06 and 08 take a conv layer: --layer, or --case with a conv-layer case; lab 08 also an
/// image (--height, --width, --mask, or a conv2d --case) for its step 3.
int run_conv_layer_lab(const AnalyzeOptions& o) {
  const std::string number = o.lab.substr(3);
  ConvLayerShape s;
  std::string origin;
  if (o.lab == "lab08" && o.layer.empty()) {
    if (o.case_dir.empty() && o.height && o.width && o.mask) {
      return run_lab08_banded_analysis(*o.height, *o.width, *o.mask, o, "");
    }
    if (!o.case_dir.empty()) {
      const CaseInfo info = read_case_info(find_case(o.case_dir));
      if (info.problem == Problem::conv2d) {
        return run_lab08_banded_analysis(info.conv2d.height, info.conv2d.width, info.conv2d.mask_width, o,
                                         "case " + info.id());
      }
    }
  }
  if (!o.layer.empty()) {
    s = parse_layer(o.layer);
  } else {
    if (o.case_dir.empty()) {
      throw UsageError(o.lab == "lab08" ? "--lab lab08 needs --layer or a conv-layer --case (steps 1, 2, 5 and 6), or "
                                          "--height, --width and --mask or a conv2d --case (steps 3 and 4)"
                                        : fmt::format("--lab {} needs --case (a conv-layer case) or --layer", o.lab));
    }
    const CaseInfo info = read_case_info(find_case(o.case_dir));
    if (info.problem != Problem::conv_layer) {
      throw UsageError(fmt::format("--case {}: a {} case; lab {} takes conv-layer cases", o.case_dir,
                                   problem_name(info.problem), number));
    }
    s = info.layer;
    origin = "case " + info.id();
  }
  return o.lab == "lab06" ? run_lab06_analysis(s, o.sms, origin, o.format) : run_lab08_analysis(s, o, origin);
}

/// Lab 07: each variant's configuration (the tuned one from --tuning, else the compiled-in
/// defaults) on an image.
int run_lab07_analysis(int height, int width, int mask, const std::string& tuning_file, const std::string& origin,
                       const std::string& format) {
  std::optional<lab07::TuningTable> tuned;
  std::string source = "compiled-in defaults";
  if (!tuning_file.empty()) {
    try {
      tuned = lab07::read_tuning_file(tuning_file);
    } catch (const std::exception& e) {
      throw UsageError(fmt::format("--tuning {}: {}", tuning_file, e.what()));
    }
    source = fmt::format("tuning file {} ({})", tuning_file, tuned->device);
  }
  if (!lab07::mask_supported(mask)) {
    throw UsageError(fmt::format("mask width {}: lab 07 takes 2..7 and odd 9..17", mask));
  }
  std::vector<analysis::Lab07Variant> variants;
  for (const lab07::VariantRole& r : lab07::kVariantRoles) {
    variants.push_back({r.variant, lab07::config_for_role(tuned ? &*tuned : nullptr, mask, r.role)});
  }
  analysis::Lab07Report report;
  try {
    report = analysis::make_lab07_report(height, width, mask, std::move(variants), source, origin);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return print_report(format, [&] { return analysis::lab07_report_text(report); },
                      [&] { return analysis::lab07_report_json(report); });
}

int run_analyze(const AnalyzeOptions& o) {
  try {
    const bool layer_lab = o.lab == "lab06" || o.lab == "lab08";
    if (!o.tuning.empty() && o.lab != "lab07") throw UsageError("--tuning is for --lab lab07");
    if (o.sms_given && !layer_lab) throw UsageError("--sms is for --lab lab06 (its step 3 plan) and lab08 (its split-K)");
    if (!o.ceilings.empty() && o.lab != "lab08") throw UsageError("--ceilings is for --lab lab08 (its bounds)");
    if (o.block_index_given && (layer_lab || o.lab == "lab07" || !o.layer.empty())) {
      throw UsageError("--block-index is for the kernels of labs 01-05 (--strategy or --lab lab01..lab05)");
    }
    if (!o.layer.empty() && !o.lab.empty() && !layer_lab) {
      throw UsageError(fmt::format("--layer is a conv layer: the problem of labs 06 and 08, not {}'s", o.lab));
    }
    if (layer_lab) return run_conv_layer_lab(o);
    if (o.lab == "lab07") {
      if (!o.case_dir.empty()) {
        const CaseInfo info = read_case_info(find_case(o.case_dir));
        if (info.problem != Problem::conv2d) {
          throw UsageError(fmt::format("--case {}: a {} case; lab 07 takes conv2d cases", o.case_dir,
                                       problem_name(info.problem)));
        }
        return run_lab07_analysis(info.conv2d.height, info.conv2d.width, info.conv2d.mask_width, o.tuning,
                                  "case " + info.id(), o.format);
      }
      if (!o.height || !o.width || !o.mask) throw UsageError("--lab lab07 needs --case or --height, --width and --mask");
      return run_lab07_analysis(*o.height, *o.width, *o.mask, o.tuning, "", o.format);
    }
    if (!o.layer.empty()) return run_layer_analysis(parse_layer(o.layer), "", o.format);
    if (!o.case_dir.empty()) {
      const CaseInfo info = read_case_info(find_case(o.case_dir));
      if (info.problem == Problem::conv_layer) {
        if (o.block_index_given) throw UsageError("--block-index is for conv2d cases; a conv layer's analysis is im2col's");
        return run_layer_analysis(info.layer, "case " + info.id(), o.format);
      }
    }
    const analysis::AnalysisReport report = build_report(o);
    return print_report(o.format, [&] { return analysis::report_text(report); },
                        [&] { return analysis::report_json(report); });
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
  cmd->add_option("--dims", o->dims, "1 or 2 (default 2)")->check(CLI::Range(1, 2));
  const CLI::Range size_range(1LL, kMaxAnalyzedSize);
  CLI::Option* height = cmd->add_option("--height", o->height, "image rows H")->check(size_range);
  CLI::Option* width = cmd->add_option("--width", o->width, "image columns W (the length N in 1D)")->check(size_range);
  CLI::Option* mask = cmd->add_option("--mask", o->mask, "mask width K")->check(size_range);
  CLI::Option* tile = cmd->add_option(
      "--tile", o->tile, "tile T or TxU: the output tile (tiled1, tiled3) or input tile (tiled2)");
  CLI::Option* block = cmd->add_option("--block", o->block, "untiled block BXxBY (default 32x8)");
  cmd->add_option("--block-index", o->block_index, "the block to show, bx,by (default 0,0)");
  cmd->add_option("--format", o->format, "text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  CLI::Option* lab = cmd->add_option(
      "--lab", o->lab,
      "lab01..lab08: the lab's kernel with the configuration it launches with (lab06, lab08: every step on a "
      "conv layer; lab07: every variant)");
  cmd->add_option("--tuning", o->tuning, "lab07: a tuning file (grader tune); default: the compiled-in configurations");
  cmd->add_option("--sms", o->sms, "lab06, lab08: SMs of the GPU the plan is for (default 132)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--ceilings", o->ceilings,
                  "lab08: a grader bench run's bench.json, whose measured ceilings (copy, FMA, TF32 mma.sync) bound "
                  "each step's time");
  CLI::Option* case_dir = cmd->add_option(
      "--case", o->case_dir, "a dataset case folder: H, W and K of a conv2d case, or a conv layer (lab 06, im2col)");
  CLI::Option* layer =
      cmd->add_option("--layer", o->layer, "a conv layer B,C,M,H,W,K[,S,P,D]: its im2col analysis (with --lab: lab 06's or 08's)");
  layer->excludes(case_dir)->excludes(strategy);
  lab->excludes(strategy)->excludes(tile)->excludes(block);
  case_dir->excludes(height)->excludes(width)->excludes(mask);
  cmd->callback([o, cmd, &exit_code] {
    o->sms_given = cmd->count("--sms") > 0;
    o->block_index_given = cmd->count("--block-index") > 0;
    exit_code = run_analyze(*o);
  });
}

}  // namespace convlab::grader
