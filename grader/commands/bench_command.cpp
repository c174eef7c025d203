// `grader bench`: the project's evidence that its solutions are fast, on the GPU that runs it.
//
//   grader bench                      everything (a few minutes): conv2d at 4096², 8192², 9216²
//                                     for K 2–7 and odd 9–17, the conv layers, the block-size sweep
//   grader bench --quick              a smoke run: 4096², K 3, 7 and 17; the sweep at 4096², K 3
//   grader bench --only conv2d        one part (conv2d, layers, sweep; repeatable)
//   grader bench --only layers --layer-values wide
//                                     the layers on values where transforms break the FP32 rule
//   grader bench --plot-only DIR      redraw DIR's tables and pictures from DIR/bench.json (no GPU)
//
// Each part is its own program (grader/bench/: conv2d_bench, conv_layer_bench, naive_block_sweep) and
// runs as a child process with a deadline, so a crash or a hang costs that part only. The sweep
// runs twice: timed with CUDA events, then once per launch under Nsight Compute for occupancy,
// DRAM throughput and registers. Results go to DIR (default build/benchmarks/<gpu>/): bench.json
// (everything, with the GPU's name, clocks and the ceilings measured in the run), bench.md (every
// table), summary.md (the table the README includes), the gnuplot data and bench.gp, the PNGs
// when gnuplot is installed, and logs/ with each program's output.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "reports/bench_report.hpp"
#include "reports/bench_file.hpp"
#include "commands/commands.hpp"
#include "convlab/json_file.hpp"
#include "convlab/atomic_file.hpp"
#include "convlab/contained_paths.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/limits.hpp"
#include "convlab/device_info.hpp"
#include "convlab/lab_registry.hpp"
#include "convlab/mask_widths.hpp"
#include "system/gnuplot_run.hpp"
#include "system/gpu_clocks.hpp"
#include "system/subprocess.hpp"
#include "system/tool_paths.hpp"

