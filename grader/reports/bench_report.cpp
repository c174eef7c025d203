// `grader bench`'s tables and pictures, from bench.json (see bench_report.hpp).
#include "reports/bench_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "convlab/atomic_file.hpp"
#include "convlab/gnuplot_text.hpp"
#include "convlab/markdown.hpp"
#include "convlab/shapes.hpp"
#include "performance/ncu_profile.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool ran(const json& row) { return row.contains("ms") && !row.contains("error"); }

double num(const json& j, const char* key, double fallback = NAN) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : fallback;
}

std::string str(const json& j, const char* key, const std::string& fallback = "") {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

std::string pct(double fraction) { return std::isfinite(fraction) ? fmt::format("{:.1f}%", 100 * fraction) : "—"; }

/// The conv2d results indexed once: each table cell and picture point is a map search, not a
/// scan of every row (10,000 rows once took 6.5 minutes to draw, every cell scanning them all).
class ResultIndex {
 public:
  explicit ResultIndex(const json& results) {
    std::set<std::pair<int, int>> seen_sizes;
    std::set<std::string> seen_methods;
    std::set<int> masks;
    for (const auto& r : results) {
      const int h = r.value("height", 0), w = r.value("width", 0), k = r.value("mask_width", 0);
      const std::string method = str(r, "method");
      if (seen_sizes.insert({h, w}).second) sizes.emplace_back(h, w);
      if (seen_methods.insert(method).second) methods.push_back(method);
      masks.insert(k);
      rows_.emplace(std::make_tuple(method, h, w, k), &r);  // the first row of a method and shape counts
      cells_[{h, w, k}].push_back(&r);
      if (str(r, "kind") != "peer" || !ran(r)) continue;
      std::optional<PeerBest>& best = peers_[{h, w, k}];
      if (!best || num(r, "ms") < best->ms) best = PeerBest{method, num(r, "ms")};
    }
    this->masks.assign(masks.begin(), masks.end());
  }

  std::vector<std::pair<int, int>> sizes;  ///< image sizes, in the order of their first row
  std::vector<int> masks;                  ///< mask widths, ascending
  std::vector<std::string> methods;        ///< methods, in the order of their first row

  /// The row of `method` at (h, w, k), if any.
  [[nodiscard]] const json* row(const std::string& method, int h, int w, int k) const {
    const auto it = rows_.find(std::make_tuple(method, h, w, k));
    return it == rows_.end() ? nullptr : it->second;
  }
  /// Every row at (h, w, k), in file order.
  [[nodiscard]] const std::vector<const json*>& cell(int h, int w, int k) const {
    static const std::vector<const json*> kNone;
    const auto it = cells_.find({h, w, k});
    return it == cells_.end() ? kNone : it->second;
  }
  /// The fastest peer that ran at (h, w, k), if any (the first of equal times).
  [[nodiscard]] std::optional<PeerBest> fastest_peer(int h, int w, int k) const {
    const auto it = peers_.find({h, w, k});
    return it == peers_.end() ? std::nullopt : it->second;
  }

 private:
  using Shape = std::tuple<int, int, int>;  // height, width, mask width
  std::map<std::tuple<std::string, int, int, int>, const json*> rows_;
  std::map<Shape, std::vector<const json*>> cells_;
  std::map<Shape, std::optional<PeerBest>> peers_;
};

constexpr const char* kLab07 = "lab07 register_tiled";

std::string size_text(int h, int w) { return h == w ? fmt::format("{}²", h) : fmt::format("{}×{}", h, w); }

// What the rows of one benchmark say of the hold (convlab::LaunchHold, the field "held"): nothing
// for a bench.json from before it; else that the times leave out the host's queueing, and which
// methods were timed unheld (the hold gave up: a call that waits for the GPU while it is queued).
std::string hold_sentence(const json& rows) {
  bool recorded = false;
  std::set<std::string> unheld;
  for (const auto& r : rows) {
    if (!r.contains("held") || !r.at("held").is_boolean()) continue;
    recorded = true;
    if (!r.at("held").get<bool>()) unheld.insert(str(r, "method"));
  }
  if (!recorded) return "";
  std::string s =
      "Each timed run is queued behind a kernel that holds the GPU until the whole run is queued (common's "
      "LaunchHold, as nvbench's blocking kernel), so the times are the GPU's work, not the host's per-call set-up.";
  if (!unheld.empty()) {
    s += " Timed without it (`held` false in bench.json):";
    for (const auto& m : unheld) s += (m == *unheld.begin() ? " " : ", ") + m;
    s += ".";
  }
  return s + "\n";
}

std::string machine_lines(const json& bench) {
  const json& d = bench.value("device", json::object());
  const json& c = bench.value("ceilings", json::object());
  std::string s = fmt::format("GPU: **{}** (compute capability {}, {} SMs), driver {}, runtime {}.\n",
                              str(d, "name", "unknown GPU"), str(d, "compute_capability", "?"), d.value("sms", 0),
                              str(d, "driver", "?"), str(d, "runtime", "?"));
  const json& clocks = bench.value("clocks", json::object());
  if (clocks.contains("unavailable")) {
    s += fmt::format("Clocks: unavailable ({}).\n", str(clocks, "unavailable"));
  } else if (!clocks.empty()) {
    s += fmt::format("Clocks (nvidia-smi) before the run, idle: SM {} MHz of {} MHz max, memory {} MHz of {} MHz max; "
                     "power limit {} W.\n",
                     str(clocks, "sm_mhz", "?"), str(clocks, "sm_max_mhz", "?"), str(clocks, "memory_mhz", "?"),
                     str(clocks, "memory_max_mhz", "?"), str(clocks, "power_limit_w", "?"));
    const json& during = clocks.value("during_conv2d", json::object());
    if (during.contains("samples")) {
      s += fmt::format("While conv2d_bench ran: SM clock median {:.0f} MHz ({:.0f}–{:.0f} MHz over {} samples), memory "
                       "{:.0f} MHz.\n",
                       num(during, "sm_mhz_median"), num(during, "sm_mhz_min"), num(during, "sm_mhz_max"),
                       during.value("samples", 0), num(during, "memory_mhz_median"));
    }
  }
  if (num(c, "copy_bytes_per_s", 0) <= 0 || num(c, "fma_flops_per_s", 0) <= 0) {
    // conv2d_bench measures them; a run without it (--only layers) has none
    return s + "Ceilings: not measured in this run (conv2d_bench, which measures them, did not run).\n";
  }
  s += fmt::format("Ceilings measured in the same run: copy **{:.0f} GB/s** (bytes read + written), FMA **{:.1f} "
                   "TFLOP/s**{}.\n",
                   num(c, "copy_bytes_per_s", 0) / 1e9, num(c, "fma_flops_per_s", 0) / 1e12,
                   num(c, "tf32_mma_flops_per_s", 0) > 0
                       ? fmt::format(", TF32 tensor cores (`mma.sync`) **{:.0f} TFLOP/s**{}", num(c, "tf32_mma_flops_per_s", 0) / 1e12,
                                     num(c, "tf32_mma_k4_flops_per_s", 0) > 0
                                         ? fmt::format(" (at half depth, `m16n8k4`: {:.0f})",
                                                       num(c, "tf32_mma_k4_flops_per_s", 0) / 1e12)
                                         : "")
                       : "");
  return s;
}

}  // namespace

