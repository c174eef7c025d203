// `grader bench`'s report: from the merged results (bench.json) to the Markdown tables and to
// the gnuplot data and scripts of the pictures. Pure functions of the JSON: they run, and are
// tested, without a GPU; `grader bench --plot-only DIR` redraws from a saved bench.json.
//
// bench.json (format "convlab-bench", version 1):
//   date, device{name, compute_capability, sms, ...}, clocks{...} or {"unavailable": why},
//   ceilings{copy_bytes_per_s, fma_flops_per_s},
//   conv2d{protocol, missing_peers[], results[]}   conv2d_bench's JSON (one row per method,
//          image size and mask width: method, kind "lab"|"peer", ms, gb_per_s, tflop_per_s,
//          roofline_fraction, check, or error)
//   layers{...} or {"error": why}                  conv_layer_bench's JSON
//   sweep{size, kernel, rows[], ncu{status, ...}}  the naive kernel's block-size sweep
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace convlab::grader {

/// The fastest peer that ran and passed its check, per image size and mask width.
struct PeerBest {
  std::string method;
  double ms = 0;
};
/// The fastest peer for (height, width, mask width) in a conv2d result list, if any ran.
std::optional<PeerBest> fastest_peer(const nlohmann::json& results, int height, int width, int mask_width);

/// Every row of a conv2d result list gets "x_fastest_peer" = fastest peer's ms / its ms (> 1:
/// faster than every peer) where both exist.
void add_peer_ratios(nlohmann::json& results);

/// The whole report: machine, ceilings, protocol; conv2d per image size (ms, GB/s, TFLOP/s,
/// % of roofline, × fastest peer, check); the goal check of lab 07; conv layers; lab 08's goals;
/// the sweep.
std::string bench_markdown(const nlohmann::json& bench);

/// The short table the README's performance section includes: lab 07 (register_tiled) against
/// the fastest peer for every mask width and image size, with the GPU's name and the date.
std::string bench_summary_markdown(const nlohmann::json& bench);

/// The register-tiling goal of the benchmark issue, checked: at least 2× the fastest peer for
/// K ≤ 7 and never slower. One line per miss; empty when every measured case meets it.
std::vector<std::string> lab07_goal_misses(const nlohmann::json& bench);

/// One of lab 08's goals (docs/design.md, Targets) checked on a bench.json: met only when every
/// item it asks for was measured and meets it; missed when a measured item does not; else not
/// measured (a quick run, no cuDNN, a GPU without the step).
struct GoalCheck {
  enum class Verdict { met, missed, not_measured };
  std::string goal;                ///< what is asked
  Verdict verdict = Verdict::not_measured;
  std::vector<std::string> items;  ///< per layer or mask width: the numbers behind the verdict
};

/// Lab 08's four goals: on every bench layer its best FP32-accurate step (2, 5 or 6) at least as
/// fast as cuDNN's FP32 pick, and step 1 (1xTF32) at least 80 % of cuDNN TF32's speed; at 8192²,
/// step 3 (banded 3xTF32) faster than lab 07 at K = 13 and 17, and its best banded step (3 or 4)
/// at K = 17 within 0.55 ms and under the FP32 FMA bound of the run. Only rows that ran and passed
/// their check count.
std::vector<GoalCheck> lab08_goal_checks(const nlohmann::json& bench);

/// Joins the sweep's timed JSON (naive_block_sweep --json) with Nsight Compute's CSV of the
/// --once run (launch i of the CSV is launch i of `plan`). A missing or failed ncu run leaves
/// each row's "ncu" as {"unavailable": reason}.
nlohmann::json join_sweep(const nlohmann::json& timed, const nlohmann::json& plan, const std::string& ncu_csv,
                          const std::string& ncu_failure);

/// The metrics the sweep asks Nsight Compute for, in the order of the columns.
std::vector<std::string> sweep_metrics();


/// Writes the pictures' data (.dat) and gnuplot script (bench.gp) into `dir`. @returns the PNG
/// files the script draws: roofline_FAMILY.png (labs01-02, labs03-05, lab07, peers), bars_kNN.png per mask width, sweep.png.
std::vector<std::string> write_plot_files(const nlohmann::json& bench, const std::filesystem::path& dir);

}  // namespace convlab::grader
