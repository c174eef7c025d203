// Lab 07's host logic, no GPU: configurations and their limits, the tuning file (round trip and
// every malformed-file error), the NVRTC names, ptxas's resource report, the tuner's search space,
// rates and targets, and the heat-map files handed to gnuplot.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <set>

#include "convlab/autotune/ptxas_report.hpp"
#include "convlab/autotune/tuning_file.hpp"
#include "convlab/lab07_config.hpp"
#include "tune/measurement.hpp"
#include "convlab/autotune/search_space.hpp"

using namespace convlab::lab07;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / "convlab-test-lab07" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

json good_file() {
  return json::parse(R"({
    "format": "convlab-lab07-tuning", "version": 1, "device": "NVIDIA H100 80GB HBM3",
    "compute_capability": "9.0",
    "best": [
      {"mask_width": 3, "outputs_x": 4, "outputs_y": 8, "block_x": 32, "block_y": 4, "input": "global", "filter": "shfl"},
      {"mask_width": 17, "outputs_x": 8, "outputs_y": 2, "block_x": 64, "block_y": 2, "input": "shared", "filter": "constant", "rows": "rolled"}
    ],
    "roles": [
      {"role": "shfl", "mask_width": 17, "outputs_x": 8, "outputs_y": 4, "block_x": 32, "block_y": 4, "input": "global", "filter": "shfl"}
    ]
  })");
}

std::string parse_error(const json& j) {
  try {
    (void)parse_tuning(j, "f.json");
  } catch (const TuningError& e) {
    return e.what();
  }
  return "(no error)";
}

// What NVRTC 13.0 printed for two kernels with -Xptxas=-v (the second one spills).
const char* const kPtxasLog = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_ZN7convlab5lab0714register_tiledILi3ELi4ELi8ELi32ELi4ELi0ELi1ELb1ELb0EEEvPKfS3_Pfiii' for 'sm_90'
ptxas info    : Function properties for _ZN7convlab5lab0714register_tiledILi3ELi4ELi8ELi32ELi4ELi0ELi1ELb1ELb0EEEvPKfS3_Pfiii
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 56 registers, used 0 barriers
ptxas info    : Compile time = 11.682 ms
ptxas info    : Compiling entry function '_Z5otherv' for 'sm_90'
ptxas info    : Function properties for _Z5otherv
ptxas         .     1168 bytes stack frame, 1792 bytes spill stores, 3452 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 35328 bytes smem
)";

}  // namespace

TEST_CASE("lab07: every compiled-in default is valid and the defaults cover exactly the supported widths",
          "[lab07]") {
  std::vector<int> ks;
  for (const TileConfig& c : kDefaultConfigs) {
    INFO(c.key());
    CHECK(c.check().empty());
    ks.push_back(c.mask_width);
  }
  CHECK(ks == supported_mask_widths().widths());
  CHECK(default_config(17) != nullptr);
  CHECK(default_config(1) == nullptr);
  CHECK(default_config(8) == nullptr);
  CHECK(mask_supported(2));
  CHECK_FALSE(mask_supported(8));
  CHECK_FALSE(mask_supported(1));
}

TEST_CASE("lab07: a configuration's limits mirror the kernel's static_asserts", "[lab07]") {
  TileConfig c{5, 4, 4, 32, 4, InputPath::global, FilterPath::shfl};
  CHECK(c.check().empty());
  CHECK(c.shared_bytes(true) == 0);
  c.block_x = 33;
  CHECK_THAT(c.check(), Catch::Contains("whole number of warps"));
  c.block_x = 64;
  c.block_y = 32;
  CHECK_THAT(c.check(), Catch::Contains("1024"));
  c = {5, 0, 4, 32, 4, InputPath::global, FilterPath::shfl};
  CHECK_THAT(c.check(), Catch::Contains("outputs per thread"));
  c = {18, 4, 4, 32, 4, InputPath::global, FilterPath::shfl};
  CHECK_THAT(c.check(), Catch::Contains("mask width 18"));

  // Shared tile: (BY·OY+K-1) rows × (chunks+1)·VW floats. K=17, 8x4 outputs, 32x4 threads,
  // VW=4: rows 32, chunks = 2 + (255+8)/4 + 1 = 68, pitch 69·4 floats → 32·276·4 = 35328 bytes
  // (what ptxas reported for that kernel).
  const TileConfig s{17, 8, 4, 32, 4, InputPath::shared, FilterPath::constant};
  CHECK(s.shared_bytes(true) == 35328);
  // Scalar: rows 32, chunks = 8 + 255 + 8 + 1 = 272, pitch 273 → 34944 bytes.
  CHECK(s.shared_bytes(false) == 32 * 273 * 4);
  const TileConfig big{17, 16, 8, 32, 8, InputPath::shared, FilterPath::constant};
  CHECK_THAT(big.check(), Catch::Contains("static shared memory"));
  CHECK(TileConfig{3, 12, 1, 32, 1, InputPath::global, FilterPath::shfl}.vector_width() == 4);
  CHECK(TileConfig{3, 6, 1, 32, 1, InputPath::global, FilterPath::shfl}.vector_width() == 2);
  CHECK(TileConfig{3, 3, 1, 32, 1, InputPath::global, FilterPath::shfl}.vector_width() == 1);
}