std::optional<PeerBest> fastest_peer(const json& results, int height, int width, int mask_width) {
  return ResultIndex(results).fastest_peer(height, width, mask_width);
}

void add_peer_ratios(json& results) {
  const ResultIndex index(results);  // PeerBest by value: the rows below may change
  for (auto& r : results) {
    if (!ran(r)) continue;
    if (const auto p = index.fastest_peer(r.value("height", 0), r.value("width", 0), r.value("mask_width", 0))) {
      r["x_fastest_peer"] = p->ms / num(r, "ms");
      r["fastest_peer"] = p->method;
    }
  }
}

std::vector<std::string> lab07_goal_misses(const json& bench) {
  std::vector<std::string> misses;
  const ResultIndex index(bench.at("conv2d").at("results"));
  for (const auto& [h, w] : index.sizes) {
    for (int k : index.masks) {
      const json* row = index.row(kLab07, h, w, k);
      const auto peer = index.fastest_peer(h, w, k);
      if (!peer) continue;  // no peer ran: nothing to compare with
      if (!row || !ran(*row)) {
        misses.push_back(fmt::format("{} K={}: lab 07 did not run ({})", size_text(h, w), k,
                                     row ? str(*row, "error", "no time") : "no row"));
        continue;
      }
      const double x = peer->ms / num(*row, "ms");
      const double need = k <= 7 ? 2.0 : 1.0;
      if (x < need) {
        misses.push_back(fmt::format("{} K={}: {:.2f}× {} ({:.4f} ms against {:.4f} ms); the goal is {}", size_text(h, w),
                                     k, x, peer->method, num(*row, "ms"), peer->ms,
                                     k <= 7 ? "at least 2×" : "not slower (≥ 1×)"));
      }
    }
  }
  return misses;
}

namespace {

/// The terminal of bench.gp's plots; a plot that needs another sets its own and then this again.
constexpr const char* kPlotTerminal = "set terminal pngcairo noenhanced size 1100,640 font \"DejaVu Sans,22\"\n";

// The rows lab 08's goals read: the names conv2d_bench and conv_layer_bench give them.
constexpr const char* kBandedTf32x3 = "lab08 banded_tf32x3";
constexpr const char* kBandedTf32Bf16 = "lab08 banded_tf32_bf16";
constexpr const char* kCudnnFp32 = "cuDNN (FP32 FMA math)";
constexpr const char* kCudnnTf32 = "cuDNN (TF32 tensor cores)";
constexpr const char* kLab08Step1 = "lab 08 step 1 TF32";
constexpr const char* kLab08Step7 = "lab 08 step 7 TF32 wgmma";  // step 1's arithmetic on Hopper's wgmma
constexpr const char* kLab08Fp32Steps[] = {"lab 08 step 2 3xTF32", "lab 08 step 5 3xTF32 wgmma",
                                           "lab 08 step 6 TF32+BF16 wgmma"};
constexpr int kGoalImage = 8192;               // the image of the 2D goals
constexpr double kGoalK17Ms = 0.55;            // the K = 17 goal, set on an H100
constexpr double kGoalStep1OfCudnnTf32 = 0.8;  // step 1's share of cuDNN TF32's speed

// j[key] itself where it is there, else an empty value: the goals keep pointers to rows, so they
// read the report's own members, never json::value's copies of them.
const json& member(const json& j, const char* key) {
  static const json kNone;
  return j.is_object() && j.contains(key) ? j[key] : kNone;
}

// A conv layer's measurement that ran and whose outputs passed the check against step 2.
bool layer_ok(const json& m) { return m.contains("ms") && !m.contains("error") && num(m, "bad_outputs", 0) == 0; }
// A conv2d row that ran and passed its check against the double reference.
bool conv2d_ok(const json* r) {
  return r != nullptr && ran(*r) && r->value("check", json::object()).value("ok", false);
}

// The verdict of items each met (true), missed (false) or not measured (nullopt).
GoalCheck::Verdict verdict_of(const std::vector<std::optional<bool>>& items) {
  if (items.empty()) return GoalCheck::Verdict::not_measured;
  bool all = true;
  for (const auto& i : items) {
    if (i == false) return GoalCheck::Verdict::missed;
    all &= i.has_value();
  }
  return all ? GoalCheck::Verdict::met : GoalCheck::Verdict::not_measured;
}

// The fastest of `methods` in a layer's measurements that ran and passed, if any.
const json* fastest_layer_row(const json& layer, std::initializer_list<const char*> methods) {
  const json* best = nullptr;
  for (const auto& m : member(layer, "measurements")) {
    if (!layer_ok(m)) continue;
    for (const char* method : methods) {
      if (str(m, "method") == method && (!best || num(m, "ms") < num(*best, "ms"))) best = &m;
    }
  }
  return best;
}

}  // namespace

