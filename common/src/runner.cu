// The lab runner: load a case, run a lab function on device-resident data, check, time, report.
//
// One run of one variant on one case:
//   1. inputs uploaded into guarded buffers; output filled with the NaN poison;
//   2. the lab function runs once; errors are caught (a sticky one ends the process: the CUDA
//      context is gone, and the grader runs each lab in a child process for this reason);
//   3. guard bands and inputs are checked for stray writes; the output is compared with the
//      reference under the tolerance rule;
//   4. if it passed, it is timed: every call on fresh inputs into a poisoned output, L2 flushed,
//      timed by events and by the wall clock to an idle device (timed_calls.cuh); under
//      --witness the grader opens and closes the window and checks samples of every timed
//      output (witness_protocol.hpp); if it failed and --error-map DIR was given, its error map
//      is drawn (error_map.hpp).
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <iostream>
#include <optional>
#include <random>
#include <vector>

#include "convlab/atomic_file.hpp"
#include "convlab/compare.hpp"
#include "convlab/dataset.hpp"
#include "convlab/device_buffer.cuh"
#include "convlab/device_info.hpp"
#include "convlab/error_map.hpp"
#include "convlab/event_timer.cuh"
#include "convlab/lab_api.cuh"
#include "convlab/npy.hpp"
#include "convlab/run_reasons.hpp"
#include "convlab/runner.hpp"
#include "convlab/timed_calls.cuh"
#include "convlab/witness_protocol.hpp"

namespace convlab {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The runner's files (outputs, the samples of timed calls, the --json report) are read back by
// whoever ran it, in one go: whole when read (renamed into place), never fsync'ed, since an
// fsync waits on every write the machine has pending, and the samples are written inside the
// grader's witness window (atomic_file.hpp, Durability).
constexpr Durability kRunFiles = Durability::scratch;

struct Options {
  std::vector<std::string> paths;
  std::vector<std::string> variants;
  std::string json_path;
  std::string output_dir;
  std::string error_map_dir;
  bool check = true;
  bool time = true;
  bool list = false;
  bool quiet = false;
  int warmup = 3;
  int repeats = 20;
  int timeout_s = 60;
  std::optional<std::uint64_t> timing_seed;  // the inputs of timed calls; random when not given
  bool witness = false;                      // the grader's dialog around each timed phase
};

// What the SIGALRM handler prints; filled before each run (async-signal-safe: only write()).
char g_timeout_message[512] = "TIMEOUT\n";

extern "C" void on_alarm(int) {
  ssize_t ignored = write(STDOUT_FILENO, g_timeout_message, std::strlen(g_timeout_message));
  (void)ignored;
  _exit(kExitTimeout);
}

void arm_timeout(int seconds, const std::string& what) {
  const std::string msg = fmt::format("TIMEOUT {}: did not finish within {} s (a hang? an endless loop?)\n", what, seconds);
  std::snprintf(g_timeout_message, sizeof g_timeout_message, "%s", msg.c_str());
  alarm(static_cast<unsigned>(seconds));
}

enum class Status { pass, fail, skip, error, unchecked };

const char* status_word(Status s) {
  switch (s) {
    case Status::pass: return "PASS";
    case Status::fail: return "FAIL";
    case Status::skip: return "SKIP";
    case Status::error: return "ERROR";
    case Status::unchecked: return "RAN";
  }
  return "?";
}

struct Result {
  std::string case_id;
  std::string variant;
  std::string shape;
  Status status = Status::fail;
  std::string message;      // one line
  std::vector<std::string> reasons;  // run_reasons.hpp tags of what this run did wrong
  std::string details;      // first mismatches, several lines
  std::optional<TimingStats> timing;       // per call, CUDA events: the time students see
  std::optional<TimingStats> wall_timing;  // per call, host clock to an idle device
  int warmup = 0;
  std::uint64_t timing_seed = 0;
  std::string samples_file;                // --witness: samples of every timed output
  double bytes = 0;         // one read of the inputs, one write of the output
  double flops = 0;         // 2 per multiply-add
  std::string output_file;
  std::vector<std::ptrdiff_t> output_guard_hits;  // offsets of changed guard elements of the output
  std::string error_map_file;
};

Result failed_result(std::string case_id, std::string variant, std::string shape, Status status,
                     std::string message, std::vector<std::string> reasons = {}) {
  Result r;
  r.case_id = std::move(case_id);
  r.variant = std::move(variant);
  r.shape = std::move(shape);
  r.status = status;
  r.message = std::move(message);
  r.reasons = std::move(reasons);
  return r;
}

// The tag of a CUDA error: an illegal address has its own (the usual out-of-bounds read).
std::vector<std::string> cuda_error_reasons(const CudaError& e) {
  return {e.code() == cudaErrorIllegalAddress ? reason::kIllegalAddress : reason::kCudaError};
}

// What the memory checks of one run found: the message text and its tags.
struct MemoryProblems {
  std::string text;                  // empty when the run was clean
  std::vector<std::string> reasons;  // kOutOfBoundsWrite, kWroteInput