TEST_CASE("lab07: NVRTC name expressions", "[lab07]") {
  const TileConfig c{17, 8, 4, 32, 4, InputPath::shared, FilterPath::shfl};
  CHECK(kernel_name({c, true, false}) == "convlab::lab07::register_tiled<17, 8, 4, 32, 4, 1, 1, 0, true, false>");
  CHECK(kernel_name({c, false, true}) == "convlab::lab07::register_tiled<17, 8, 4, 32, 4, 1, 1, 0, false, true>");
  TileConfig r = c;
  r.rows = RowLoop::rolled;
  CHECK(kernel_name({r, true, false}) == "convlab::lab07::register_tiled<17, 8, 4, 32, 4, 1, 1, 1, true, false>");
  // One-float loads: both values of VEC are the same kernel, named once.
  const TileConfig odd{3, 3, 2, 32, 4, InputPath::global, FilterPath::constant};
  CHECK(kernel_name({odd, true, false}) == kernel_name({odd, false, false}));
  CHECK(c.key() == "k17_8x4_b32x4_shared_shfl_unrolled");
}

TEST_CASE("lab07: a tuning file survives a write and a read", "[lab07][tuning]") {
  const TuningTable t = parse_tuning(good_file(), "f.json");
  CHECK(t.device == "NVIDIA H100 80GB HBM3");
  REQUIRE(t.best.size() == 2);
  CHECK(t.best.at(17) == TileConfig{17, 8, 2, 64, 2, InputPath::shared, FilterPath::constant, RowLoop::rolled});
  CHECK(t.best.at(3).rows == RowLoop::unrolled);  // "rows" absent: unrolled
  CHECK(t.roles.at(17).at("shfl").filter == FilterPath::shfl);
  const fs::path dir = fresh_dir("roundtrip");
  write_tuning_file(dir / "sub" / "t.json", t);
  CHECK_FALSE(fs::exists(dir / "sub" / "t.json.tmp"));
  const TuningTable back = read_tuning_file(dir / "sub" / "t.json");
  CHECK(back.device == t.device);
  CHECK(back.compute_capability == "9.0");
  CHECK(back.best == t.best);
  CHECK(back.roles == t.roles);
  CHECK_FALSE(back.kernel);  // a file that does not say which kernel it tuned
  // The kernel it tuned survives too.
  TuningTable k = t;
  k.kernel = KernelSourceId{"labs", "labs/07-register-tiling/register_tiling_kernel.cuh", "0123456789abcdef"};
  write_tuning_file(dir / "k.json", k);
  const TuningTable kb = read_tuning_file(dir / "k.json");
  REQUIRE(kb.kernel);
  CHECK(kb.kernel->origin == "labs");
  CHECK(kb.kernel->path == "labs/07-register-tiling/register_tiling_kernel.cuh");
  CHECK(kb.kernel->hash == "0123456789abcdef");
}