std::vector<GoalCheck> lab08_goal_checks(const json& bench) {
  std::vector<GoalCheck> goals;
  const json& layers = member(member(bench, "layers"), "layers");

  // 1 and 2: the layers, each against its cuDNN row.
  auto layer_goal = [&](std::string goal, std::initializer_list<const char*> ours, const char* theirs, double share) {
    GoalCheck g{std::move(goal), GoalCheck::Verdict::not_measured, {}};
    std::vector<std::optional<bool>> met;
    for (const auto& l : layers) {
      const json* us = fastest_layer_row(l, ours);
      const json* them = fastest_layer_row(l, {theirs});
      if (!us || !them) {
        g.items.push_back(fmt::format("{}: not measured ({} did not run or failed its check)", str(l, "name"),
                                      !us ? "lab 08's step" : theirs));
        met.push_back(std::nullopt);
        continue;
      }
      const double x = num(*them, "ms") / num(*us, "ms");  // our speed over theirs
      met.push_back(x >= share);
      g.items.push_back(fmt::format("{}: {:.2f}× ({} {:.3f} ms against {} {} {:.3f} ms)", str(l, "name"), x,
                                    str(*us, "method"), num(*us, "ms"), theirs, str(*them, "detail"), num(*them, "ms")));
    }
    if (layers.empty()) g.items.push_back("not measured: no layer in this run");
    g.verdict = verdict_of(met);
    goals.push_back(std::move(g));
  };
  layer_goal("every bench layer: lab 08's best FP32-accurate step (2, 5 or 6) at least as fast as cuDNN's FP32 pick",
             {kLab08Fp32Steps[0], kLab08Fp32Steps[1], kLab08Fp32Steps[2]}, kCudnnFp32, 1.0);
  layer_goal(fmt::format("every bench layer: step 1 (1xTF32) at least {:.0f} % of cuDNN TF32's speed",
                         100 * kGoalStep1OfCudnnTf32),
             {kLab08Step1}, kCudnnTf32, kGoalStep1OfCudnnTf32);

  // 3 and 4: one 8192² image, against lab 07 and against the clock.
  const ResultIndex index(member(member(bench, "conv2d"), "results"));
  const auto row = [&](const char* method, int k) { return index.row(method, kGoalImage, kGoalImage, k); };
  const std::string image = size_text(kGoalImage, kGoalImage);
  GoalCheck faster{fmt::format("{}: step 3 (banded 3xTF32) faster than lab 07 at K = 13 and 17", image),
                   GoalCheck::Verdict::not_measured, {}};
  std::vector<std::optional<bool>> met;
  for (int k : {13, 17}) {
    const json *step3 = row(kBandedTf32x3, k), *lab07 = row(kLab07, k);
    if (!conv2d_ok(step3) || !conv2d_ok(lab07)) {
      faster.items.push_back(fmt::format("K = {}: not measured (step 3 or lab 07 did not run or failed its check)", k));
      met.push_back(std::nullopt);
      continue;
    }
    const double x = num(*lab07, "ms") / num(*step3, "ms");
    met.push_back(x > 1.0);
    faster.items.push_back(
        fmt::format("K = {}: {:.2f}× ({:.4f} ms against lab 07's {:.4f} ms)", k, x, num(*step3, "ms"), num(*lab07, "ms")));
  }
  faster.verdict = verdict_of(met);
  goals.push_back(std::move(faster));

  const double fma = num(bench.value("ceilings", json::object()), "fma_flops_per_s", 0);
  const double bound_ms = fma > 0 ? 1e3 * 2.0 * 17 * 17 * kGoalImage * static_cast<double>(kGoalImage) / fma : NAN;
  GoalCheck k17{fmt::format("{}, K = 17: lab 08's best banded step (3 or 4) within {:.2f} ms and under the FP32 FMA "
                            "bound of the run",
                            image, kGoalK17Ms),
                GoalCheck::Verdict::not_measured, {}};
  const json* best = nullptr;
  for (const char* method : {kBandedTf32x3, kBandedTf32Bf16}) {
    const json* r = row(method, 17);
    if (conv2d_ok(r) && (!best || num(*r, "ms") < num(*best, "ms"))) best = r;
  }
  if (!best || !std::isfinite(bound_ms)) {
    k17.items.push_back(!best ? "not measured: no banded step ran and passed its check at K = 17" : "not measured: no FMA rate in the run");
  } else {
    const double ms = num(*best, "ms");
    k17.verdict = ms <= kGoalK17Ms && ms < bound_ms ? GoalCheck::Verdict::met : GoalCheck::Verdict::missed;
    k17.items.push_back(fmt::format("{} {:.4f} ms; the FMA bound {:.4f} ms at {:.1f} TFLOP/s", str(*best, "method"), ms,
                                    bound_ms, fma / 1e12));
  }
  goals.push_back(std::move(k17));

  // 5: step 1's goal for the lab's fastest TF32 step, step 7 (wgmma) beside step 1 on Hopper.
  layer_goal(fmt::format("every bench layer: lab 08's fastest TF32 step (1, or 7 on Hopper's wgmma) at least {:.0f} % "
                         "of cuDNN TF32's speed",
                         100 * kGoalStep1OfCudnnTf32),
             {kLab08Step1, kLab08Step7}, kCudnnTf32, kGoalStep1OfCudnnTf32);
  return goals;
}

