// grader datagen: write the committed public datasets, or a fresh random set from a seed.
// Nothing is replaced without a word: a folder that already holds cases is written into only
// with --force (it may be the committed datasets/, or a private set).
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "commands/commands.hpp"
#include "convlab/atomic_file.hpp"
#include "convlab/contained_paths.hpp"
#include "convlab/datagen.hpp"
#include "convlab/dataset.hpp"
#include "system/seed_option.hpp"

namespace convlab::grader {
namespace {

/// The case folders already under `out` (none when it does not exist), sorted.
/// @throws PathError for a link in `out` that leads out of it, dangles or loops: the cases are
/// written through such a link, and the count would miss what lies behind it.
std::vector<std::filesystem::path> cases_in(const std::filesystem::path& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::symlink_status(out, ec).type() == fs::file_type::not_found) return {};
  std::vector<fs::path> found;
  for (const fs::path& rel : files_inside(out)) {
    if (rel.filename() == "case.json") found.push_back(rel.has_parent_path() ? out / rel.parent_path() : out);
  }
  return found;
}

/// Whether the cases may be written into `out`: it holds none (or --force), and it takes files.
/// Says why not on stderr.
bool may_write_into(const std::filesystem::path& out, bool force) {
  std::vector<std::filesystem::path> existing;
  try {
    existing = cases_in(out);
  } catch (const PathError& e) {
    fmt::print(stderr, "grader datagen: --out: {}\n", e.what());
    return false;
  }
  if (!existing.empty() && !force) {
    fmt::print(stderr,
               "grader datagen: {} already holds {} case{} (e.g. {}); writing would replace them. Give --force "
               "to write into it, or choose another --out\n",
               out.string(), existing.size(), existing.size() == 1 ? "" : "s", existing.front().string());
    return false;
  }
  try {
    check_writable_folder(out);
  } catch (const std::exception& e) {
    fmt::print(stderr, "grader datagen: --out: {}\n", e.what());
    return false;
  }
  return true;
}

struct DatagenArgs {
  bool public_set = false;
  std::string out;
  std::uint64_t seed = 0;
  int count = 20;
  int max_side = 300;
  std::string problem = "conv2d";
  std::string masks = "1,3,5,7,9,11,13,15,17";
  std::string shape;
  bool no_expected = false;
  bool bench_layers = false;
  bool force = false;
};

void add_datagen_options(CLI::App* cmd, DatagenArgs& args) {
  cmd->add_flag("--public", args.public_set, "write the committed public set (hand-made and seeded cases)");
  cmd->add_option("--out", args.out, "output folder (default: datasets/ for --public)");
  cmd->add_option("--seed", args.seed, "seed of a fresh random set (0 to 18446744073709551615)")->check(seed_number());
  cmd->add_option("--count", args.count, "cases in a random set")->check(CLI::Range(1, 100000));
  // 16384² floats and their double reference take 3 GB: a larger random side is a set no
  // grading run needs, and once ended in a raw std::bad_alloc.
  cmd->add_option("--max-side", args.max_side, "largest image side of a random conv2d set")->check(CLI::Range(1, 16384));
  cmd->add_option("--problem", args.problem, "conv2d or conv_layer (random sets)")
      ->check(CLI::IsMember({"conv2d", "conv_layer"}));
  cmd->add_option("--masks", args.masks, "comma-separated mask widths of a random conv2d set");
  cmd->add_option("--shape", args.shape, "HxW: one conv2d case of this size per mask width (e.g. 8192x8192)");
  cmd->add_flag("--no-expected", args.no_expected, "skip the CPU reference (cases for timing only)");
  cmd->add_flag("--bench-layers", args.bench_layers,
                "the four layers conv_layer_bench measures, as conv-layer cases (seeds --seed, --seed + 1, ...): "
                "time your lab 06 steps on them with lab06 DIR; add --no-expected, their CPU reference takes minutes");
  cmd->add_flag("--force", args.force,
                "write into a folder that already holds cases (a case of the same name is replaced, with no file "
                "of the old one left beside it; other cases stay)");
  // Options a set would ignore are refused with it: --public is the committed set, whatever the
  // random options say; --bench-layers the bench's four layers; --shape one case per mask width.
  for (const char* random_only : {"--seed", "--count", "--max-side", "--problem", "--masks", "--shape", "--no-expected"}) {
    cmd->get_option("--public")->excludes(cmd->get_option(random_only));
  }
  for (const char* not_layers : {"--public", "--count", "--max-side", "--problem", "--masks", "--shape"}) {
    cmd->get_option("--bench-layers")->excludes(cmd->get_option(not_layers));
  }
  for (const char* not_shape : {"--count", "--max-side"}) cmd->get_option("--shape")->excludes(cmd->get_option(not_shape));
}

/// The conv2d cases of a random set: one per mask width at --shape, else --count random ones.
std::vector<Conv2dSpec> conv2d_specs(const DatagenArgs& args) {
  MaskWidths masks;
  try {
    masks = MaskWidths::parse(args.masks, kAllMaskWidths, "a conv2d case");
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError("--masks", e.what());
  }
  if (args.shape.empty()) return random_conv2d_specs(args.seed, args.count, args.max_side, masks);
  int h = 0, w = 0;
  char x = 0;
  std::stringstream shape(args.shape);
  if (!(shape >> h >> x >> w) || x != 'x' || h < 1 || w < 1 || !shape.eof()) {
    throw CLI::ValidationError("--shape", fmt::format("'{}' is not HxW (e.g. 8192x8192)", args.shape));
  }
  std::vector<Conv2dSpec> specs;
  for (int k : masks.widths()) {
    specs.push_back({fmt::format("k{}_{}x{}", k, h, w), {h, w, k}, args.seed + static_cast<std::uint64_t>(k),
                     fmt::format("{}x{} image, seed {}", h, w, args.seed)});
  }
  return specs;
}

/// A random set of --problem under `out`. @returns the exit code.
int write_random_set(DatagenArgs& args, const CLI::App& cmd, const std::filesystem::path& out) {
  if (args.problem != "conv2d") {
    // Accepted and ignored, they would let a user believe the set has what it has not.
    for (const char* conv2d_only : {"--masks", "--max-side", "--shape"}) {
      if (cmd.count(conv2d_only) > 0) {
        throw CLI::ValidationError(conv2d_only, fmt::format("shapes a conv2d set; this is --problem {}", args.problem));
      }
    }
  }
  if (args.problem == "conv2d") {
    const std::vector<Conv2dSpec> specs = conv2d_specs(args);
    if (!may_write_into(out, args.force)) return kUsageError;
    for (const Conv2dSpec& s : specs) {
      Conv2dCase c = generate_case(s, !args.no_expected);
      write_case(out / "conv2d" / s.name, c);
    }
    args.count = static_cast<int>(specs.size());
  } else {
    if (!may_write_into(out, args.force)) return kUsageError;
    for (const ConvLayerSpec& s : random_conv_layer_specs(args.seed, args.count)) {
      write_case(out / "conv_layer" / s.name, generate_case(s, !args.no_expected));
    }
  }
  fmt::print("wrote {} {} cases from seed {} under {}\n", args.count, args.problem, args.seed, out.string());
  return kGraded;
}

/// The set the options ask for: the public one, the bench's layers or a random one.
/// @returns the exit code.
int run_datagen(DatagenArgs& args, const CLI::App& cmd) {
  const std::filesystem::path out = args.public_set && args.out.empty() ? source_dir() / "datasets"
                                                                        : std::filesystem::path(args.out);
  if (args.public_set) {
    if (!may_write_into(out, args.force)) return kUsageError;
    const int n = write_public_datasets(out);
    fmt::print("wrote {} public cases under {}\n", n, out.string());
    return kGraded;
  }
  if (args.out.empty()) throw CLI::ValidationError("--out", "a random set needs --out DIR (and --seed N)");
  if (args.bench_layers) {
    if (!may_write_into(out, args.force)) return kUsageError;
    const std::vector<ConvLayerSpec> specs = bench_conv_layer_specs(args.seed);
    for (const ConvLayerSpec& s : specs) write_case(out / "conv_layer" / s.name, generate_case(s, !args.no_expected));
    fmt::print("wrote the {} layers of conv_layer_bench from seed {} under {}\n", specs.size(), args.seed,
               (out / "conv_layer").string());
    return kGraded;
  }
  return write_random_set(args, cmd, out);
}

}  // namespace

void add_datagen_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("datagen", "generate dataset cases (deterministic: same seed, same bytes)");
  auto args = std::make_shared<DatagenArgs>();
  add_datagen_options(cmd, *args);
  cmd->callback([args, cmd, &exit_code] { exit_code = run_datagen(*args, *cmd); });
}

}  // namespace convlab::grader