TEST_CASE("lab07: every malformed tuning file is refused with the reason", "[lab07][tuning]") {
  json j = good_file();
  j["format"] = "something";
  CHECK_THAT(parse_error(j), Catch::Contains("\"format\""));
  j = good_file();
  j["version"] = 2;
  CHECK_THAT(parse_error(j), Catch::Contains("version"));
  j = good_file();
  j.erase("device");
  CHECK_THAT(parse_error(j), Catch::Contains("\"device\""));
  j = good_file();
  j["best"][0].erase("outputs_y");
  CHECK_THAT(parse_error(j), Catch::Contains("best[0]: missing \"outputs_y\""));
  j = good_file();
  j["best"][1]["input"] = "texture";
  CHECK_THAT(parse_error(j), Catch::Contains("best[1]: input \"texture\""));
  j = good_file();
  j["best"][1]["filter"] = 3;
  CHECK_THAT(parse_error(j), Catch::Contains("\"filter\" is not a string"));
  j = good_file();
  j["best"][1]["rows"] = "sideways";
  CHECK_THAT(parse_error(j), Catch::Contains("rows \"sideways\""));
  j = good_file();
  j["best"][0]["block_x"] = 20;
  CHECK_THAT(parse_error(j), Catch::Contains("whole number of warps"));
  j = good_file();
  j["best"][0]["mask_width"] = 8;
  CHECK_THAT(parse_error(j), Catch::Contains("mask width 8"));
  j = good_file();
  j["best"][1]["mask_width"] = 3;
  CHECK_THAT(parse_error(j), Catch::Contains("appears twice"));
  j = good_file();
  j["roles"][0]["role"] = "texture";
  CHECK_THAT(parse_error(j), Catch::Contains("unknown role"));
  j = good_file();
  j["roles"][0]["filter"] = "constant";
  CHECK_THAT(parse_error(j), Catch::Contains("does not take the shfl path"));
  j = good_file();
  j["kernel"] = {{"origin", "labs"}, {"path", "k.cuh"}};
  CHECK_THAT(parse_error(j), Catch::Contains("kernel: missing the string \"hash\""));
  j["kernel"]["hash"] = "xyz";
  CHECK_THAT(parse_error(j), Catch::Contains("kernel: hash \"xyz\" is not 16 hex digits"));
  j["kernel"] = "labs";
  CHECK_THAT(parse_error(j), Catch::Contains("kernel: not an object"));

  const fs::path dir = fresh_dir("malformed");
  std::ofstream(dir / "bad.json") << "{ not json";
  CHECK_THROWS_WITH(read_tuning_file(dir / "bad.json"), Catch::Contains("not valid JSON"));
  CHECK_THROWS_WITH(read_tuning_file(dir / "missing.json"), Catch::Contains("missing.json: cannot open: No such file or directory"));
}

TEST_CASE("lab07: device slugs and the default tuning path", "[lab07][tuning]") {
  CHECK(device_slug("NVIDIA H100 80GB HBM3") == "nvidia-h100-80gb-hbm3");
  CHECK(device_slug("  NVIDIA  H200 ") == "nvidia-h200");
  CHECK(device_slug("") == "unknown-gpu");
  CHECK(default_tuning_path("/x/build/bin", "NVIDIA H200") == fs::path("/x/build/tuning/lab07-nvidia-h200.json"));
  // The student's kernel and the reference each have their own file and report folder.
  CHECK(default_tuning_path("/x/build/bin", "NVIDIA H200", "labs") == fs::path("/x/build/tuning/lab07-nvidia-h200.json"));
  CHECK(default_tuning_path("/x/build/bin", "NVIDIA H200", "solutions") ==
        fs::path("/x/build/tuning/solution07-nvidia-h200.json"));
  CHECK(default_report_dir("/x/build/bin", "NVIDIA H200", "solutions") == fs::path("/x/build/tuning/solution07-nvidia-h200"));
  CHECK(default_report_dir("/x/build/bin", "NVIDIA H200") == fs::path("/x/build/tuning/lab07-nvidia-h200"));
}

TEST_CASE("lab07: step 2's path and the instantiations the lab's variants use", "[lab07]") {
  const TileConfig shared{9, 12, 2, 32, 8, InputPath::shared, FilterPath::constant, RowLoop::unrolled};
  const TileConfig loaded = force_path(shared, "loaded");
  CHECK(loaded.filter == FilterPath::loaded);
  CHECK(loaded.input == InputPath::global);  // step 2 is global→register
  CHECK(std::string(filter_name(FilterPath::loaded)) == "loaded");
  // Every variant's configuration is among the instantiations the tuner warms (vector and scalar).
  const TileConfig best = *default_config(5);
  std::set<std::string> names;
  for (const KernelVariant& v : lab_instantiations(best, {})) names.insert(kernel_name(v));
  for (const char* role : {"loaded", "shfl", "constant", "shared"}) {
    INFO(role);
    CHECK(names.count(kernel_name({force_path(best, role), true, false})));
    CHECK(names.count(kernel_name({force_path(best, role), false, false})));
  }
  CHECK(names.count(kernel_name({best, true, false})));
}