std::string bench_summary_markdown(const json& bench) {
  const json& results = bench.at("conv2d").at("results");
  const ResultIndex index(results);
  const auto& sizes = index.sizes;
  std::string s = fmt::format(
      "Measured with `grader bench` on **{}**, {}; copy {:.0f} GB/s and FMA {:.1f} TFLOP/s measured in the same run. "
      "Lab 07 is the register-tiling solution (`register_tiled`, the autotuned choice); × is the fastest peer's "
      "time over lab 07's (NPP, cuDNN, cuFFT, CuPy: whichever ran and passed its check); roofline = max(bytes/BW, "
      "flops/F) over the measured time.\n\n",
      str(bench.value("device", json::object()), "name", "unknown GPU"), str(bench, "date", "undated"),
      num(bench.at("ceilings"), "copy_bytes_per_s", 0) / 1e9, num(bench.at("ceilings"), "fma_flops_per_s", 0) / 1e12);
  bool above = false;
  for (const auto& r : results) above |= ran(r) && num(r, "roofline_fraction", 0) > 1;
  if (above) {
    s += "A roofline fraction above 100% means the kernel moved its bytes faster than the measured ceiling, which is "
         "a device-to-device copy kernel, not the memory's datasheet peak.\n\n";
  }
  s += "| K |";
  std::string rule = "| ---: |";
  for (const auto& [h, w] : sizes) {
    s += fmt::format(" {} lab 07 ms | × fastest peer | roofline |", size_text(h, w));
    rule += " ---: | ---: | ---: |";
  }
  s += " fastest peer (largest image) |\n" + rule + " --- |\n";
  for (int k : index.masks) {
    s += fmt::format("| {} |", k);
    std::string peer_name = "—";
    for (const auto& [h, w] : sizes) {
      const json* row = index.row(kLab07, h, w, k);
      const auto peer = index.fastest_peer(h, w, k);
      if (row && ran(*row)) {
        s += fmt::format(" {:.4f} | {} | {} |", num(*row, "ms"),
                         peer ? fmt::format("{:.2f}×", peer->ms / num(*row, "ms")) : "—",
                         pct(num(*row, "roofline_fraction")));
      } else {
        s += " — | — | — |";
      }
      peer_name = peer ? fmt::format("{} ({:.4f} ms)", peer->method, peer->ms) : "—";
    }
    s += fmt::format(" {} |\n", markdown_cell(peer_name));
  }
  return s;
}