  void add(const std::string& problem, const char* tag) {
    text += (text.empty() ? "" : "; ") + problem;
    if (std::find(reasons.begin(), reasons.end(), tag) == reasons.end()) reasons.emplace_back(tag);
  }
};

// Everything a run needs that does not depend on the problem: buffers to check and a
// callback that downloads the output.
struct RunContext {
  std::string lab_id;
  Options opt;
  std::optional<Ceilings> ceilings;
  DeviceInfo device;
};

// Runs `launch` once and checks everything but the values. Returns nothing when the run was
// clean, else what it did wrong. Rethrows sticky CUDA errors. The output buffer is the last of
// `buffers`; its changed guard offsets go to `output_guard_hits` (for the error map).
template <class Launch>
MemoryProblems run_once_and_check_memory(Launch launch, const std::vector<std::pair<std::string, const DeviceBuffer<float>*>>& buffers,
                                      const std::vector<std::pair<std::string, std::pair<const DeviceBuffer<float>*, const Tensor<float>*>>>& inputs,
                                      std::vector<std::ptrdiff_t>& output_guard_hits) {
  reset_not_implemented();
  launch();
  CUDA_CHECK(cudaDeviceSynchronize());
  MemoryProblems problems;
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const auto& [name, buf] = buffers[i];
    GuardReport g = buf->check_guards();
    if (!g.clean()) problems.add(g.describe(name), reason::kOutOfBoundsWrite);
    if (i + 1 == buffers.size()) output_guard_hits = std::move(g.offsets);
  }
  for (const auto& [name, pair] : inputs) {
    const auto& [buf, host] = pair;
    std::vector<float> now(buf->size());
    buf->download(now.data());
    if (std::memcmp(now.data(), host->data(), buf->bytes()) != 0) {
      problems.add(fmt::format("the lab wrote into its input {}", name), reason::kWroteInput);
    }
  }
  return problems;
}

void finish_with_values(Result& r, const RunContext& ctx, const Tensor<float>& got,
                        const std::optional<Tensor<double>>& expected,
                        const std::function<Tensor<double>()>& abs_sum, std::size_t terms, Tolerance tol,
                        const MemoryProblems& memory) {
  std::string ni_what;
  const bool not_impl = lab_reported_not_implemented(&ni_what);
  const std::string& memory_problems = memory.text;
  if (not_impl) r.reasons.emplace_back(reason::kNotImplemented);
  r.reasons.insert(r.reasons.end(), memory.reasons.begin(), memory.reasons.end());
  if (!ctx.opt.check || !expected) {
    // Unchecked (the grader's children run this way and compare the output themselves), but a
    // stub still says so, and stray writes are still reported.
    r.status = memory_problems.empty() && !not_impl ? Status::unchecked : Status::fail;
    r.message = memory_problems.empty() ? "not checked (no expected output)" : memory_problems;
    if (not_impl) {
      r.message = fmt::format("not implemented ({})", ni_what);
      if (!memory_problems.empty()) r.message += "; " + memory_problems;
    }
    return;
  }
  const CompareResult cmp = compare_outputs(got, *expected, abs_sum(), terms, tol);
  if (not_impl) {
    r.status = Status::fail;
    r.message = fmt::format("not implemented ({}); {}", ni_what, cmp.summary());
    return;
  }
  const std::vector<std::string> compared = reason::of_comparison(cmp);  // a stub's are no news
  r.reasons.insert(r.reasons.end(), compared.begin(), compared.end());
  if (!memory_problems.empty()) {
    r.status = Status::fail;
    r.message = memory_problems + (cmp.ok() ? "" : "; " + cmp.summary());
    r.details = cmp.details();
    return;
  }
  r.status = cmp.ok() ? Status::pass : Status::fail;
  r.message = cmp.summary();
  r.details = cmp.details();
}

// A failing, checked run that is not a stub gets its error map (a stub's would be all unwritten).
void draw_error_map_if_failed(Result& r, const RunContext& ctx, const std::string& case_name, int mask_width,
                              const Tensor<float>& got, const std::optional<Tensor<double>>& expected,
                              const std::function<Tensor<double>()>& abs_sum, std::size_t terms, Tolerance tol) {
  if (ctx.opt.error_map_dir.empty() || r.status != Status::fail || !expected || !ctx.opt.check) return;
  if (lab_reported_not_implemented(nullptr)) return;
  try {
    const ErrorMapRun run{ctx.lab_id, r.variant, case_name, r.case_id, mask_width};
    r.error_map_file = write_error_map(ctx.opt.error_map_dir, run, got, *expected, abs_sum(), terms, tol,
                                       r.output_guard_hits).string();
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: no error map for {} {}: {}\n", ctx.lab_id, r.variant, r.case_id, e.what());
  }
}