TEST_CASE("lab07: ptxas's resource report is read per function", "[lab07]") {
  const ResourceUsage a = parse_ptxas_report(
      kPtxasLog, "_ZN7convlab5lab0714register_tiledILi3ELi4ELi8ELi32ELi4ELi0ELi1ELb1ELb0EEEvPKfS3_Pfiii");
  CHECK(a.found);
  CHECK(a.registers == 56);
  CHECK(a.stack_bytes == 0);
  CHECK_FALSE(a.spills());
  const ResourceUsage b = parse_ptxas_report(kPtxasLog, "_Z5otherv");
  CHECK(b.found);
  CHECK(b.registers == 255);
  CHECK(b.stack_bytes == 1168);
  CHECK(b.spill_stores == 1792);
  CHECK(b.spill_loads == 3452);
  CHECK(b.shared_bytes == 35328);
  CHECK(b.spills());
  const ResourceUsage first = parse_ptxas_report(kPtxasLog, "");
  CHECK(first.registers == 56);
  CHECK_FALSE(parse_ptxas_report(kPtxasLog, "_Z7missingv").found);
  CHECK_FALSE(parse_ptxas_report("", "").found);
}

TEST_CASE("lab07: the tuner's search space", "[lab07][tune]") {
  const auto heat = heatmap_configs(11, FilterPath::shfl, false);
  CHECK(heat.size() == heatmap_outputs_x(false).size() * heatmap_outputs_y(false).size());
  // Rolled rows: every cell can be built, K=17 16x8 included.
  CHECK(heatmap_configs(17, FilterPath::constant, false).size() == heat.size());
  CHECK(too_big_to_build({17, 16, 8, 32, 4, InputPath::global, FilterPath::constant, RowLoop::unrolled}));
  CHECK_FALSE(too_big_to_build({17, 16, 8, 32, 4, InputPath::global, FilterPath::constant, RowLoop::rolled}));
  for (const TileConfig& c : heat) {
    CHECK(c.check().empty());
    CHECK(c.filter == FilterPath::shfl);
    CHECK(c.block_x == 32);
  }
  for (const TileConfig& c : heat) CHECK(c.rows == RowLoop::rolled);
  for (const TileConfig& c : heatmap_configs(5, FilterPath::shfl, false)) CHECK(c.rows == RowLoop::unrolled);
  const TileConfig seed{17, 16, 8, 32, 4, InputPath::global, FilterPath::constant, RowLoop::rolled};
  const auto refined = refine_configs({seed, seed}, false);
  for (const TileConfig& c : refined) CHECK(c.check().empty());
  for (std::size_t i = 0; i < refined.size(); ++i) {
    for (std::size_t j = i + 1; j < refined.size(); ++j) CHECK(refined[i] != refined[j]);
  }
  // 16x8 outputs at K=17 is too big to build unrolled: only the rolled block shapes remain.
  CHECK(refined.size() == refine_blocks(false).size());
  for (const TileConfig& c : refined) CHECK(c.rows == RowLoop::rolled);
  const auto small = refine_configs({TileConfig{5, 4, 4, 32, 4, InputPath::global, FilterPath::shfl, RowLoop::rolled}}, false);
  CHECK(small.size() == 2 * refine_blocks(false).size());
  const auto paths = path_configs({17, 8, 4, 32, 4, InputPath::global, FilterPath::constant, RowLoop::rolled});
  CHECK(paths.size() == 4);  // 2 inputs x 2 filters, the 35 KB shared tile fits
  const auto big_paths = path_configs({17, 16, 4, 32, 8, InputPath::global, FilterPath::constant, RowLoop::rolled});
  CHECK(big_paths.size() == 2);  // the shared tile would not fit
  CHECK(baseline_config(5).out_x == 1);
  CHECK(baseline_config(5).out_y == 1);

  CHECK(parse_mask_list("all") == supported_mask_widths().widths());
  CHECK(parse_mask_list("17,3") == std::vector<int>{3, 17});
  CHECK_THROWS_WITH(parse_mask_list("17,3,3"), Catch::Contains("mask width 3 is given twice"));
  CHECK_THROWS_WITH(parse_mask_list("3,x"), Catch::Contains("'x' is not a mask width"));
  CHECK_THROWS_WITH(parse_mask_list("3,8"), Catch::Contains("mask width 8"));
  CHECK_THROWS_WITH(parse_mask_list("3,"), Catch::Contains("is not a mask width"));
}