namespace {

// bench.md's conv2d part: the protocol, the lab 07 goal, a table per image size.
std::string conv2d_section(const json& bench) {
  std::string s;
  const json& conv = bench.value("conv2d", json::object());
  if (conv.contains("results")) {
    const json& p = conv.value("protocol", json::object());
    s += fmt::format(
        "Protocol: device-resident data; each method runs once into a NaN-poisoned, guard-banded output and must "
        "match the double reference (every output within K of an edge and {} random interior ones) before it is "
        "timed; then {} warm-up runs and the median of {} runs, L2 flushed before each. Per output: 8 bytes (one "
        "read of the input, one write of the output) and 2·K² flops, for every method.\n",
        p.value("interior_samples", 0), p.value("warmup", 0), p.value("repeats", 0));
    s += hold_sentence(conv.at("results"));
    for (const auto& m : conv.value("missing_peers", json::array())) {
      s += fmt::format("Peer not in this run: {}: {}.\n", str(m, "name"), str(m, "reason"));
    }
    s += "\n## conv2d: lab 07 against the fastest peer\n\n" + bench_summary_markdown(bench);
    const auto misses = lab07_goal_misses(bench);
    s += misses.empty() ? "\nGoal (≥ 2× the fastest peer for K ≤ 7, never slower): **met in every measured case.**\n"
                        : fmt::format("\nGoal (≥ 2× the fastest peer for K ≤ 7, never slower): **missed in {} case{}:**\n\n",
                                      misses.size(), misses.size() == 1 ? "" : "s");
    for (const auto& m : misses) s += "- " + m + "\n";
    const ResultIndex index(conv.at("results"));
    for (const auto& [h, w] : index.sizes) {
      s += fmt::format("\n## conv2d, {}×{} float32\n\n", h, w);
      s += "| K | method | ms | GB/s | TFLOP/s | roofline | × fastest peer | notes |\n";
      s += "| ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |\n";
      for (int k : index.masks) {
        for (const json* row : index.cell(h, w, k)) {
          const json& r = *row;
          if (!ran(r)) {
            s += fmt::format("| {} | {} | — | — | — | — | — | {} |\n", k, markdown_cell(str(r, "method")),
                             markdown_cell(str(r, "error", "did not run")));
            continue;
          }
          s += fmt::format("| {} | {} | {:.4f} | {:.0f} | {:.2f} | {} | {} | {} |\n", k, markdown_cell(str(r, "method")),
                           num(r, "ms"), num(r, "gb_per_s"), num(r, "tflop_per_s"), pct(num(r, "roofline_fraction")),
                           r.contains("x_fastest_peer") ? fmt::format("{:.2f}×", num(r, "x_fastest_peer")) : "—",
                           markdown_cell(str(r, "detail")));
        }
      }
    }
  }
  return s;
}

// bench.md's layer part: how the rows were checked and timed, a table per layer.
std::string layers_section(const json& bench) {
  std::string s;
  const json& layers = bench.value("layers", json::object());
  s += "\n## Convolution layers (labs 06 and 08 against cuDNN and cuBLAS)\n\n";
  if (layers.contains("error")) {
    s += fmt::format("Not measured: {}\n", str(layers, "error"));
  } else {
    s += "TFLOP/s count the direct convolution's 2·B·M·Ho·Wo·C·K² flops for every method; every output checked "
         "against a float64 reference by the grader's rule, n·u·S (u = 2⁻²⁴; TF32 rows 2⁻¹¹, n at least 3 where both "
         "operands are rounded). % is of cuDNN with FP32 FMA math.\n";
    json rows = json::array();
    for (const auto& l : layers.value("layers", json::array())) {
      for (const auto& m : l.value("measurements", json::array())) rows.push_back(m);
    }
    s += hold_sentence(rows);
    if (str(layers, "values", "uniform") == "wide") {
      s += "Values: **wide** (times 2¹³ in every fourth input column and each filter's left tap column, 2⁻¹⁰ "
           "elsewhere: where a Winograd or FFT transform breaks the FP32 rule and a direct sum keeps it).\n";
    }
    for (const auto& l : layers.value("layers", json::array())) {
      s += fmt::format("\n### {}\n\n| method | detail | ms | TFLOP/s | % of cuDNN FP32 | check |\n| --- | --- | ---: | ---: | "
                       "---: | --- |\n",
                       str(l, "name"));
      double cudnn = NAN;
      for (const auto& m : l.value("measurements", json::array())) {
        if (str(m, "method") == "cuDNN (FP32 FMA math)" && m.contains("tflops")) cudnn = num(m, "tflops");
      }
      for (const auto& m : l.value("measurements", json::array())) {
        if (str(m, "method") == "step 3 with plan") continue;  // the tile sweep stays in the JSON
        if (m.contains("error")) {
          s += fmt::format("| {} | {} | — | — | — | {} |\n", markdown_cell(str(m, "method")), markdown_cell(str(m, "detail")),
                           markdown_cell(str(m, "error")));
          continue;
        }
        const double bad = num(m, "bad_outputs", 0);
        s += fmt::format("| {} | {} | {:.3f} | {:.2f} | {} | {} |\n", markdown_cell(str(m, "method")), markdown_cell(str(m, "detail")),
                         num(m, "ms"), num(m, "tflops"),
                         std::isfinite(cudnn) ? fmt::format("{:.0f}%", 100 * num(m, "tflops") / cudnn) : "—",
                         bad == 0 ? fmt::format("ok (worst {:.2f} of allowed)", num(m, "worst_error_over_allowed", 0))
                                  : fmt::format("**{:.0f} outputs wrong**", bad));
      }
    }
  }
  return s;
}

// bench.md's check of lab 08's goals, each met, missed or not measured, with its numbers.
std::string lab08_goals_section(const json& bench) {
  std::string s;
  s += "\n## Lab 08's goals (docs/design.md, Targets)\n\n";
  for (const GoalCheck& g : lab08_goal_checks(bench)) {
    const char* verdict = g.verdict == GoalCheck::Verdict::met      ? "Met"
                          : g.verdict == GoalCheck::Verdict::missed ? "Missed"
                                                                    : "Not measured";
    s += fmt::format("- **{}**: {}.\n", verdict, g.goal);
    for (const auto& item : g.items) s += fmt::format("  - {}\n", item);
  }
  return s;
}

// bench.md's block-size sweep of lab 01, events and Nsight Compute side by side.
std::string sweep_section(const json& bench) {
  std::string s;
  const json& sweep = bench.value("sweep", json::object());
  s += "\n## Block-size sweep of the naive kernel (lab 01, both_restrict)\n\n";
  if (sweep.contains("error")) {
    s += fmt::format("Not measured: {}\n", str(sweep, "error"));
  } else {
    s += fmt::format("{}×{} image. Time from CUDA events (median); the other columns from Nsight Compute ({}).\n\n",
                     sweep.value("size", 0), sweep.value("size", 0), str(sweep.value("ncu", json::object()), "status", "?"));
    s += "| K | block | threads | ms | GB/s effective | ncu time ms | achieved occupancy | theoretical occupancy | DRAM "
         "throughput | registers/thread |\n| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for (const auto& r : sweep.value("rows", json::array())) {
      const json& n = r.value("ncu", json::object());
      auto metric = [&](const char* key, const char* format_spec) -> std::string {
        if (n.contains("unavailable")) return "unavailable";
        if (!n.contains(key) || !n[key].is_number()) return "n/a";
        return fmt::format(fmt::runtime(format_spec), n[key].get<double>());
      };
      s += fmt::format("| {} | {}×{} | {} | {} | {} | {} | {} | {} | {} | {} |\n", r.value("mask_width", 0),
                       r.value("block_x", 0), r.value("block_y", 0), r.value("block_x", 0) * r.value("block_y", 0),
                       r.contains("ms") ? fmt::format("{:.4f}", num(r, "ms")) : markdown_cell(str(r, "error", "—")),
                       r.contains("gb_per_s") ? fmt::format("{:.0f}", num(r, "gb_per_s")) : "—",
                       metric("time_ms", "{:.4f}"), metric("achieved_occupancy_pct", "{:.1f}%"),
                       metric("theoretical_occupancy_pct", "{:.1f}%"), metric("dram_throughput_pct", "{:.1f}%"),
                       metric("registers_per_thread", "{:.0f}"));
    }
    if (const json& n = sweep.value("ncu", json::object()); n.contains("unavailable")) {
      s += fmt::format("\nNsight Compute columns unavailable: {}\n", str(n, "unavailable"));
    }
  }
  return s;
}

}  // namespace