// The seed of a phase's inputs: the grader's (--witness: sent when it opens the window),
// --timing-seed, or a fresh random one.
std::uint64_t phase_seed(const RunContext& ctx) {
  if (ctx.opt.timing_seed) return *ctx.opt.timing_seed;
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

// One line of the witness dialog from the grader: "WORD NUMBER".
std::uint64_t read_witness_reply(const char* word) {
  std::string line;
  if (!std::getline(std::cin, line)) {
    throw std::runtime_error(fmt::format("--witness: the grader closed the dialog before '{}'", word));
  }
  const std::string prefix = std::string(word) + " ";
  if (line.rfind(prefix, 0) != 0) throw std::runtime_error(fmt::format("--witness: expected '{} N', got '{}'", word, line.substr(0, 80)));
  std::size_t used = 0;
  const std::uint64_t n = std::stoull(line.substr(prefix.size()), &used);
  if (prefix.size() + used != line.size()) throw std::runtime_error(fmt::format("--witness: a malformed '{}' line", word));
  return n;
}

void say_witness(const std::string& what) {
  fmt::print("{}{}\n", witness::kPrefix, what);
  std::fflush(stdout);
}

// Times a run that passed (or ran unchecked): a timed phase on fresh inputs (timed_calls.cuh);
// under --witness inside the grader's window, the samples of every timed output written beside
// the outputs.
void time_if_passed(Result& r, const RunContext& ctx, const std::string& case_name, TimedPhaseSetup setup) {
  if (!ctx.opt.time || (r.status != Status::pass && r.status != Status::unchecked)) return;
  setup.warmup = ctx.opt.warmup;
  setup.repeats = ctx.opt.repeats;
  setup.keep_outputs = ctx.opt.witness;
  FreshTimedPhase phase(std::move(setup));  // its buffers, before the grader's window opens
  std::uint64_t seed = 0;
  if (ctx.opt.witness) {
    say_witness(fmt::format("{} {} {}", witness::kReady, r.case_id, r.variant));
    seed = read_witness_reply(witness::kGo);
  } else {
    seed = phase_seed(ctx);
  }
  r.timing_seed = seed;
  const TimedPhase measured = phase.run(seed);
  r.timing = measured.event;
  r.wall_timing = measured.wall;
  r.warmup = measured.warmup;
  if (!ctx.opt.witness) return;
  say_witness(fmt::format("{} {}", witness::kComputed, measured.event.runs));
  const std::uint64_t nonce = read_witness_reply(witness::kSample);
  const std::vector<float> samples = phase.samples(nonce);
  Tensor<float> table({static_cast<std::size_t>(measured.event.runs), static_cast<std::size_t>(fresh::kSamplesPerCall)});
  std::copy(samples.begin(), samples.end(), table.data());
  const fs::path file = fs::path(ctx.opt.output_dir) / witness::samples_file_name(case_name, r.variant);
  write_npy(file, table, kRunFiles);  // inside the grader's window: no fsync to wait on
  r.samples_file = file.string();
  say_witness(witness::kDone);
}

void write_output(Result& r, const RunContext& ctx, const std::string& case_name, const Tensor<float>& got) {
  if (ctx.opt.output_dir.empty()) return;
  fs::create_directories(ctx.opt.output_dir);
  const fs::path file = fs::path(ctx.opt.output_dir) / fmt::format("{}__{}.npy", case_name, r.variant);
  write_npy(file, got, kRunFiles);
  r.output_file = file.string();
}

// A variant that runs on one GPU only (lab_registry.hpp: lab 08 step 5, Hopper's wgmma) is skipped
// on any other, as a mask width it does not take is: true, with `r` the skip, when this is not its GPU.
bool skip_on_this_gpu(Result& r, int compute_capability, const RunContext& ctx) {
  const int here = 10 * ctx.device.cc_major + ctx.device.cc_minor;
  if (compute_capability == 0 || compute_capability == here) return false;
  r.status = Status::skip;
  r.message = fmt::format("needs a GPU of compute capability {}.{}; this one is {}.{}", compute_capability / 10,
                          compute_capability % 10, ctx.device.cc_major, ctx.device.cc_minor);
  return true;
}

Result run_conv2d(const Conv2dCase& c, const Conv2dVariant& v, const RunContext& ctx) {
  Result r;
  r.case_id = c.info.id();
  r.variant = v.name;
  const Conv2dShape& s = c.info.conv2d;
  r.shape = s.describe();
  r.bytes = 8.0 * static_cast<double>(s.pixels());
  r.flops = 2.0 * static_cast<double>(s.terms_per_output()) * static_cast<double>(s.pixels());
  if (!v.masks.contains(s.mask_width)) {
    r.status = Status::skip;
    r.message = fmt::format("mask width {} not supported by this lab (supports {})", s.mask_width, v.masks.to_string());
    return r;
  }
  if (skip_on_this_gpu(r, v.compute_capability, ctx)) return r;
  DeviceBuffer<float> N(c.image.size());
  DeviceBuffer<float> M(c.mask.size());
  DeviceBuffer<float> P(s.pixels());
  N.upload(c.image.data());
  M.upload(c.mask.data());
  P.fill_bytes(0xFF);
  const Conv2dArgs args{N.data(), M.data(), P.data(), s.height, s.width, s.mask_width};
  auto launch = [&] { v.run(args); };
  auto launch_into = [&](float* out) { v.run({N.data(), M.data(), out, s.height, s.width, s.mask_width}); };
  const MemoryProblems mem = run_once_and_check_memory(launch, {{"N", &N}, {"M", &M}, {"P", &P}},
                                                    {{"N", {&N, &c.image}}, {"M", {&M, &c.mask}}}, r.output_guard_hits);
  Tensor<float> got({c.image.dim(0), c.image.dim(1)});
  P.download(got.data());
  write_output(r, ctx, c.info.name, got);
  const auto abs_sum = [&] { return conv2d_abs_sum(c.image, c.mask); };
  finish_with_values(r, ctx, got, c.expected, abs_sum, s.terms_per_output(), v.tolerance, mem);
  draw_error_map_if_failed(r, ctx, c.info.name, s.mask_width, got, c.expected, abs_sum, s.terms_per_output(),
                           v.tolerance);
  time_if_passed(r, ctx, c.info.name, {{{N.data(), N.size()}, {M.data(), M.size()}}, P.data(), P.size(), launch_into});
  return r;
}

Result run_layer(const ConvLayerCase& c, const ConvLayerVariant& v, const RunContext& ctx) {
  Result r;
  r.case_id = c.info.id();
  r.variant = v.name;
  const ConvLayerShape& s = c.info.layer;
  r.shape = s.describe();
  r.bytes = 4.0 * static_cast<double>(s.input_elements() + s.weight_elements() + s.output_elements());
  r.flops = 2.0 * static_cast<double>(s.terms_per_output()) * static_cast<double>(s.output_elements());
  if (s.mask_width > v.max_mask_width) {
    r.status = Status::skip;
    r.message = fmt::format("mask width {} above this lab's maximum {}", s.mask_width, v.max_mask_width);
    return r;
  }
  if (skip_on_this_gpu(r, v.compute_capability, ctx)) return r;
  DeviceBuffer<float> X(c.x.size());
  DeviceBuffer<float> W(c.w.size());
  DeviceBuffer<float> Y(s.output_elements());
  X.upload(c.x.data());
  W.upload(c.w.data());
  Y.fill_bytes(0xFF);
  const ConvLayerArgs args{X.data(), W.data(), Y.data(), s};
  auto launch = [&] { v.run(args); };
  auto launch_into = [&](float* out) { v.run({X.data(), W.data(), out, s}); };
  const MemoryProblems mem = run_once_and_check_memory(launch, {{"X", &X}, {"W", &W}, {"Y", &Y}},
                                                    {{"X", {&X, &c.x}}, {"W", {&W, &c.w}}}, r.output_guard_hits);
  auto z = [](int d) { return static_cast<std::size_t>(d); };
  Tensor<float> got({z(s.batch), z(s.filters), z(s.out_height()), z(s.out_width())});
  Y.download(got.data());
  write_output(r, ctx, c.info.name, got);
  const auto abs_sum = [&] { return conv_layer_abs_sum(c.x, c.w, c.params()); };
  finish_with_values(r, ctx, got, c.expected, abs_sum, s.terms_per_output(), v.tolerance, mem);
  draw_error_map_if_failed(r, ctx, c.info.name, s.mask_width, got, c.expected, abs_sum, s.terms_per_output(),
                           v.tolerance);
  time_if_passed(r, ctx, c.info.name, {{{X.data(), X.size()}, {W.data(), W.size()}}, Y.data(), Y.size(), launch_into});
  return r;
}

std::string perf_text(const Result& r, const RunContext& ctx) {
  if (!r.timing) return "";
  const double sec = r.timing->median_ms * 1e-3;
  std::string s = fmt::format("{:9.4f} ms {:8.1f} GB/s {:9.1f} GFLOP/s", r.timing->median_ms,
                              r.bytes / sec / 1e9, r.flops / sec / 1e9);
  if (ctx.ceilings) {
    s += fmt::format(" {:5.1f}% of roofline", 100.0 * roofline_seconds(r.bytes, r.flops, *ctx.ceilings) / sec);
  }
  return s;
}

void print_result(const Result& r, const std::string& lab_id, const RunContext& ctx) {
  std::string line = fmt::format("{:<5} {} {:<16} {:<38} {:<22}", status_word(r.status), lab_id, r.variant,
                                 r.case_id, r.shape);
  if (r.status == Status::pass || r.status == Status::unchecked) {
    line += perf_text(r, ctx);
    if (r.status == Status::unchecked) line += "  (" + r.message + ")";
  } else {
    line += r.message;
  }
  fmt::print("{}\n", line);
  if (!ctx.opt.quiet && !r.details.empty()) fmt::print("{}", r.details);
  if (!ctx.opt.quiet && !r.error_map_file.empty()) fmt::print("  error map: {}\n", r.error_map_file);
  std::fflush(stdout);
}

json result_json(const Result& r, const RunContext& ctx) {
  json j = {{"case", r.case_id}, {"variant", r.variant}, {"shape", r.shape},
            {"status", status_word(r.status)}, {"message", r.message}, {"reasons", r.reasons},
            {"bytes", r.bytes}, {"flops", r.flops}};
  if (!r.details.empty()) j["first_mismatches"] = r.details;
  if (!r.output_file.empty()) j["output_file"] = r.output_file;
  if (!r.output_guard_hits.empty()) j["output_guard_offsets"] = r.output_guard_hits;
  if (!r.error_map_file.empty()) j["error_map"] = r.error_map_file;
  if (r.timing) {
    const double sec = r.timing->median_ms * 1e-3;
    j["time_ms"] = {{"median", r.timing->median_ms}, {"min", r.timing->min_ms},
                    {"max", r.timing->max_ms}, {"runs", r.timing->runs}};
    j["effective_gb_per_s"] = r.bytes / sec / 1e9;
    j["gflop_per_s"] = r.flops / sec / 1e9;
    if (ctx.ceilings) j["roofline_fraction"] = roofline_seconds(r.bytes, r.flops, *ctx.ceilings) / sec;
  }
  if (r.timing && r.wall_timing) {
    j["timed_calls"] = {{"runs", r.timing->runs}, {"warmup", r.warmup}, {"seed", r.timing_seed},
                        {"event_median_ms", r.timing->median_ms}, {"wall_median_ms", r.wall_timing->median_ms}};
  }
  if (!r.samples_file.empty()) j["samples_file"] = r.samples_file;
  return j;
}

// `finished` is false while cases are still running: the report is rewritten (atomically) after
// every result, so that a grader that has to kill a hung run still reads every finished one.
// A JSON report to stdout ("-") or, atomically, to a file: a grader polling it never reads
// half of one.
// A write that fails (a full disk, a folder removed under the run) is said once, on stderr,
// and makes the exit code kExitUsage; the runs go on (their lines on stdout are still worth
// having). It never throws: an exception here would end the process in std::terminate.
bool g_json_failed = false;

void write_json(const std::string& path, const json& j) {
  if (path == "-") {
    fmt::print("{}\n", j.dump(2));
    return;
  }
  try {
    write_file_atomically(path, j.dump(2) + "\n", kRunFiles);
  } catch (const std::exception& e) {
    if (!g_json_failed) fmt::print(stderr, "--json: {}\n", e.what());
    g_json_failed = true;
  }
}

void write_json_report(const std::string& path, const LabDescription& lab, const RunContext& ctx,
                       const std::vector<Result>& results, bool finished = true) {
  if (path.empty() || (path == "-" && !finished)) return;
  json j;
  j["format"] = "convlab-run";
  j["version"] = 1;
  j["finished"] = finished;
  j["lab"] = lab.id;
  j["title"] = lab.title;
  j["device"] = {{"name", ctx.device.name},
                 {"compute_capability", fmt::format("{}.{}", ctx.device.cc_major, ctx.device.cc_minor)},
                 {"sms", ctx.device.sm_count}, {"driver", ctx.device.driver}, {"runtime", ctx.device.runtime}};
  if (ctx.ceilings) {
    j["ceilings"] = {{"copy_gb_per_s", ctx.ceilings->copy_bytes_per_s / 1e9},
                     {"fma_gflop_per_s", ctx.ceilings->fma_flops_per_s / 1e9}};
  }
  j["results"] = json::array();
  for (const Result& r : results) j["results"].push_back(result_json(r, ctx));
  write_json(path, j);
}

json tolerance_json(Tolerance t) { return {{"name", t.name}, {"unit_roundoff", t.unit_roundoff}}; }

// `--list --json FILE`: what each variant accepts and the tolerance it is checked with, for a
// grader that compares outputs itself ({"format": "convlab-lab-list", "version": 1}).
void write_list_json(const std::string& path, const LabDescription& lab) {
  if (path.empty()) return;
  json j = {{"format", "convlab-lab-list"}, {"version", 1}, {"lab", lab.id}, {"title", lab.title}};
  j["variants"] = json::array();
  // "compute_capability": "9.0" only for a variant that runs on that GPU alone.
  const auto gpu = [](json v, int cc) {
    if (cc != 0) v["compute_capability"] = fmt::format("{}.{}", cc / 10, cc % 10);
    return v;
  };
  for (const auto& v : lab.conv2d) {
    j["variants"].push_back(gpu({{"name", v.name}, {"problem", "conv2d"}, {"mask_widths", v.masks.widths()},
                                 {"tolerance", tolerance_json(v.tolerance)}, {"tensor_cores", v.tensor_cores}},
                                v.compute_capability));
  }
  for (const auto& v : lab.conv_layer) {
    j["variants"].push_back(gpu({{"name", v.name}, {"problem", "conv_layer"}, {"max_mask_width", v.max_mask_width},
                                 {"tolerance", tolerance_json(v.tolerance)}, {"tensor_cores", v.tensor_cores}},
                                v.compute_capability));
  }
  write_json(path, j);
}

// Phase 1: the command line. Returns an exit code when parsing ended the run (--help, a bad flag).
std::optional<int> parse_options(int argc, char** argv, const LabDescription& lab, Options& opt) {
  CLI::App app{fmt::format("{}: {}. Runs the lab on dataset cases, checks and times it.", lab.id, lab.title)};
  app.add_option("cases", opt.paths, "case folders, or folders holding cases (e.g. datasets/conv2d)");
  // One name per --variant: a list option would take the case folders after it as variant names.
  app.add_option("--variant", opt.variants, "run only this variant (repeatable); see --list")
      ->allow_extra_args(false);
  app.add_flag("--list", opt.list, "list the lab's variants and exit");
  app.add_option("--json", opt.json_path, "also write the results (with --list: the variants) as JSON to FILE ('-' for stdout)");
  app.add_option("--output", opt.output_dir, "write each output as DIR/<case>__<variant>.npy");
  app.add_option("--error-map", opt.error_map_dir,
                 "for each failing run, draw DIR/<lab>__<variant>__<case>.png: correct, wrong, not finite and "
                 "unwritten outputs and writes past the output buffer, over the image and the lab's tile grid");
  app.add_flag("!--no-check", opt.check, "do not compare with expected outputs");
  app.add_flag("!--no-time", opt.time, "do not time");
  app.add_flag("--quiet", opt.quiet, "no mismatch details");
  app.add_option("--warmup", opt.warmup, "untimed runs before timing")->check(CLI::Range(0, 1000));
  app.add_option("--repeats", opt.repeats, "timed runs (the median is reported)")->check(CLI::Range(1, 10000));
  app.add_option("--timeout", opt.timeout_s, "seconds per case before the runner gives up")->check(CLI::Range(1, 86400));
  app.add_option("--timing-seed", opt.timing_seed,
                 "seed of the fresh inputs of timed calls (default: a new one per run); the same seed, the same inputs");
  app.add_flag("--witness", opt.witness,
               "the grader's dialog on stdin/stdout around each timed phase (common/include/convlab/witness_protocol.hpp); "
               "needs --output, where the samples of every timed output go");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitAllPassed : kExitUsage;
  }
  return std::nullopt;
}

