// `grader bench`'s report logic without a GPU: the fastest peer, the ratios, the lab 07 goal,
// the Markdown tables, the Nsight Compute join of the block-size sweep and the gnuplot files
// (rendered for real when gnuplot is installed).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "reports/bench_report.hpp"
#include "system/subprocess.hpp"
#include "system/tool_paths.hpp"

using nlohmann::json;
namespace fs = std::filesystem;
using namespace convlab::grader;

namespace {

json row(const std::string& method, const std::string& kind, int size, int k, double ms) {
  const double px = static_cast<double>(size) * size;
  return {{"method", method},
          {"kind", kind},
          {"height", size},
          {"width", size},
          {"mask_width", k},
          {"ms", ms},
          {"gb_per_s", 8 * px / (ms * 1e-3) / 1e9},
          {"tflop_per_s", 2.0 * k * k * px / (ms * 1e-3) / 1e12},
          {"roofline_fraction", 0.5},
          {"detail", kind == "peer" ? "algo | x" : ""}};
}

json failed(const std::string& method, const std::string& kind, int size, int k) {
  return {{"method", method}, {"kind", kind}, {"height", size}, {"width", size}, {"mask_width", k},
          {"error", "check failed: 3 outputs unwritten"}};
}

json sample_bench() {
  json results = json::array({
      row("lab07 register_tiled", "lab", 1024, 3, 0.010), row("lab01 both_restrict", "lab", 1024, 3, 0.050),
      row("cuFFT", "peer", 1024, 3, 0.100), row("NPP nppiFilterBorder_32f_C1R", "peer", 1024, 3, 0.015),
      failed("cuDNN", "peer", 1024, 3),
      row("lab07 register_tiled", "lab", 1024, 9, 0.200), row("cuFFT", "peer", 1024, 9, 0.180),
      row("lab07 register_tiled", "lab", 2048, 3, 0.030), row("cuDNN", "peer", 2048, 3, 0.100),
  });
  return {{"format", "convlab-bench"},
          {"version", 1},
          {"date", "2026-11-22"},
          {"device", {{"name", "Test GPU X"}, {"compute_capability", "9.0"}, {"sms", 132}}},
          {"clocks", {{"unavailable", "nvidia-smi not found"}}},
          {"ceilings", {{"copy_bytes_per_s", 4e12}, {"fma_flops_per_s", 60e12}}},
          {"conv2d", {{"protocol", {{"warmup", 3}, {"repeats", 20}, {"interior_samples", 1000}}},
                      {"missing_peers", json::array({{{"name", "NPP"}, {"reason", "not built"}}})},
                      {"results", results}}}};
}

/// bench.gp as write_plot_files writes it for `b` into `dir`, emptied first.
std::string plot_script(const json& b, const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_plot_files(b, dir);
  std::ifstream file(dir / "bench.gp");
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("bench: the fastest peer is the quickest peer that ran and passed", "[bench]") {
  const json b = sample_bench();
  const auto p = fastest_peer(b["conv2d"]["results"], 1024, 1024, 3);
  REQUIRE(p);
  CHECK(p->method == "NPP nppiFilterBorder_32f_C1R");  // not the failed cuDNN, not a lab
  CHECK(p->ms == Approx(0.015));
  CHECK_FALSE(fastest_peer(b["conv2d"]["results"], 1024, 1024, 5));
}

TEST_CASE("bench: every timed row gets its ratio to the fastest peer", "[bench]") {
  json b = sample_bench();
  add_peer_ratios(b["conv2d"]["results"]);
  const json& r = b["conv2d"]["results"];
  CHECK(r[0]["x_fastest_peer"].get<double>() == Approx(1.5));   // 0.015 / 0.010
  CHECK(r[1]["x_fastest_peer"].get<double>() == Approx(0.3));   // 0.015 / 0.050
  CHECK(r[3]["x_fastest_peer"].get<double>() == Approx(1.0));   // the fastest peer itself
  CHECK_FALSE(r[4].contains("x_fastest_peer"));                 // did not run
}

TEST_CASE("bench: the lab 07 goal is 2x the fastest peer up to K=7 and never slower", "[bench]") {
  const json b = sample_bench();
  const auto misses = lab07_goal_misses(b);
  REQUIRE(misses.size() == 2);
  CHECK(misses[0].find("K=3: 1.50×") != std::string::npos);  // 1024², below 2×
  CHECK(misses[1].find("K=9: 0.90×") != std::string::npos);  // slower than cuFFT
  // 2048² K=3 is 3.33× cuDNN: no miss. Make 1024² pass too and the list empties.
  json good = b;
  good["conv2d"]["results"][0]["ms"] = 0.005;
  good["conv2d"]["results"][5]["ms"] = 0.150;
  CHECK(lab07_goal_misses(good).empty());
}

namespace {

// A bench.json with lab 08's rows only: one layer, and the 8192² image at K = 13 and 17. Every
// time is 1 ms unless a test sets it; the FMA rate puts K = 17's bound at 1 ms.
json lab08_bench() {
  auto layer_row = [](const std::string& method, double ms) {
    return json{{"method", method}, {"detail", "algo"}, {"ms", ms}, {"tflops", 1.0}, {"bad_outputs", 0},
                {"worst_error_over_allowed", 0.01}};
  };
  const json layer = {{"name", "B8 C128→128 128×128 K3 P1"},
                      {"measurements", json::array({layer_row("cuDNN (FP32 FMA math)", 1.0),
                                                    layer_row("cuDNN (TF32 tensor cores)", 1.0),
                                                    layer_row("lab 08 step 1 TF32", 1.0),
                                                    layer_row("lab 08 step 2 3xTF32", 3.0),
                                                    layer_row("lab 08 step 5 3xTF32 wgmma", 1.0),
                                                    layer_row("lab 08 step 6 TF32+BF16 wgmma", 2.0),
                                                    layer_row("lab 08 step 7 TF32 wgmma", 1.0)})}};
  json results = json::array();
  for (int k : {13, 17}) {
    for (const char* method : {"lab07 register_tiled", "lab08 banded_tf32x3", "lab08 banded_tf32_bf16"}) {
      json r = row(method, "lab", 8192, k, 0.5);
      r["check"] = {{"ok", true}};
      results.push_back(r);
    }
  }
  json b = sample_bench();
  b["ceilings"]["fma_flops_per_s"] = 2.0 * 17 * 17 * 8192.0 * 8192.0 / 1e-3;  // K = 17 in exactly 1 ms
  b["conv2d"]["results"] = results;
  b["layers"] = {{"layers", json::array({layer})}};
  return b;
}

json& layer_row(json& b, const std::string& method) {
  for (auto& m : b["layers"]["layers"][0]["measurements"]) {
    if (m["method"] == method) return m;
  }
  throw std::runtime_error("no row " + method);
}

json& image_row(json& b, const std::string& method, int k) {
  for (auto& r : b["conv2d"]["results"]) {
    if (r["method"] == method && r["mask_width"] == k) return r;
  }
  throw std::runtime_error("no row " + method);
}

GoalCheck::Verdict verdict(const json& b, std::size_t goal) { return lab08_goal_checks(b).at(goal).verdict; }

}  // namespace

TEST_CASE("bench: lab 08's FP32-accurate goal is met at exactly cuDNN's FP32 time by its fastest step, and missed "
          "above it",
          "[bench]") {
  json b = lab08_bench();
  CHECK(verdict(b, 0) == GoalCheck::Verdict::met);  // step 5, 1 ms against 1 ms; steps 2 and 6 slower
  CHECK_THAT(lab08_goal_checks(b)[0].items.at(0), Catch::Contains("1.00× (lab 08 step 5 3xTF32 wgmma 1.000 ms"));
  layer_row(b, "lab 08 step 5 3xTF32 wgmma")["ms"] = 1.001;
  CHECK(verdict(b, 0) == GoalCheck::Verdict::missed);
  layer_row(b, "lab 08 step 6 TF32+BF16 wgmma")["ms"] = 0.9;  // another FP32-accurate step takes its place
  CHECK(verdict(b, 0) == GoalCheck::Verdict::met);
}

TEST_CASE("bench: a step whose outputs failed the check does not count toward lab 08's goals", "[bench]") {
  json b = lab08_bench();
  layer_row(b, "lab 08 step 6 TF32+BF16 wgmma")["ms"] = 0.5;
  layer_row(b, "lab 08 step 6 TF32+BF16 wgmma")["bad_outputs"] = 7;
  layer_row(b, "lab 08 step 5 3xTF32 wgmma")["ms"] = 1.5;
  CHECK(verdict(b, 0) == GoalCheck::Verdict::missed);  // step 6's 0.5 ms is wrong: step 5's 1.5 ms is ours
  image_row(b, "lab08 banded_tf32x3", 13)["ms"] = 0.4;
  image_row(b, "lab08 banded_tf32x3", 17)["ms"] = 0.4;
  CHECK(verdict(b, 2) == GoalCheck::Verdict::met);
  image_row(b, "lab08 banded_tf32x3", 13)["check"]["ok"] = false;
  CHECK(verdict(b, 2) == GoalCheck::Verdict::not_measured);
}

TEST_CASE("bench: step 1 at exactly 80 % of cuDNN TF32's speed meets its goal, and a hair slower misses it", "[bench]") {
  json b = lab08_bench();
  layer_row(b, "cuDNN (TF32 tensor cores)")["ms"] = 0.8;
  CHECK(verdict(b, 1) == GoalCheck::Verdict::met);
  layer_row(b, "lab 08 step 1 TF32")["ms"] = 1.001;
  CHECK(verdict(b, 1) == GoalCheck::Verdict::missed);
  CHECK_THAT(lab08_goal_checks(b)[1].items.at(0), Catch::Contains("0.80×"));
}

TEST_CASE("bench: the fastest-TF32-step goal takes step 7 where step 1 is slower, at exactly 80 % of cuDNN TF32's "
          "speed, and misses when both are slower",
          "[bench]") {
  json b = lab08_bench();
  layer_row(b, "cuDNN (TF32 tensor cores)")["ms"] = 0.8;
  layer_row(b, "lab 08 step 1 TF32")["ms"] = 1.2;
  CHECK(verdict(b, 1) == GoalCheck::Verdict::missed);  // step 1 alone: 0.67×
  CHECK(verdict(b, 4) == GoalCheck::Verdict::met);     // step 7: 1 ms, 0.80×
  CHECK_THAT(lab08_goal_checks(b)[4].items.at(0), Catch::Contains("0.80× (lab 08 step 7 TF32 wgmma 1.000 ms"));
  layer_row(b, "lab 08 step 7 TF32 wgmma")["ms"] = 1.001;
  CHECK(verdict(b, 4) == GoalCheck::Verdict::missed);
  layer_row(b, "lab 08 step 7 TF32 wgmma")["bad_outputs"] = 1;  // a wrong step 7 does not count, even when fast
  layer_row(b, "lab 08 step 7 TF32 wgmma")["ms"] = 0.1;
  CHECK(verdict(b, 4) == GoalCheck::Verdict::missed);
}

TEST_CASE("bench: step 3 must be faster than lab 07 at both K = 13 and 17, and a tie misses", "[bench]") {
  json b = lab08_bench();
  CHECK(verdict(b, 2) == GoalCheck::Verdict::missed);  // 0.5 ms each: not faster
  image_row(b, "lab08 banded_tf32x3", 13)["ms"] = 0.49;
  CHECK(verdict(b, 2) == GoalCheck::Verdict::missed);  // K = 17 still ties
  image_row(b, "lab08 banded_tf32x3", 17)["ms"] = 0.49;
  CHECK(verdict(b, 2) == GoalCheck::Verdict::met);
  image_row(b, "lab08 banded_tf32_bf16", 13)["ms"] = 0.1;  // step 4 does not stand in for step 3
  image_row(b, "lab08 banded_tf32x3", 13)["ms"] = 0.6;
  CHECK(verdict(b, 2) == GoalCheck::Verdict::missed);
}

TEST_CASE("bench: K = 17's goal takes the faster banded step and needs both 0.55 ms and the run's FMA bound",
          "[bench]") {
  json b = lab08_bench();
  CHECK(verdict(b, 3) == GoalCheck::Verdict::met);  // 0.5 ms: under 0.55 and the 1 ms bound
  image_row(b, "lab08 banded_tf32x3", 17)["ms"] = 0.56;
  CHECK(verdict(b, 3) == GoalCheck::Verdict::met);  // step 4's 0.5 ms is the best banded step
  image_row(b, "lab08 banded_tf32_bf16", 17)["ms"] = 0.551;
  CHECK(verdict(b, 3) == GoalCheck::Verdict::missed);  // both over 0.55 ms
  image_row(b, "lab08 banded_tf32_bf16", 17)["ms"] = 0.5;
  b["ceilings"]["fma_flops_per_s"] = 2.0 * 17 * 17 * 8192.0 * 8192.0 / 0.5e-3;  // the bound is 0.5 ms now
  CHECK(verdict(b, 3) == GoalCheck::Verdict::missed);                           // not under it
  CHECK_THAT(lab08_goal_checks(b)[3].items.at(0), Catch::Contains("the FMA bound 0.5000 ms"));
}

TEST_CASE("bench: a goal whose rows are not in the run is not measured, never met, and the report says which",
          "[bench]") {
  json b = lab08_bench();
  b["layers"] = {{"error", "conv_layer_bench ended with killed by signal 11"}};
  b["conv2d"]["results"] = json::array({row("lab07 register_tiled", "lab", 4096, 13, 0.1)});  // a quick run: no 8192²
  for (const GoalCheck& g : lab08_goal_checks(b)) {
    INFO(g.goal);
    CHECK(g.verdict == GoalCheck::Verdict::not_measured);
    REQUIRE_FALSE(g.items.empty());
    CHECK_THAT(g.items[0], Catch::Contains("not measured"));
  }
  json no_cudnn = lab08_bench();
  layer_row(no_cudnn, "cuDNN (TF32 tensor cores)") = {{"method", "cuDNN (TF32 tensor cores)"}, {"detail", ""},
                                                     {"error", "not built: CMake found no cuDNN"}};
  CHECK(verdict(no_cudnn, 1) == GoalCheck::Verdict::not_measured);
  const std::string md = bench_markdown(no_cudnn);
  CHECK_THAT(md, Catch::Contains("## Lab 08's goals (docs/design.md, Targets)"));
  CHECK_THAT(md, Catch::Contains("- **Not measured**: every bench layer: step 1 (1xTF32) at least 80 % of cuDNN TF32's speed."));
  CHECK_THAT(md, Catch::Contains("- **Met**: every bench layer: lab 08's best FP32-accurate step"));
}

TEST_CASE("bench: the summary table names the GPU and the date and gives lab 07 against the peer", "[bench]") {
  const std::string md = bench_summary_markdown(sample_bench());
  CHECK(md.find("**Test GPU X**, 2026-11-22") != std::string::npos);
  CHECK(md.find("| 3 | 0.0100 | 1.50× | 50.0% | 0.0300 | 3.33× | 50.0% |") != std::string::npos);
  CHECK(md.find("| 9 | 0.2000 | 0.90× |") != std::string::npos);
}

TEST_CASE("bench: the full report lists failures with their reason and escapes table cells", "[bench]") {
  json b = sample_bench();
  add_peer_ratios(b["conv2d"]["results"]);
  b["layers"] = {{"error", "conv_layer_bench ended with killed by signal 11"}};
  b["sweep"] = {{"error", "naive_block_sweep could not be started"}};
  const std::string md = bench_markdown(b);
  CHECK(md.find("# Benchmarks on Test GPU X — 2026-11-22") != std::string::npos);
  CHECK(md.find("| 3 | cuDNN | — | — | — | — | — | check failed: 3 outputs unwritten |") != std::string::npos);
  CHECK(md.find("algo \\| x") != std::string::npos);  // '|' in a cell would break the table
  CHECK(md.find("missed in 2 cases") != std::string::npos);
  CHECK(md.find("Peer not in this run: NPP: not built.") != std::string::npos);
  CHECK(md.find("Not measured: conv_layer_bench ended with killed by signal 11") != std::string::npos);
}

TEST_CASE("bench: a layer run on wide values says so, and a transform that breaks the FP32 rule there is marked wrong",
          "[bench]") {
  json b = sample_bench();
  const json cudnn = {{"method", "cuDNN (FP32 FMA math)"}, {"detail", "WINOGRAD_NONFUSED"}, {"ms", 0.117},
                      {"tflops", 63.2}, {"bad_outputs", 1030739}, {"worst_error_over_allowed", 1.47e11}};
  const json step5 = {{"method", "lab 08 step 5 3xTF32 wgmma"}, {"detail", "2 WG, group-tap"}, {"ms", 0.148},
                      {"tflops", 50.0}, {"bad_outputs", 0}, {"worst_error_over_allowed", 0.001}};
  b["layers"] = {{"values", "wide"},
                 {"layers", json::array({{{"name", "B32 C256→256 14×14 K3 P1"}, {"measurements", {cudnn, step5}}}})}};
  const std::string md = bench_markdown(b);
  CHECK(md.find("Values: **wide**") != std::string::npos);
  CHECK(md.find("| cuDNN (FP32 FMA math) | WINOGRAD_NONFUSED | 0.117 | 63.20 | 100% | **1030739 outputs wrong** |") !=
        std::string::npos);
  CHECK(md.find("| lab 08 step 5 3xTF32 wgmma | 2 WG, group-tap | 0.148 | 50.00 | 79% | ok (worst 0.00 of allowed) |") !=
        std::string::npos);
  // The default (and a file written before the option existed): no such line.
  b["layers"].erase("values");
  CHECK(bench_markdown(b).find("Values: **wide**") == std::string::npos);
}

namespace {

std::string ncu_csv(const std::vector<std::pair<std::string, std::string>>& launches) {
  std::string s = "==WARNING== Note: Running with unmodified GPU clocks.\n"
                  "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block "
                  "Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  int id = 0;
  for (const auto& [kernel, time_ns] : launches) {
    auto line = [&](const std::string& metric, const std::string& unit, const std::string& value) {
      s += "\"" + std::to_string(id) + "\",\"1\",\"naive_block_sweep\",\"h\",\"" + kernel +
           "\",\"1\",\"7\",\"(32, 8, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"" + metric +
           "\",\"" + unit + "\",\"" + value + "\"\n";
    };
    line("gpu__time_duration.sum", "nsecond", time_ns);
    line("sm__warps_active.avg.pct_of_peak_sustained_active", "%", "81.5");
    line("sm__maximum_warps_per_active_cycle_pct", "%", "100");
    line("dram__throughput.avg.pct_of_peak_sustained_elapsed", "%", "n/a");
    line("launch__registers_per_thread", "register/thread", "30");
    ++id;
  }
  return s;
}

json launches() {
  return {{"launches", json::array({{{"mask_width", 3}, {"block_x", 32}, {"block_y", 8}, {"ms", 0.3}},
                                    {{"mask_width", 3}, {"block_x", 8}, {"block_y", 8}, {"ms", 0.5}}})}};
}

}  // namespace

TEST_CASE("bench: the sweep joins Nsight Compute's launches in order and checks each instantiation", "[bench]") {
  const std::string csv = ncu_csv({{"void naive_both_restrict<32, 8>(const float *, const float *, float *, int, int, int)", "1,234,000"},
                                   {"void naive_both_restrict<8, 8>(const float *, const float *, float *, int, int, int)", "2,000,000"}});
  const json rows = join_sweep(launches(), launches(), csv, "");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["ncu"]["time_ms"].get<double>() == Approx(1.234));
  CHECK(rows[0]["ncu"]["achieved_occupancy_pct"].get<double>() == Approx(81.5));
  CHECK(rows[0]["ncu"]["registers_per_thread"].get<double>() == Approx(30));
  CHECK(rows[0]["ncu"]["dram_throughput_pct"] == "n/a");  // never a number that was not measured
  CHECK(rows[1]["ncu"]["time_ms"].get<double>() == Approx(2.0));

  SECTION("a launch that is not the expected instantiation is refused") {
    const std::string swapped = ncu_csv({{"void naive_both_restrict<8, 8>(...)", "1"}, {"void naive_both_restrict<32, 8>(...)", "1"}});
    const json r = join_sweep(launches(), launches(), swapped, "");
    CHECK(r[0]["ncu"]["unavailable"].get<std::string>().find("expected the <32, 8> instantiation") != std::string::npos);
  }
  SECTION("a different number of launches makes every row unavailable") {
    const json r = join_sweep(launches(), launches(), ncu_csv({{"void naive_both_restrict<32, 8>(...)", "1"}}), "");
    CHECK(r[1]["ncu"]["unavailable"] == "Nsight Compute profiled 1 launches, the sweep made 2");
  }
  SECTION("a failed profiler run says why") {
    const json r = join_sweep(launches(), json(), "", "ERR_NVGPUCTRPERM: no access");  // no plan was written
    CHECK(r[0]["ncu"]["unavailable"] == "ERR_NVGPUCTRPERM: no access");
    CHECK(r[0]["ms"].get<double>() == Approx(0.3));  // the timing stays
  }
}

TEST_CASE("bench: the pictures' data and script are written, and gnuplot draws them", "[bench]") {
  json b = sample_bench();
  b["sweep"] = {{"size", 1024},
                {"rows", join_sweep(launches(), json::object(), "", "not asked for (--no-ncu)")},
                {"ncu", {{"status", "unavailable"}, {"unavailable", "not asked for (--no-ncu)"}}}};
  const fs::path dir = fs::temp_directory_path() / "convlab_test_bench_plots";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto pngs = write_plot_files(b, dir);
  // One roofline per family of methods that ran at the largest image (2048²: lab 07 and cuDNN).
  CHECK(pngs == std::vector<std::string>{"roofline_lab07.png", "roofline_peers.png", "bars_k03.png", "bars_k09.png",
                                         "sweep.png"});
  {
    std::ifstream gp_file(dir / "bench.gp");
    std::stringstream gp;
    gp << gp_file.rdbuf();
    const std::string text = gp.str();
    const auto lab07 = text.find("set output \"roofline_lab07.png\"");
    const auto peers = text.find("set output \"roofline_peers.png\"");
    REQUIRE(lab07 != std::string::npos);
    REQUIRE(peers != std::string::npos);
    const std::string lab07_plot = text.substr(lab07, peers - lab07);
    CHECK(lab07_plot.find("title 'lab07 register_tiled'") != std::string::npos);
    CHECK(lab07_plot.find("cuDNN") == std::string::npos);  // the peers have a picture of their own
    CHECK(text.find("set output \"roofline.png\"") == std::string::npos);
  }
  std::ifstream roof(dir / "roofline.dat");
  std::stringstream ss;
  ss << roof.rdbuf();
  // The largest image (2048²) only: lab 07 at K=3 is at 2·9/8 flop/byte.
  CHECK(ss.str().find("# lab07 register_tiled\n2.25\t") != std::string::npos);
  CHECK(ss.str().find("# lab01 both_restrict") == std::string::npos);  // not run at 2048²
  CHECK(fs::exists(dir / "bench.gp"));
  const auto gnuplot = find_gnuplot();
  if (!gnuplot) {
    WARN("gnuplot is not installed: the script was written but not rendered");
    return;
  }
  const ProcessResult r = run_process({gnuplot->string(), "bench.gp"}, std::chrono::seconds(120), dir.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  for (const auto& p : pngs) {
    INFO(p);
    CHECK(fs::file_size(dir / p) > 1000);
  }
}

TEST_CASE("bench: the sweep picture is legible on a slide: 16 px text, the key off the curves, few y ticks",
          "[bench]") {
  json b = sample_bench();
  const std::string csv = ncu_csv({{"void naive_both_restrict<32, 8>(...)", "1"}, {"void naive_both_restrict<8, 8>(...)", "1"}});
  b["sweep"] = {{"size", 1024}, {"rows", join_sweep(launches(), launches(), csv, "")}, {"ncu", {{"status", "ok"}}}};
  const fs::path dir = fs::temp_directory_path() / "convlab_test_bench_sweep";
  const std::string all = plot_script(b, dir);
  const auto at = all.find("set output \"sweep.png\"");
  REQUIRE(at != std::string::npos);
  const std::string sweep = all.substr(at);
  // The decks show it at most 470 px high on a 1280x720 slide (slides/theme: figure images up
  // to 520): every font must come out at 16 px or more there.
  std::smatch m;
  REQUIRE(std::regex_search(sweep, m, std::regex(R"re(size (\d+),(\d+) font "DejaVu Sans,(\d+)")re")));
  const double height = std::stod(m[2]);
  const double font = std::stod(m[3]);
  CHECK(font * 470 / height >= 16);
  const std::regex title_font(R"re(font ",(\d+)")re");
  for (auto it = std::sregex_iterator(sweep.begin(), sweep.end(), title_font);
       it != std::sregex_iterator(); ++it) {
    CHECK(std::stod((*it)[1]) >= font);
  }
  // The key lies in a band of its own (screen coordinates), never inside a panel.
  const std::regex key(R"(\nset key[^\n]*)");
  for (auto it = std::sregex_iterator(sweep.begin(), sweep.end(), key);
       it != std::sregex_iterator(); ++it) {
    CHECK_THAT(it->str(), Catch::Contains("at screen"));
  }
  // At most five y ticks per panel: 0.5 ms at most -> 0.2; 81.5 % occupancy -> 25; 30 registers -> 10.
  CHECK_THAT(sweep, Catch::Contains("set title \"time (ms)\"\nset ytics 0.2\n"));
  CHECK_THAT(sweep, Catch::Contains("set title \"achieved occupancy (%)\"\nset ytics 25\n"));
  CHECK_THAT(sweep, Catch::Contains("set title \"registers per thread\"\nset ytics 10\n"));
  // A counter measured for no launch ("n/a" here) gets no panel: gnuplot stops at a plot of nothing.
  CHECK_THAT(sweep, !Catch::Contains("DRAM throughput"));
  const auto gnuplot = find_gnuplot();
  if (!gnuplot) {
    WARN("gnuplot is not installed: the script was written but not rendered");
    return;
  }
  const ProcessResult r = run_process({gnuplot->string(), "bench.gp"}, std::chrono::seconds(120), dir.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(fs::file_size(dir / "sweep.png") > 1000);
}

TEST_CASE("bench: a bar chart gives its bars the canvas: its key above the plot, smaller axis labels, libraries by "
          "short name, and the next picture back at the common size",
          "[bench]") {
  json b = sample_bench();
  b["conv2d"]["results"].push_back(row("CuPy cupyx.scipy.ndimage.correlate", "peer", 1024, 9, 0.300));
  const fs::path dir = fs::temp_directory_path() / "convlab_test_bench_bars";
  const std::string all = plot_script(b, dir);
  const auto at = all.find("set output \"bars_k09.png\"");
  REQUIRE(at != std::string::npos);
  const std::string bars = all.substr(at, all.find("set output", at + 1) - at);  // to the next picture, or the end
  // Inside the plot the key covered the last clusters of bars.
  const std::regex key(R"(\nset key[^\n]*)");
  std::smatch m;
  REQUIRE(std::regex_search(bars, m, key));
  CHECK_THAT(m.str(), Catch::Contains("outside"));
  // Its canvas is larger than the common one and its method names smaller than its text.
  std::smatch size;
  REQUIRE(std::regex_search(bars, size, std::regex(R"re(size (\d+),(\d+) font "DejaVu Sans,(\d+)")re")));
  CHECK(std::stoi(size[1]) > 1100);
  CHECK(std::stoi(size[2]) > 640);
  std::smatch tics;
  REQUIRE(std::regex_search(bars, tics, std::regex(R"re(set xtics rotate by \d+ right font ",(\d+)")re")));
  CHECK(std::stoi(tics[1]) < std::stoi(size[3]));
  // What follows the chart is drawn at the common size again, in the common font.
  const std::string after = bars.substr(bars.find("plot for"));
  CHECK_THAT(after, Catch::Contains("set terminal pngcairo noenhanced size 1100,640 font \"DejaVu Sans,22\"\n"));
  CHECK_THAT(bars, Catch::Contains("set xtics norotate font \"\"\n"));
  // CuPy's function name, like NPP's, would be wider than its cluster of bars.
  std::ifstream dat_file(dir / "bars_k09.dat");
  std::stringstream dat;
  dat << dat_file.rdbuf();
  CHECK_THAT(dat.str(), Catch::Contains("\nCuPy\t"));
  CHECK_THAT(dat.str(), !Catch::Contains("cupyx"));
}

TEST_CASE("bench: a run recorded with the hold says so and names each method timed without it, and an older run "
          "says nothing of it",
          "[bench]") {
  json b = sample_bench();
  const std::string before = bench_markdown(b);
  CHECK(before.find("LaunchHold") == std::string::npos);  // rows without "held": a bench.json from before the hold

  for (auto& r : b["conv2d"]["results"]) r["held"] = true;
  b["conv2d"]["results"][3]["held"] = false;  // NPP
  json held_layer = {{"method", "cuDNN (TF32 tensor cores)"}, {"detail", "x"}, {"ms", 0.2}, {"tflops", 190.0},
                     {"bad_outputs", 0}, {"held", true}};
  json unheld_layer = held_layer;
  unheld_layer["method"] = "a library that synchronizes";
  unheld_layer["held"] = false;
  b["layers"] = {{"layers", json::array({{{"name", "B8 C128→128 128×128"}, {"measurements", {held_layer, unheld_layer}}}})}};
  const std::string md = bench_markdown(b);
  const std::string named = "Timed without it (`held` false in bench.json): ";
  CHECK(md.find(named + "NPP nppiFilterBorder_32f_C1R.") != std::string::npos);
  CHECK(md.find(named + "a library that synchronizes.") != std::string::npos);

  for (auto& r : b["conv2d"]["results"]) r["held"] = true;
  const std::string all_held = bench_markdown(b);
  CHECK(all_held.find("LaunchHold") != std::string::npos);
  CHECK(all_held.find(named + "NPP") == std::string::npos);
}

TEST_CASE("bench: a run without conv2d_bench (grader bench --only layers) says its ceilings were not measured, not "
          "that they were 0",
          "[bench]") {
  json b = sample_bench();
  CHECK_THAT(bench_markdown(b), Catch::Contains("Ceilings measured in the same run: copy **"));
  b["ceilings"] = {{"copy_bytes_per_s", 0}, {"fma_flops_per_s", 0}};  // what --only layers writes
  const std::string md = bench_markdown(b);
  CHECK_THAT(md, Catch::Contains("Ceilings: not measured in this run"));
  CHECK(md.find("copy **0 GB/s**") == std::string::npos);
}