std::string bench_markdown(const json& bench) {
  std::string s = fmt::format("# Benchmarks on {} — {}\n\n", str(bench.value("device", json::object()), "name", "?"),
                              str(bench, "date", "undated"));
  s += machine_lines(bench);
  s += conv2d_section(bench);
  s += layers_section(bench);
  s += lab08_goals_section(bench);
  s += sweep_section(bench);
  return s;
}

std::vector<std::string> sweep_metrics() {
  return {"gpu__time_duration.sum",
          "sm__warps_active.avg.pct_of_peak_sustained_active",
          "sm__maximum_warps_per_active_cycle_pct",
          "dram__throughput.avg.pct_of_peak_sustained_elapsed",
          "launch__registers_per_thread"};
}

json join_sweep(const json& timed, const json& plan, const std::string& ncu_csv, const std::string& ncu_failure) {
  json rows = timed.value("launches", json::array());
  std::string unavailable = ncu_failure;
  std::vector<NcuRow> csv;
  if (unavailable.empty()) {
    try {
      csv = parse_ncu_csv(ncu_csv);
    } catch (const std::exception& e) {
      unavailable = e.what();
    }
  }
  std::vector<std::string> ids;
  std::map<std::string, std::map<std::string, std::string>> values;
  std::map<std::string, std::string> kernels;
  for (const auto& r : csv) {
    if (std::find(ids.begin(), ids.end(), r.launch_id) == ids.end()) ids.push_back(r.launch_id);
    values[r.launch_id][r.metric] = r.value;
    kernels[r.launch_id] = r.kernel;
  }
  const json launches = plan.is_object() ? plan.value("launches", json::array()) : json::array();
  if (unavailable.empty() && ids.size() != launches.size()) {
    unavailable = fmt::format("Nsight Compute profiled {} launches, the sweep made {}", ids.size(), launches.size());
  }
  for (auto& row : rows) {
    if (!unavailable.empty()) {
      row["ncu"] = {{"unavailable", unavailable}};
      continue;
    }
    // Launch i of the plan with the same mask width and block.
    std::size_t i = 0;
    for (; i < launches.size(); ++i) {
      const json& l = launches[i];
      if (l.value("mask_width", 0) == row.value("mask_width", 0) && l.value("block_x", 0) == row.value("block_x", 0) &&
          l.value("block_y", 0) == row.value("block_y", 0)) {
        break;
      }
    }
    if (i == launches.size()) {
      row["ncu"] = {{"unavailable", "this launch is not in the profiled run"}};
      continue;
    }
    const std::string& id = ids[i];
    const std::string tag = fmt::format("<{}, {}>", row.value("block_x", 0), row.value("block_y", 0));
    if (kernels[id].find(tag) == std::string::npos) {
      row["ncu"] = {{"unavailable", fmt::format("launch {} is {}, expected the {} instantiation", id, kernels[id], tag)}};
      continue;
    }
    json n = json::object();
    auto take = [&](const char* metric, const char* key, double scale) {
      const auto it = values[id].find(metric);
      const std::optional<double> v = it == values[id].end() ? std::nullopt : parse_ncu_number(it->second);
      if (v) n[key] = *v * scale;
      else n[key] = it == values[id].end() ? "not reported" : "n/a";
    };
    take("gpu__time_duration.sum", "time_ms", 1e-6);  // ns
    take("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved_occupancy_pct", 1);
    take("sm__maximum_warps_per_active_cycle_pct", "theoretical_occupancy_pct", 1);
    take("dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram_throughput_pct", 1);
    take("launch__registers_per_thread", "registers_per_thread", 1);
    row["ncu"] = n;
  }
  return rows;
}