// Phase 2: what the options ask for is possible, checked before anything runs (results that
// cannot be written would be lost). Returns an exit code when it is not.
std::optional<int> check_request(const Options& opt, const LabDescription& lab, const char* program) {
  if (opt.witness && opt.output_dir.empty()) {
    fmt::print(stderr, "{}: --witness needs --output DIR (the samples of the timed outputs go there)\n", lab.id);
    return kExitUsage;
  }
  if (opt.witness && opt.repeats > fresh::kMaxKeptCalls) {
    fmt::print(stderr, "{}: --witness keeps every timed output: --repeats at most {}\n", lab.id, fresh::kMaxKeptCalls);
    return kExitUsage;
  }
  if (!opt.json_path.empty() && opt.json_path != "-") {
    try {
      check_writable(opt.json_path);
    } catch (const std::exception& e) {
      fmt::print(stderr, "{}: --json: {}\n", lab.id, e.what());
      return kExitUsage;
    }
  }
  if (opt.list) return std::nullopt;
  for (const std::string& name : opt.variants) {
    bool known = false;
    for (const auto& v : lab.conv2d) known |= v.name == name;
    for (const auto& v : lab.conv_layer) known |= v.name == name;
    if (!known) {
      std::string names;
      for (const auto& v : lab.conv2d) names += (names.empty() ? "" : ", ") + v.name;
      for (const auto& v : lab.conv_layer) names += (names.empty() ? "" : ", ") + v.name;
      std::error_code ec;
      const bool path_like = name.find('/') != std::string::npos || fs::exists(name, ec);
      fmt::print(stderr, "{}: --variant '{}': no such variant{}; the variants are: {}\n", lab.id, name,
                 path_like ? " (a case folder? --variant takes a name: --variant NAME CASE...)" : "", names);
      return kExitUsage;
    }
  }
  if (opt.paths.empty()) {
    // A lab of both problems (lab 08) takes the whole datasets folder: every case at any depth.
    fmt::print(stderr, "{}: name at least one case or dataset folder, e.g. {} datasets{}\n", lab.id, program,
               lab.conv2d.empty() ? "/conv_layer" : lab.conv_layer.empty() ? "/conv2d" : "");
    return kExitUsage;
  }
  if (!opt.error_map_dir.empty()) {
    std::error_code ec;
    fs::create_directories(opt.error_map_dir, ec);
    if (ec || !fs::is_directory(opt.error_map_dir)) {
      fmt::print(stderr, "{}: --error-map {}: cannot create the folder{}\n", lab.id, opt.error_map_dir,
                 ec ? ": " + ec.message() : "");
      return kExitUsage;
    }
  }
  return std::nullopt;
}

