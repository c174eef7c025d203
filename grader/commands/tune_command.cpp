// grader tune: lab 07's autotuner (the talk S4297 and Iandola et al.), on the student's kernel
// by default. The tuner itself is convlab::autotune (grader/tune/tuner.cpp); this command
// picks the kernel source and the paths, and draws the heat maps with gnuplot.
//
//   grader tune                 sweep the kernel of labs/ (the student's register_tiling_kernel.cuh),
//                               write its tuning file build/tuning/lab07-<gpu>.json (read by lab07),
//                               heat maps and tables in build/tuning/lab07-<gpu>/
//   grader tune --solutions     the same for the reference kernel (solution07-<gpu>.json, read by
//                               solution07)
//   grader tune --kernel FILE   the same for any copy of the kernel file
//   grader tune --bench         time the configurations in use at 8192² against the targets
//   grader tune --plot-only DIR render DIR's heat maps with gnuplot (works without a GPU): the script
//                               is written anew from DIR's validated data, never run as found
//   grader tune --compile-only  compile the heat-map sweep and report registers and spills
//                               (works without a GPU; fills the cubin cache)
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "commands/commands.hpp"
#include "convlab/atomic_file.hpp"
#include "convlab/contained_paths.hpp"
#include "tune/heatmap_files.hpp"
#include "convlab/autotune/kernel_source.hpp"
#include "tune/measurement.hpp"
#include "convlab/autotune/search_space.hpp"
#include "tune/tuner.hpp"
#include "convlab/autotune/tuning_file.hpp"
#include "system/exit_codes.hpp"
#include "system/gnuplot_run.hpp"
#include "system/subprocess.hpp"
#include "system/tool_paths.hpp"

#if CONVLAB_TUNE_CUDA
#include "convlab/autotune/jit.hpp"  // cache_dir
#endif

#ifndef CONVLAB_LABS_DIR
#define CONVLAB_LABS_DIR ""
#endif
#ifndef CONVLAB_SOLUTIONS_DIR
#define CONVLAB_SOLUTIONS_DIR ""
#endif