TEST_CASE("lab07: rates and the targets of docs/design.md, Targets", "[lab07][tune]") {
  const Peaks peaks{3.0e12, 60e12};
  // 8192², K=3 in exactly the bandwidth-bound time: 8·2^26 bytes / 3 TB/s.
  const double t_bw_ms = 8.0 * 8192 * 8192 / 3.0e12 * 1e3;
  const Rates r = rates_for(t_bw_ms, 8192, 8192, 3, peaks);
  CHECK(r.bw_bound_pct == Approx(100));
  CHECK(r.gb_per_s == Approx(3000));
  CHECK(r.roofline_pct == Approx(100));
  CHECK(r.fma_peak_pct == Approx(100.0 * (18.0 * 8192 * 8192 / 60e12) / (t_bw_ms * 1e-3)));
  // K=17 in twice the compute-bound time: 50% of the FMA peak and of the roofline.
  const double t_fma_ms = 2.0 * 578.0 * 8192 * 8192 / 60e12 * 1e3;
  const Rates q = rates_for(t_fma_ms, 8192, 8192, 17, peaks);
  CHECK(q.fma_peak_pct == Approx(50));
  CHECK(q.roofline_pct == Approx(50));
  CHECK(q.tflop_per_s == Approx(30));

  CHECK(std::string(target_for(3).metric) == "bandwidth bound");
  CHECK(target_for(5).percent == 90);
  CHECK(target_for(7).percent == 80);
  CHECK(std::string(target_for(9).metric) == "roofline");
  CHECK(target_for(9).percent == 70);
  CHECK(std::string(target_for(13).metric) == "FMA peak");
  CHECK(target_for(17).percent == 75);
  CHECK_FALSE(target_for(4).exists());
  CHECK(target_for(3).met(r));
  CHECK_FALSE(target_for(17).met(q));
  CHECK(target_for(4).met(q));  // no target: nothing to miss
}

TEST_CASE("lab07: heat-map data and the gnuplot script", "[lab07][tune]") {
  const Peaks peaks{3.0e12, 60e12};
  std::vector<Measurement> ms;
  Measurement ok;
  ok.variant = {{11, 4, 2, 32, 4, InputPath::global, FilterPath::constant, RowLoop::rolled}, true, false};
  ok.stage = "heatmap";
  ok.status = "ok";
  ok.ms = 2.0 * 242.0 * 8192 * 8192 / 60e12 * 1e3 * 2;  // 25% of the FMA peak
  ms.push_back(ok);
  Measurement spill = ok;
  spill.variant.config.out_x = 16;
  spill.variant.config.out_y = 8;
  spill.status = "spills";
  ms.push_back(spill);
  Measurement failed = ok;
  failed.variant.config.out_x = 1;
  failed.variant.config.out_y = 1;
  failed.status = "compile error";
  failed.ms.reset();
  ms.push_back(failed);
  const std::string data = heatmap_data(11, ms, 8192, 8192, peaks, false);
  // Columns: ix iy outputs_x outputs_y utilization label; constant filter is data block 1.
  CHECK_THAT(data, Catch::Contains("2 1 4 2 25.0 \"25\""));
  CHECK_THAT(data, Catch::Contains("5 5 16 8 NaN \"25 spill\""));
  CHECK_THAT(data, Catch::Contains("0 0 1 1 NaN \"n/a\""));
  CHECK_THAT(data, Catch::Contains("2 1 4 2 NaN \"-\""));  // the shfl block: not measured
  const std::string script = heatmap_gnuplot_script({3, 11}, "NVIDIA H200", false);
  CHECK_THAT(script, Catch::Contains("set output \"heatmap_k03.png\""));
  CHECK_THAT(script, Catch::Contains("set output \"heatmap_k11.png\""));
  CHECK_THAT(script, Catch::Contains("\"heatmap_k11.dat\" index 1"));
  CHECK_THAT(script, Catch::Contains("NVIDIA H200"));

  const std::string row = csv_row(ok, 8192, 8192, peaks);
  const std::string header = csv_header();
  CHECK(std::count(row.begin(), row.end(), ',') == std::count(header.begin(), header.end(), ','));
  CHECK(fastest(ms, [](const Measurement&) { return true; }) == &ms[0]);
}