// Phase 3: the case folders under the paths given; unreadable sub-folders are reported, not fatal.
std::optional<std::vector<fs::path>> find_all_cases(const Options& opt, const LabDescription& lab) {
  std::vector<fs::path> cases;
  try {
    std::vector<std::string> skipped;
    for (const std::string& p : opt.paths) {
      for (const fs::path& c : find_cases(p, &skipped)) cases.push_back(c);
    }
    for (const std::string& why : skipped) fmt::print(stderr, "{}: warning: {}\n", lab.id, why);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: {}\n", lab.id, e.what());
    return std::nullopt;
  }
  return cases;
}

// Runs `run` for one variant under the case timeout; a CUDA error that is not sticky fails the
// run only (a sticky one propagates: the process cannot go on).
template <class Run>
Result run_guarded(const RunContext& ctx, const std::string& variant, const CaseInfo& info, const std::string& shape,
                   Run run) {
  arm_timeout(ctx.opt.timeout_s, fmt::format("{} {} on {}", ctx.lab_id, variant, info.id()));
  Result r;
  try {
    r = run();
  } catch (const CudaError& e) {
    if (e.sticky()) throw;
    r = failed_result(info.id(), variant, shape, Status::fail, e.what(), cuda_error_reasons(e));
  } catch (const std::exception& e) {  // a launcher that refuses (lab 08 step 5 without sm_90a code): this run only
    r = failed_result(info.id(), variant, shape, Status::error, e.what());
  }
  alarm(0);
  return r;
}