namespace convlab::grader {
namespace fs = std::filesystem;
using namespace convlab::lab07;

namespace {

struct TuneOptions {
  std::string masks = "all";
  int size = 8192;
  std::string out;          // report folder
  std::string tuning;       // tuning file (written by a sweep, read by --bench)
  bool quick = false;
  bool bench = false;
  std::string plot_only;
  bool compile_only = false;
  bool warm_cache = false;
  std::string arch;         // --compile-only: "90"
  int jobs = 0;
  std::string kernel;       // --kernel FILE
  bool solutions = false;   // --solutions
  bool plot = true;
  int repeats = 7;
};

// --- Plotting (no GPU needed) ------------------------------------------------------------------

/// Draws DIR's heat maps: reads and validates DIR/heatmap_kNN.dat, writes DIR/heatmaps.gp anew
/// from them and runs that. A heatmaps.gp found in DIR is never run: a report folder is copied
/// between machines, and a script in it could run anything. Returns kGraded when the PNGs were
/// written, kUsageError for a folder without valid heat-map data, kCouldNotGrade when gnuplot
/// is missing or failed (the data files stay for a later --plot-only).
int render_heatmaps(const fs::path& dir) {
  HeatmapFolder data;
  try {
    (void)files_inside(dir);  // no link out of the folder (contained_paths.hpp), named before reading
    data = read_heatmap_folder(dir);
    write_file_atomically(dir / "heatmaps.gp", heatmap_gnuplot_script(data.mask_widths, data.device, data.quick));
  } catch (const std::exception& e) {
    fmt::print(stderr, "grader tune: {}\n", e.what());
    return kUsageError;
  }
  const fs::path gnuplot = find_gnuplot().value_or(fs::path());
  if (gnuplot.empty()) {
    fmt::print("heat maps: gnuplot is not installed here, so no PNG was drawn. The data and the script are in {}.\n"
               "  Install Debian's gnuplot-nox (apt-get install gnuplot-nox) and run: grader tune --plot-only {}\n",
               dir.string(), dir.string());
    return kCouldNotGrade;
  }
  const GnuplotRun r = run_gnuplot(gnuplot, dir, "heatmaps.gp", std::chrono::seconds(120));
  if (r.process.timed_out || r.process.signaled || r.process.exit_code != 0) {
    fmt::print(stderr, "heat maps: gnuplot failed ({}):\n{}\n", r.process.describe(), r.process.output);
    return kCouldNotGrade;
  }
  fmt::print("heat maps: gnuplot ({}) drew {} PNG files in {}\n", gnuplot.string(), r.drawn.size(), dir.string());
  return kGraded;
}

#if CONVLAB_TUNE_CUDA

/// The kernel a run tunes: --kernel FILE, --solutions (the reference), else the student's
/// (the labs folder this build's lab07 was built from). @throws std::runtime_error if unreadable.
KernelSource chosen_kernel(const TuneOptions& o) {
  if (!o.kernel.empty()) return read_kernel_source(o.kernel, "file");
  const bool solutions = o.solutions;
  fs::path root = solutions ? fs::path(CONVLAB_SOLUTIONS_DIR) : fs::path(CONVLAB_LABS_DIR);
  if (root.empty() || std::getenv("CONVLAB_HOME") != nullptr) root = source_dir() / (solutions ? "solutions" : "labs");
  return read_kernel_source(root / "07-register-tiling" / kKernelFileName, solutions ? "solutions" : "labs");
}

/// Runs the tuner as the options say; returns the command's exit code.
int run_tuner(const TuneOptions& o) {
  TunerOptions t;
  t.masks = o.masks;
  t.size = o.size;
  t.quick = o.quick;
  t.repeats = o.repeats;
  t.jobs = o.jobs;
  t.arch = o.arch;
  t.kernel = chosen_kernel(o);
  t.bin_dir = bin_dir();
  t.out = o.out;
  t.tuning = o.tuning;
  if (t.tuning.empty()) {
    if (const char* env = std::getenv(kTuningEnv); env != nullptr && *env != '\0') t.tuning = env;
  }
  t.cache = cache_dir(bin_dir().parent_path() / "tuning" / "cache");
  if (t.kernel.origin != "solutions") {
    // A student's kernel with steps 2–4 unwritten compiles but computes nothing (and its
    // registers and spills, --compile-only, are those of empty functions): say which.
    std::string missing;
    for (const int s : unwritten_steps(t.kernel.text)) {
      if (s >= 2 && s <= 4) missing += (missing.empty() ? "" : ", ") + std::to_string(s);
    }
    if (!missing.empty()) {
      fmt::print(stderr, "grader tune: {} still has steps {} unwritten (kStepNWritten = false): the tuner sweeps "
                         "the kernel of steps 2–4; finish them first, or tune the reference with --solutions\n",
                 t.kernel.path.string(), missing);
      return kCouldNotGrade;
    }
  }
  Tuner tuner(t);
  if (o.compile_only) return tuner.compile_only().ok ? kGraded : kCouldNotGrade;
  if (o.warm_cache) return tuner.warm_cache().ok ? kGraded : kCouldNotGrade;
  if (o.bench) return tuner.bench().ok ? kGraded : kCouldNotGrade;
  const TunerResult r = tuner.sweep();
  if (r.ok && o.plot) render_heatmaps(r.report_dir);
  return r.ok ? kGraded : kCouldNotGrade;
}

#endif  // CONVLAB_TUNE_CUDA

}  // namespace

void add_tune_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "tune", "lab 07's autotuner: sweep your register-tiled kernel (labs/07-register-tiling/register_tiling_kernel.cuh) "
              "on this GPU, write its tuning file (read by lab07), heat maps and tables (--solutions: the reference "
              "kernel, read by solution07; --bench: time the configurations in use; --plot-only DIR: draw heat maps)");
  auto o = std::make_shared<TuneOptions>();
  cmd->add_option("--masks", o->masks, "mask widths, e.g. 3,5,17 (default: all of 2..7 and odd 9..17)");
  cmd->add_option("--size", o->size, "side of the square timing image")->check(CLI::Range(64, 32768));
  cmd->add_option("--out", o->out, "report folder (default: build/tuning/lab07-<gpu>/, with --solutions "
                                   "build/tuning/solution07-<gpu>/)");
  cmd->add_option("--tuning", o->tuning, "tuning file to write, or with --bench to read (default: "
                                         "$CONVLAB_LAB07_TUNING, else build/tuning/lab07-<gpu>.json, with --solutions "
                                         "solution07-<gpu>.json)");
  cmd->add_flag("--quick", o->quick, "a small sweep (a first look, tests)");
  cmd->add_flag("--bench", o->bench, "no sweep: time the configurations in use against the targets of labs/07-register-tiling/README.md");
  cmd->add_option("--plot-only", o->plot_only, "only draw the heat maps of a report folder with gnuplot (its heatmaps.gp is written anew from its "
                  "heatmap_kNN.dat, which are checked first; a script found there is never run)");
  cmd->add_flag("--compile-only", o->compile_only, "only compile the heat-map sweep and report registers and spills (no GPU)");
  cmd->add_flag("--warm-cache", o->warm_cache,
                "only compile, on all cores, every kernel the lab's variants will use (tuning file or defaults)");
  // Checked here, where the other options are: once read with stoi, "sm_90" was an exception's
  // text, "90a" silently sm_90, "-5" sm_0-5, and 99999 compiled 81 kernels that all failed.
  cmd->add_option("--arch", o->arch, "with --compile-only: the target, 50 to 129 (e.g. 90 or sm_90 for sm_90)")
      ->check(CLI::Validator(
          [](std::string& arch) -> std::string {
            if (arch.rfind("sm_", 0) == 0) arch = arch.substr(3);
            const bool digits = arch.size() >= 2 && arch.size() <= 3 &&
                                arch.find_first_not_of("0123456789") == std::string::npos && arch[0] != '0';
            if (!digits || std::stoi(arch) < 50 || std::stoi(arch) > 129) {
              return "a compute capability from 50 to 129 without its suffix, e.g. 90 or sm_90 (not '" + arch + "')";
            }
            return "";
          },
          "ARCH"));
  cmd->add_option("--jobs", o->jobs, "compile threads (default: all hardware threads)")->check(CLI::Range(1, 1024));
  auto* solutions = cmd->add_flag("--solutions", o->solutions,
                                  "tune the reference kernel (solutions/07-register-tiling/) instead of yours");
  cmd->add_option("--kernel", o->kernel, "tune this kernel file, a copy of register_tiling_kernel.cuh (default: "
                                         "labs/07-register-tiling/register_tiling_kernel.cuh, yours)")
      ->excludes(solutions);
  cmd->add_flag("!--no-plot", o->plot, "do not run gnuplot after a sweep");
  cmd->add_option("--repeats", o->repeats, "timed runs per configuration in the sweep")->check(CLI::Range(1, 1000));
  // The modes exclude each other, --plot-only every other option (it would ignore them), and
  // --arch is --compile-only's.
  CLI::Option* plot_only = cmd->get_option("--plot-only");
  for (CLI::Option* other : cmd->get_options()) {
    if (other != plot_only && other->get_name() != "--help" && !other->get_name().empty()) plot_only->excludes(other);
  }
  for (const char* a : {"--bench", "--compile-only", "--warm-cache"}) {
    for (const char* b : {"--bench", "--compile-only", "--warm-cache"}) {
      if (std::string(a) < b) cmd->get_option(a)->excludes(cmd->get_option(b));
    }
  }
  cmd->get_option("--arch")->needs(cmd->get_option("--compile-only"));
  cmd->callback([o, &exit_code] {
    if (!o->plot_only.empty()) {
      exit_code = render_heatmaps(o->plot_only);
      return;
    }
    try {
      (void)parse_mask_list(o->masks);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--masks", e.what());
    }
    // Where the sweep's results go, checked before minutes of sweeping.
    try {
      if (!o->out.empty() && !o->bench && !o->compile_only && !o->warm_cache) check_writable_folder(o->out);
      if (!o->tuning.empty() && !o->bench && !o->compile_only && !o->warm_cache) {
        const fs::path t(o->tuning);
        if (t.has_parent_path()) check_writable_folder(t.parent_path());
        check_writable(t);
      }
    } catch (const std::runtime_error& e) {
      fmt::print(stderr, "grader tune: {}\n", e.what());
      exit_code = kUsageError;
      return;
    }
#if CONVLAB_TUNE_CUDA
    // No GPU, an unreadable kernel source or tuning file: "could not", not a usage error.
    try {
      exit_code = run_tuner(*o);
    } catch (const std::exception& e) {
      fmt::print(stderr, "grader tune: {}\n", e.what());
      exit_code = kCouldNotGrade;
    }
#else
    fmt::print(stderr, "grader tune: this grader was built without CUDA (the CPU-only configuration); only "
                       "--plot-only works here\n");
    exit_code = kCouldNotGrade;
#endif
  });
}

}  // namespace convlab::grader