namespace {

// The pictures of write_plot_files, each appending its part of bench.gp to `gp` and the PNG
// files it draws to `pngs`. `gpu` is the device's name as a gnuplot string.

/// Roofline at the largest image, one picture per family of methods.
void roofline_plots(const ResultIndex& table, const json& bench, const std::string& gpu, const fs::path& dir,
                    std::string& gp, std::vector<std::string>& pngs) {
  const auto& sizes = table.sizes;
  const auto& methods = table.methods;
  const auto& masks = table.masks;
  const double bw = num(bench.at("ceilings"), "copy_bytes_per_s", 0);
  const double fma = num(bench.at("ceilings"), "fma_flops_per_s", 0);
  // Roofline at the largest image: x = flops per byte = 2K²/8, y = TFLOP/s. One picture per
  // family of methods (a few series each, so that a projected slide can tell them apart),
  // all from one data file.
  const auto [H, W] = *std::max_element(sizes.begin(), sizes.end(), [](auto a, auto b) { return a.first * a.second < b.first * b.second; });
  struct Family {
    const char* file;   // roofline_FILE.png
    const char* title;  // what the picture shows
    std::vector<const char*> prefixes;
  };
  const std::vector<Family> families = {{"labs01-02", "Labs 01-02, untiled", {"lab01", "lab02"}},
                                        {"labs03-05", "Labs 03-05, shared-memory tiles", {"lab03", "lab04", "lab05"}},
                                        {"lab07", "Lab 07, register tiling", {"lab07"}},
                                        {"peers", "The libraries: NPP, cuDNN, cuFFT, CuPy", {}}};
  auto family_of = [&](const std::string& m) -> std::size_t {
    for (std::size_t f = 0; f < families.size(); ++f) {
      for (const char* p : families[f].prefixes) {
        if (m.rfind(p, 0) == 0) return f;
      }
    }
    return families.size() - 1;  // NPP, cuDNN, cuFFT, CuPy
  };
  std::string dat;
  std::vector<std::string> plots(families.size());
  int index = 0;
  for (const auto& m : methods) {
    std::string block;
    for (int k : masks) {
      const json* r = table.row(m, H, W, k);
      if (r && ran(*r)) block += fmt::format("{}\t{}\t{}\n", 2.0 * k * k / 8.0, num(*r, "tflop_per_s"), k);
    }
    if (block.empty()) continue;
    dat += fmt::format("# {}\n{}\n\n", gnuplot_data_field(m), block);
    std::string& plot = plots[family_of(m)];
    const int n = static_cast<int>(std::count(plot.begin(), plot.end(), '\n'));
    plot += fmt::format(", \\\n  \"roofline.dat\" index {} using 1:2 with linespoints pt {} ps 2 lw 3 title {}", index,
                        5 + 2 * (n % 4), gnuplot_string(m));
    ++index;
  }
  write_file_atomically(dir / "roofline.dat", dat);
  gp += fmt::format(
      "\nset logscale xy\nset xlabel \"flop per byte of input read + output written (K = 2..17)\"\n"
      "set ylabel \"TFLOP/s\"\nset key bottom right\nset xrange [0.5:80]\nset yrange [0.003:{}]\n"
      "roof(x) = (x * {} < {} ? x * {} : {})\n",
      std::max(fma / 1e12 * 1.5, 1.0), bw / 1e12, fma / 1e12, bw / 1e12, fma / 1e12);
  for (std::size_t f = 0; f < families.size(); ++f) {
    if (plots[f].empty()) continue;
    const std::string png = fmt::format("roofline_{}.png", families[f].file);
    gp += fmt::format(
        "set output \"{}\"\nset title \"{}, {}x{}\\n\" . {} . \": copy {:.0f} GB/s, FMA {:.1f} TFLOP/s\"\n"
        "plot roof(x) with lines lw 4 lc rgb \"#444444\" title \"roofline\"{}\n",
        png, families[f].title, H, W, gpu, bw / 1e9, fma / 1e12, plots[f]);
    pngs.push_back(png);
  }
  gp += "unset logscale\nunset xrange\nunset yrange\nunset key\nunset xlabel\nunset ylabel\n";
}

/// One bar chart per mask width: % of roofline of every method, one bar per image size.
void bar_plots(const ResultIndex& table, const std::string& gpu, const fs::path& dir, std::string& gp,
               std::vector<std::string>& pngs) {
  const auto& sizes = table.sizes;
  const auto& methods = table.methods;
  const auto& masks = table.masks;
  for (int k : masks) {
    std::string bars = "method";
    for (const auto& [h, w] : sizes) bars += fmt::format("\t{}x{}", h, w);
    bars += "\n";
    int rows = 0;
    for (const auto& m : methods) {
      // The axis label: NPP's function name and CuPy's are longer than the bars they label.
      std::string line = m.rfind("NPP ", 0) == 0    ? std::string("NPP")
                         : m.rfind("CuPy ", 0) == 0 ? std::string("CuPy")
                                                    : gnuplot_data_field(m);
      bool any = false;
      for (const auto& [h, w] : sizes) {
        const json* r = table.row(m, h, w, k);
        const bool ok = r && ran(*r);
        any |= ok;
        line += ok ? fmt::format("\t{:.2f}", 100 * num(*r, "roofline_fraction")) : "\tNaN";
      }
      if (any) {
        bars += line + "\n";
        ++rows;
      }
    }
    if (rows == 0) continue;
    const std::string name = fmt::format("bars_k{:02d}", k);
    write_file_atomically(dir / (name + ".dat"), bars);
    // Twenty-odd clusters of bars: a wider canvas, smaller axis labels and the key above the
    // plot, where it covers no bar (at the roofline plots' size the labels squeezed the bars
    // into a strip and the key sat on the last ones).
    gp += fmt::format(
        "\nset output \"{0}.png\"\nset terminal pngcairo noenhanced size 1600,900 font \"DejaVu Sans,22\"\n"
        "set title \"{1}x{1} mask, \" . {2} . \": % of roofline\"\nset style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.85 border -1\n"
        "set boxwidth 0.9\nset xtics rotate by 45 right font \",16\"\nset ytics 20\nset xlabel \"\"\nset ylabel \"% of roofline\"\nset yrange [0:*]\n"
        "set key outside top center horizontal\nplot for [c=2:{3}] \"{0}.dat\" using c:xtic(1) title columnheader(c)\nunset style data\n"
        "set xtics norotate font \"\"\nunset key\nunset yrange\nunset xlabel\nunset ylabel\nset ytics autofreq\n{4}",
        name, k, gpu, 1 + static_cast<int>(sizes.size()), kPlotTerminal);
    pngs.push_back(name + ".png");
  }
}

/// A tick step of 1, 2, 2.5 or 5 times a power of ten that splits [0, top] into at most four
/// intervals: autoscaled ticks (up to ten) would overlap on a panel a quarter of a slide high.
double sweep_tick_step(double top) {
  if (!(top > 0) || !std::isfinite(top)) return 1;
  const double decade = std::pow(10.0, std::floor(std::log10(top / 4)));
  for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (top / (m * decade) <= 4) return m * decade;
  }
  return 10 * decade;
}