// Phase 4: every selected variant on every case of this lab's problem, each result recorded as
// it comes. Throws the CudaError of a sticky failure.
template <class Record>
void run_all_cases(const std::vector<fs::path>& cases, const LabDescription& lab, const RunContext& ctx, Record record) {
  const Options& opt = ctx.opt;
  auto selected = [&](const std::string& name) {
    return opt.variants.empty() || std::find(opt.variants.begin(), opt.variants.end(), name) != opt.variants.end();
  };
  for (const fs::path& dir : cases) {
    CaseInfo info;
    try {
      info = read_case_info(dir);
    } catch (const std::exception& e) {
      record(failed_result(dir.string(), "-", "", Status::error, e.what()));
      continue;
    }
    const bool layer = info.problem == Problem::conv_layer;
    if ((layer && lab.conv_layer.empty()) || (!layer && lab.conv2d.empty())) continue;  // not this lab's problem
    try {
      if (!layer) {
        const Conv2dCase c = load_conv2d_case(dir, opt.check);
        for (const auto& v : lab.conv2d) {
          if (selected(v.name)) record(run_guarded(ctx, v.name, info, info.conv2d.describe(), [&] { return run_conv2d(c, v, ctx); }));
        }
      } else {
        const ConvLayerCase c = load_conv_layer_case(dir, opt.check);
        for (const auto& v : lab.conv_layer) {
          if (selected(v.name)) record(run_guarded(ctx, v.name, info, info.layer.describe(), [&] { return run_layer(c, v, ctx); }));
        }
      }
    } catch (const CudaError&) {
      throw;
    } catch (const std::exception& e) {  // unreadable case files
      record(failed_result(info.id(), "-", "", Status::error, e.what()));
    }
  }
}