namespace convlab::grader {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct BenchOptions {
  std::string out;
  std::vector<int> sizes{4096, 8192, 9216};
  std::string masks = kRegisterTilingMaskWidths.to_string();
  std::vector<std::string> only;
  int sweep_size = 8192;
  std::string sweep_masks = "3,7";
  bool quick = false;
  bool no_ncu = false;
  std::string layer_values = "uniform";  ///< conv_layer_bench --values
  int timeout_s = 1800;
  std::string plot_only;
};

std::string join(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

json read_json(const fs::path& p) { return parse_json(read_file(p, kMaxTextFileBytes), p.string()); }

// Runs one benchmark program; its output goes to logs/NAME.log. @returns "" or why it failed.
std::string run_part(const std::string& name, const std::vector<std::string>& argv, const fs::path& dir,
                     int timeout_s, bool nonzero_ok) {
  fmt::print("bench: running {} (log: {})\n", name, (dir / "logs" / (name + ".log")).string());
  std::fflush(stdout);
  const ProcessResult r = run_process(argv, std::chrono::seconds(timeout_s));
  write_file_atomically(dir / "logs" / (name + ".log"), r.output);
  if (r.spawn_failed) return fmt::format("{} could not be started", argv.front());
  if (r.timed_out || r.signaled || (r.exit_code != 0 && !(nonzero_ok && r.exit_code == 1))) {
    return fmt::format("{} ended with {}: {}", name, r.describe(), last_lines(r.output, 6));
  }
  fmt::print("bench: {} done in {:.0f} s ({})\n", name, r.seconds, r.describe());
  return "";
}

// Tables and pictures from bench.json in dir.
int render(const json& bench, const fs::path& dir) {
  write_file_atomically(dir / "bench.md", bench_markdown(bench));
  if (bench.contains("conv2d") && bench["conv2d"].contains("results")) {
    write_file_atomically(dir / "summary.md", bench_summary_markdown(bench));
  }
  const std::vector<std::string> pngs = write_plot_files(bench, dir);
  fmt::print("bench: wrote {}, {} and the gnuplot data and script (bench.gp)\n", (dir / "bench.md").string(),
             (dir / "summary.md").string());
  const auto gnuplot = find_gnuplot();
  if (!gnuplot) {
    fmt::print("bench: gnuplot is not installed here, so no PNG was drawn. Install Debian's gnuplot-nox and run:\n"
               "  grader bench --plot-only {}\n",
               dir.string());
    return kGraded;
  }
  const GnuplotRun r = run_gnuplot(*gnuplot, dir, "bench.gp", std::chrono::seconds(300));
  if (r.process.exit_code != 0 || r.process.timed_out || r.process.signaled) {
    fmt::print(stderr, "bench: gnuplot failed ({}):\n{}\n", r.process.describe(), r.process.output);
    return kCouldNotGrade;
  }
  std::size_t drawn = 0;
  for (const auto& p : pngs) drawn += std::count(r.drawn.begin(), r.drawn.end(), p);
  fmt::print("bench: gnuplot drew {} of {} pictures in {}\n", drawn, pngs.size(), dir.string());
  return drawn == pngs.size() ? kGraded : kCouldNotGrade;
}

int plot_only(const fs::path& dir) {
  try {
    // Another machine's folder is input: its bench.json is checked before anything is drawn.
    return render(read_bench_file(resolve_inside(dir, dir / "bench.json")), given_folder(dir, "--plot-only"));
  } catch (const std::exception& e) {
    fmt::print(stderr, "grader bench --plot-only: {}\n", e.what());
    return kUsageError;
  }
}

// The parts of a bench run, each running its program into `dir` and filling its entry of
// `bench`. @returns false when the part could not be measured (the entry then holds "error").

bool conv2d_part(const BenchOptions& o, const MaskWidths& masks, const fs::path& dir, json& bench) {
  const fs::path bin = bin_dir();
  ClockSampler clocks;
  const std::string err =
      run_part("conv2d_bench",
               {(bin / "conv2d_bench").string(), "--sizes", join(o.sizes), "--masks", masks.to_string(), "--json",
                (dir / "conv2d.json").string()},
               dir, o.timeout_s, true);
  if (!bench["clocks"].contains("unavailable")) bench["clocks"]["during_conv2d"] = clocks.stop();
  if (!err.empty() && !fs::exists(dir / "conv2d.json")) {
    bench["conv2d"] = {{"error", err}};
    fmt::print(stderr, "bench: {}\n", err);
    return false;
  }
  json c = read_json(dir / "conv2d.json");
  bench["ceilings"] = c["ceilings"];
  bench["device"] = c["device"];
  add_peer_ratios(c["results"]);
  bench["conv2d"] = {{"protocol", c["protocol"]}, {"missing_peers", c["missing_peers"]}, {"results", c["results"]}};
  if (!err.empty()) fmt::print(stderr, "bench: {}\n", err);
  return true;
}

bool layers_part(const BenchOptions& o, const fs::path& dir, json& bench) {
  std::vector<std::string> argv{(bin_dir() / "conv_layer_bench").string(), "--json", (dir / "layers.json").string()};
  if (o.quick) argv.push_back("--no-plans");
  argv.insert(argv.end(), {"--values", o.layer_values});
  const std::string err = run_part("conv_layer_bench", argv, dir, o.timeout_s, true);
  if (!err.empty()) fmt::print(stderr, "bench: {}\n", err);
  if (!fs::exists(dir / "layers.json")) {
    bench["layers"] = {{"error", err}};
    return false;
  }
  bench["layers"] = read_json(dir / "layers.json");
  return true;
}

/// The sweep's Nsight Compute pass: its CSV and launch plan, or why there are none.
struct SweepProfile {
  std::string failure;  ///< empty: measured
  std::string csv;
  json plan;
};

SweepProfile profile_sweep(const BenchOptions& o, const std::vector<std::string>& args, const fs::path& dir) {
  SweepProfile out;
  const auto ncu = o.no_ncu ? std::nullopt : find_tool("ncu");
  if (o.no_ncu) {
    out.failure = "not asked for (--no-ncu)";
    return out;
  }
  if (!ncu) {
    out.failure = "Nsight Compute (ncu) not found on PATH or in the CUDA toolkit";
    return out;
  }
  std::string metrics;
  for (const auto& m : sweep_metrics()) metrics += (metrics.empty() ? "" : ",") + m;
  const fs::path log = dir / "logs" / "sweep_ncu.csv";
  std::vector<std::string> nargv{ncu->string(), "--csv", "--print-units", "base", "--clock-control", "none",
                                 "-k", "regex:naive_both_restrict", "--metrics", metrics,
                                 "--log-file", log.string(), (bin_dir() / "naive_block_sweep").string()};
  nargv.insert(nargv.end(), args.begin(), args.end());
  nargv.insert(nargv.end(), {"--once", "--json", (dir / "sweep_plan.json").string()});
  fmt::print("bench: profiling the sweep with {}\n", ncu->string());
  std::fflush(stdout);
  const ProcessResult r = run_process(nargv, std::chrono::seconds(o.timeout_s));
  write_file_atomically(dir / "logs" / "sweep_ncu_console.log", r.output);
  if (r.output.find("ERR_NVGPUCTRPERM") != std::string::npos) {
    out.failure = "ERR_NVGPUCTRPERM: this user may not read the GPU's performance counters";
  } else if (r.exit_code != 0 || r.timed_out || r.signaled || !fs::exists(log) || !fs::exists(dir / "sweep_plan.json")) {
    out.failure = fmt::format("ncu {}: {}", r.describe(), last_lines(r.output, 4));
  } else {
    out.csv = read_file(log, kMaxTextFileBytes);
    out.plan = read_json(dir / "sweep_plan.json");
  }
  return out;
}

bool sweep_part(const BenchOptions& o, const MaskWidths& sweep_masks, const fs::path& dir, json& bench) {
  const std::vector<std::string> args{"--size", std::to_string(o.sweep_size), "--masks", sweep_masks.to_string()};
  std::vector<std::string> argv{(bin_dir() / "naive_block_sweep").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--json", (dir / "sweep_timed.json").string()});
  const std::string err = run_part("naive_block_sweep", argv, dir, o.timeout_s, true);
  if (!fs::exists(dir / "sweep_timed.json")) {
    bench["sweep"] = {{"error", err}};
    return false;
  }
  const SweepProfile p = profile_sweep(o, args, dir);
  const json timed = read_json(dir / "sweep_timed.json");
  bench["sweep"] = {{"size", o.sweep_size},
                    {"kernel", timed.value("kernel", "")},
                    {"rows", join_sweep(timed, p.plan, p.csv, p.failure)},
                    {"ncu", p.failure.empty() ? json{{"status", "measured with Nsight Compute, --clock-control none"}}
                                              : json{{"status", "unavailable"}, {"unavailable", p.failure}}}};
  if (!p.failure.empty()) fmt::print(stderr, "bench: sweep without Nsight Compute: {}\n", p.failure);
  return true;
}

int run_bench(BenchOptions o) {
  if (!o.plot_only.empty()) return plot_only(o.plot_only);
  if (o.quick) {
    o.masks = "3,7,17";
    o.sweep_masks = "3";
  }
  MaskWidths masks, sweep_masks;
  try {
    masks = MaskWidths::parse(o.masks, kRegisterTilingMaskWidths, "the benchmark (lab 07's widths)");
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "grader bench: --masks: {}\n", e.what());
    return kUsageError;
  }
  try {
    sweep_masks = MaskWidths::parse(o.sweep_masks, labs::find_lab(1)->mask_widths, "the naive kernel (lab 01)");
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "grader bench: --sweep-masks: {}\n", e.what());
    return kUsageError;
  }
  const std::set<std::string> parts = o.only.empty() ? std::set<std::string>{"conv2d", "layers", "sweep"}
                                                     : std::set<std::string>(o.only.begin(), o.only.end());
  if (o.quick) {
    o.sizes = {4096};
    o.sweep_size = 4096;
  }
  if (!o.out.empty()) {
    // Checked before the benchmarks' long minutes: results that cannot be written are lost.
    try {
      check_writable_folder(o.out);
    } catch (const std::runtime_error& e) {
      fmt::print(stderr, "grader bench: --out: {}\n", e.what());
      return kUsageError;
    }
  }
  std::string why;
  const auto device = query_device(&why);
  if (!device) {
    fmt::print(stderr, "grader bench: cannot benchmark: {}\n", why);
    return kCouldNotGrade;
  }
  const fs::path dir = o.out.empty() ? bin_dir().parent_path() / "benchmarks" / device_slug(device->name) : fs::path(o.out);
  fs::create_directories(dir / "logs");
  const fs::path bin = bin_dir();
  for (const char* exe : {"conv2d_bench", "conv_layer_bench", "naive_block_sweep"}) {
    if (!fs::exists(bin / exe)) {
      fmt::print(stderr, "grader bench: {} is missing (build the `{}` target: cmake --build --preset gpu)\n",
                 (bin / exe).string(), exe);
      return kCouldNotGrade;
    }
  }
  fmt::print("bench on {}: results in {}\n", device->describe(), dir.string());
  json bench = {{"format", "convlab-bench"}, {"version", 1}, {"date", today_utc()}, {"clocks", nvidia_smi_clocks()}};
  bench["device"] = {{"name", device->name},
                     {"compute_capability", fmt::format("{}.{}", device->cc_major, device->cc_minor)},
                     {"sms", device->sm_count},
                     {"driver", device->driver},
                     {"runtime", device->runtime}};
  int failures = 0;

  if (parts.count("conv2d")) failures += conv2d_part(o, masks, dir, bench) ? 0 : 1;
  if (parts.count("layers")) failures += layers_part(o, dir, bench) ? 0 : 1;
  if (parts.count("sweep")) failures += sweep_part(o, sweep_masks, dir, bench) ? 0 : 1;
  if (!bench.contains("ceilings")) {
    bench["ceilings"] = {{"copy_bytes_per_s", 0}, {"fma_flops_per_s", 0}};
  }
  write_file_atomically(dir / "bench.json", bench.dump(1) + "\n");
  const int drawn = render(bench, dir);
  if (bench.contains("conv2d") && bench["conv2d"].contains("results")) {
    fmt::print("\n{}", bench_summary_markdown(bench));
    const auto misses = lab07_goal_misses(bench);
    fmt::print("\nlab 07 goal (≥ 2× the fastest peer for K ≤ 7, never slower): {}\n",
               misses.empty() ? "met in every measured case" : fmt::format("missed in {} cases:", misses.size()));
    for (const auto& m : misses) fmt::print("  {}\n", m);
  }
  if (failures) {
    fmt::print(stderr, "bench: {} part{} could not be measured (see bench.md and logs/)\n", failures,
               failures == 1 ? "" : "s");
    return kCouldNotGrade;
  }
  return drawn;
}

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "bench",
      "Benchmark every lab solution against NPP, cuDNN, cuFFT and CuPy on the roofline measured in the same run, lab 06 "
      "against cuDNN and cuBLAS (FP32 and TF32), and the naive kernel's block-size sweep (Nsight Compute); writes "
      "JSON, Markdown tables and gnuplot pictures");
  std::vector<CLI::Option*> run_options;  // a run's, which --plot-only would ignore: refused with it
  run_options.push_back(cmd->add_option("--out", o->out, "results folder (default: build/benchmarks/<gpu>/)"));
  run_options.push_back(cmd->add_option("--sizes", o->sizes, "square image sizes (default 4096,8192,9216)")->delimiter(',')
      ->check(CLI::Range(1, 32768)));
  run_options.push_back(cmd->add_option("--masks", o->masks, "mask widths, e.g. 3,7,17 (default 2..7 and odd 9..17)"));
  run_options.push_back(cmd->add_option("--only", o->only, "run only these parts (conv2d, layers, sweep; repeatable)")
                            ->check(CLI::IsMember({"conv2d", "layers", "sweep"})));
  run_options.push_back(cmd->add_option("--sweep-size", o->sweep_size, "image size of the block-size sweep (default 8192)")
                            ->check(CLI::Range(64, 32768)));
  run_options.push_back(cmd->add_option("--sweep-masks", o->sweep_masks, "odd mask widths of the sweep (default 3,7)"));
  run_options.push_back(
      cmd->add_flag("--quick", o->quick, "a smoke run: 4096² with K 3, 7, 17; the sweep at 4096² with K 3"));
  run_options.push_back(cmd->add_flag("--no-ncu", o->no_ncu, "skip Nsight Compute in the sweep (time only)"));
  run_options.push_back(cmd->add_option("--layer-values", o->layer_values,
                                        "the conv layers' values: uniform (in [-1, 1), default) or wide (large ones "
                                        "in every 4th input column and each filter's left tap column, where a "
                                        "Winograd or FFT transform breaks the FP32 rule)")
                            ->check(CLI::IsMember({"uniform", "wide"})));
  run_options.push_back(cmd->add_option("--timeout", o->timeout_s, "seconds each benchmark program may run (default 1800)")
                            ->check(CLI::Range(10, 86400)));
  CLI::Option* plot_only =
      cmd->add_option("--plot-only", o->plot_only, "redraw the tables and pictures of a results folder from its bench.json");
  for (CLI::Option* run : run_options) plot_only->excludes(run);
  cmd->callback([o, &exit_code] { exit_code = run_bench(*o); });
}

}  // namespace convlab::grader