/// The sweep: four panels against the block shape, one line per mask width. Drawn for a slide
/// (1600x800 shown about 470 px high, so font 28 is 16 px there): the panels share the x axis, so
/// only the bottom row names the block shapes; one key and the axis's name sit in a band below
/// the panels, off the curves; at most five y ticks per panel.
void sweep_plot(const json& sweep, const std::string& gpu, const fs::path& dir, std::string& gp,
                std::vector<std::string>& pngs) {
  if (!(sweep.contains("rows") && !sweep.at("rows").empty())) return;
  std::set<int> masks;
  for (const auto& r : sweep.at("rows")) masks.insert(r.value("mask_width", 0));
  std::string dat;
  int shapes = 0;
  std::map<int, double> top;  // the largest value of each data column
  for (int k : masks) {
    dat += fmt::format("# K={}\n", k);
    int i = 0;
    for (const auto& r : sweep.at("rows")) {
      if (r.value("mask_width", 0) != k) continue;
      const json& n = r.value("ncu", json::object());
      auto v = [&](const json& j, const char* key, int column) {
        if (!(j.contains(key) && j[key].is_number())) return std::string("NaN");
        const double x = j[key].get<double>();
        if (std::isfinite(x)) top[column] = std::max(top[column], x);
        return fmt::format("{}", x);
      };
      dat += fmt::format("{}\t{}x{}\t{}\t{}\t{}\t{}\n", i, r.value("block_x", 0), r.value("block_y", 0), v(r, "ms", 3),
                         v(n, "achieved_occupancy_pct", 4), v(n, "dram_throughput_pct", 5),
                         v(n, "registers_per_thread", 6));
      ++i;
    }
    shapes = std::max(shapes, i);
    dat += "\n\n";
  }
  write_file_atomically(dir / "sweep.dat", dat);
  struct Panel {
    const char* title;
    int column;
  };
  const std::vector<Panel> all = {{"time (ms)", 3},
                                  {"achieved occupancy (%)", 4},
                                  {"DRAM throughput (% of peak)", 5},
                                  {"registers per thread", 6}};
  // Without Nsight Compute only the time panel has data (gnuplot refuses a plot of nothing).
  const bool ncu_ok = !sweep.value("ncu", json::object()).contains("unavailable");
  const std::vector<Panel> panels = ncu_ok ? all : std::vector<Panel>{all[0]};
  const int cols = ncu_ok ? 2 : 1;
  const int rows = ncu_ok ? 2 : 1;
  // Plot areas in screen fractions: the title above, the bottom row's block shapes (rotated)
  // and the key below; each row's panel titles in the gap above it.
  const double row_top[2] = {0.79, 0.475};
  const double row_bottom[2] = {rows == 1 ? 0.27 : 0.595, 0.27};
  const double col_left[2] = {0.07, 0.575};
  const double col_right[2] = {cols == 1 ? 0.99 : 0.485, 0.99};
  std::string body;
  bool first = true;  // the first panel drawn carries the key
  for (std::size_t p = 0; p < panels.size(); ++p) {
    // A counter Nsight Compute reported for no launch leaves its slot empty: gnuplot stops at
    // a plot without one valid point.
    if (top.count(panels[p].column) == 0) continue;
    const int row = static_cast<int>(p) / cols;
    const int col = static_cast<int>(p) % cols;
    const bool bottom = row == rows - 1;
    std::string lines;
    int index = 0;
    for (int k : masks) {
      lines += fmt::format("{}\"sweep.dat\" index {} using 1:{}{} with linespoints pt 7 ps 1.5 lw 3 {}",
                           lines.empty() ? "" : ", ", index++, panels[p].column, bottom ? ":xtic(2)" : "",
                           first ? fmt::format("title \"K={}\"", k) : std::string("notitle"));
    }
    body += fmt::format(
        "set lmargin at screen {}\nset rmargin at screen {}\nset tmargin at screen {}\nset bmargin at screen {}\n"
        "{}set title \"{}\"\nset ytics {}\nplot {}\n{}",
        col_left[col], col_right[col], row_top[row], row_bottom[row],
        bottom ? "set xtics rotate by 90 right format \"%g\"\n" : "set xtics norotate format \"\"\n",
        panels[p].title, sweep_tick_step(top[panels[p].column]), lines, first ? "unset key\nunset label 1\n" : "");
    first = false;
  }
  gp += fmt::format(
      "\nset output \"sweep.png\"\nset terminal pngcairo noenhanced size 1600,800 font \"DejaVu Sans,28\"\n"
      "set multiplot title \"Lab 01 (both_restrict), \" . {} . \", {}x{}{}\" font \",30\"\n"
      "set yrange [0:*]\nset xrange [-0.5:{}]\nset xtics 1\n"
      "set label 1 \"block shape (threads in x by y)\" at screen 0.01,0.025 left\n"
      "set key horizontal at screen 0.985,0 right bottom samplen 2\n{}unset multiplot\n",
      gpu, sweep.value("size", 0), sweep.value("size", 0), ncu_ok ? "" : ": time only (no Nsight Compute)",
      shapes - 0.5, body);
  pngs.push_back("sweep.png");
}

}  // namespace

std::vector<std::string> write_plot_files(const json& bench, const fs::path& dir) {
  std::vector<std::string> pngs;
  // Every string of bench.json enters the script through gnuplot_string (bench.json may come
  // from another machine: `--plot-only` redraws a copied folder); numbers go in as numbers.
  const json& device = bench.contains("device") && bench["device"].is_object() ? bench["device"] : json::object();
  const std::string gpu = gnuplot_string(str(device, "name", "this GPU"));
  std::string gp = fmt::format(
      "# gnuplot script written by `grader bench`; run in this folder: gnuplot bench.gp\n"
      "# (or: grader bench --plot-only THIS_FOLDER)\n"
      "{}"
      "set datafile missing \"NaN\"\nset datafile separator \"\\t\"\nset tics nomirror out\nset grid ytics lc rgb \"#dddddd\"\n",
      kPlotTerminal);
  const json& conv = bench.value("conv2d", json::object());
  if (conv.contains("results") && !conv.at("results").empty()) {
    const ResultIndex table(conv.at("results"));
    roofline_plots(table, bench, gpu, dir, gp, pngs);
    bar_plots(table, gpu, dir, gp, pngs);
  }
  sweep_plot(bench.value("sweep", json::object()), gpu, dir, gp, pngs);
  write_file_atomically(dir / "bench.gp", gp);
  return pngs;
}

}  // namespace convlab::grader