void print_device_line(const LabDescription& lab, const DeviceInfo& device, const RunContext& ctx) {
  fmt::print("{} on {}", lab.id, device.describe());
  if (ctx.ceilings) {
    fmt::print("; measured copy {:.0f} GB/s, FMA {:.1f} TFLOP/s", ctx.ceilings->copy_bytes_per_s / 1e9,
               ctx.ceilings->fma_flops_per_s / 1e12);
    if (ctx.ceilings->tf32_mma_flops_per_s > 0) {
      fmt::print(", TF32 mma.sync {:.0f} TFLOP/s", ctx.ceilings->tf32_mma_flops_per_s / 1e12);
    }
  }
  fmt::print("\n");
}

}  // namespace

int run_lab(int argc, char** argv, const LabDescription& lab) {
  Options opt;
  if (const auto ended = parse_options(argc, argv, lab, opt)) return *ended;
  if (const auto refused = check_request(opt, lab, argv[0])) return *refused;
  if (opt.list) {
    const auto gpu = [](int cc) {
      return cc == 0 ? std::string() : fmt::format("; GPUs of compute capability {}.{} only", cc / 10, cc % 10);
    };
    for (const auto& v : lab.conv2d) {
      fmt::print("{}  (conv2d, mask widths {}{})\n", v.name, v.masks.to_string(), gpu(v.compute_capability));
    }
    for (const auto& v : lab.conv_layer) {
      fmt::print("{}  (conv layer, mask width ≤ {}{})\n", v.name, v.max_mask_width, gpu(v.compute_capability));
    }
    write_list_json(opt.json_path, lab);
    return g_json_failed ? kExitUsage : kExitAllPassed;
  }
  const std::optional<std::vector<fs::path>> cases = find_all_cases(opt, lab);
  if (!cases) return kExitUsage;

  RunContext ctx;
  ctx.lab_id = lab.id;
  ctx.opt = opt;
  std::string why;
  const auto device = query_device(&why);
  if (!device) {
    fmt::print(stderr, "{}: {}. The labs need an NVIDIA GPU; nothing was run.\n", lab.id, why);
    return kExitNoGpu;
  }
  ctx.device = *device;
  std::signal(SIGALRM, on_alarm);

  std::vector<Result> results;
  int exit_code = kExitAllPassed;
  auto record = [&](Result r) {
    print_result(r, lab.id, ctx);
    if (r.status == Status::fail || r.status == Status::error) exit_code = kExitSomeFailed;
    results.push_back(std::move(r));
    write_json_report(opt.json_path, lab, ctx, results, /*finished=*/false);
  };
  try {
    if (opt.time) {
      arm_timeout(opt.timeout_s, "measuring the GPU's ceilings");
      ctx.ceilings = measure_ceilings();
      alarm(0);
    }
    if (!opt.quiet) print_device_line(lab, *device, ctx);
    run_all_cases(*cases, lab, ctx, record);
  } catch (const CudaError& e) {
    alarm(0);
    fmt::print("CRASH {} {}\n      The CUDA context is unusable after this error; no further case can run "
               "in this process.\n", lab.id, e.what());
    std::vector<std::string> tags{reason::kCrashed};
    for (std::string& t : cuda_error_reasons(e)) tags.push_back(std::move(t));
    results.push_back(failed_result("(crash)", "-", "", Status::error, e.what(), std::move(tags)));
    write_json_report(opt.json_path, lab, ctx, results);
    return kExitCrashed;
  }

  std::size_t passed = 0, failed = 0, skipped = 0;
  for (const Result& r : results) {
    passed += r.status == Status::pass;
    failed += r.status == Status::fail || r.status == Status::error;
    skipped += r.status == Status::skip;
  }
  if (!opt.quiet) {
    fmt::print("{}: {} passed, {} failed, {} skipped (mask widths or GPUs a variant does not take)\n", lab.id, passed,
               failed, skipped);
  }
  write_json_report(opt.json_path, lab, ctx, results);
  if (g_json_failed) {
    fmt::print(stderr, "{}: the results could not be written to {} (see above)\n", lab.id, opt.json_path);
    return kExitUsage;
  }
  return exit_code;
}

}  // namespace convlab
