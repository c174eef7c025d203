// The benchmarks on the GPU, small: every lab solution and every peer this build has must pass
// the sampled reference check (so that the big run's timings are of correct code), the sweep
// must run every block shape, and `grader bench` must produce its JSON and tables.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "system/subprocess.hpp"
#include "test_paths.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using convlab::grader::ProcessResult;
using convlab::grader::run_process;

namespace {

using convlab::testing::kBin;

json read_json(const fs::path& p) {
  std::ifstream in(p);
  REQUIRE(in);
  return json::parse(in);
}

fs::path fresh_dir(const char* name) {
  const fs::path d = fs::temp_directory_path() / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST_CASE("gpu bench: conv2d_bench checks and times every lab and every peer on odd and even K", "[gpu][bench]") {
  const fs::path dir = fresh_dir("convlab_gpu_bench_conv2d");
  // 300²: not a multiple of any tile; K=4 exercises the even-K placements (lab 07, cuDNN's frame).
  const ProcessResult r = run_process({(kBin / "conv2d_bench").string(), "--sizes", "300", "--masks", "3,4,17",
                                       "--repeats", "3", "--json", (dir / "c.json").string()},
                                      std::chrono::minutes(5));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json j = read_json(dir / "c.json");
  CHECK(j["ceilings"]["copy_bytes_per_s"].get<double>() > 1e11);
  std::set<std::string> methods;
  for (const auto& row : j["results"]) {
    INFO(row.dump());
    methods.insert(row["method"].get<std::string>());
    CHECK_FALSE(row.contains("error"));
    CHECK(row["check"]["ok"].get<bool>());
    CHECK(row["check"]["samples"].get<int>() > 0);
    CHECK(row["ms"].get<double>() > 0);
    CHECK(row["roofline_fraction"].get<double>() > 0);
  }
  // Labs 01-05 at the odd widths only, lab 07 at all three; cuFFT is always built.
  CHECK(methods.count("lab01 no_restrict"));
  CHECK(methods.count("lab05 cached_halo"));  // the lab registry's name, as the runner says
  CHECK(methods.count("lab07 register_tiled"));
  CHECK(methods.count("cuFFT"));
  // CuPy, where python3 here can run it (run and timed in its own process, checked here): else the
  // report says why it is missing.
  bool cupy_missing = false;
  for (const auto& m : j["missing_peers"]) {
    if (m["name"].get<std::string>().rfind("CuPy", 0) == 0) {
      cupy_missing = true;
      CHECK_FALSE(m["reason"].get<std::string>().empty());
    }
  }
  CHECK(cupy_missing != static_cast<bool>(methods.count("CuPy cupyx.scipy.ndimage.correlate")));
  std::size_t lab01_rows = 0;
  for (const auto& row : j["results"]) lab01_rows += row["method"] == "lab01 no_restrict";
  CHECK(lab01_rows == 2);
}

// NVIDIA_TF32_OVERRIDE=0 turns TF32 off inside cuDNN and cuBLAS: a "TF32" row timed under it is
// float32 math (results/bench/nvidia-h200/lab08.md, "The full `grader bench`, 2026-11-30 (morning)").
TEST_CASE("gpu bench: under NVIDIA_TF32_OVERRIDE=0 conv_layer_bench times no library's TF32 row and says why, "
          "and without it times them",
          "[gpu][bench]") {
  const fs::path dir = fresh_dir("convlab_gpu_bench_tf32_override");
  // The measurements of one small layer, by method (the first of each), with `env` before the bench.
  auto bench = [&](const std::vector<std::string>& env, const char* json_name) {
    std::vector<std::string> argv{"/usr/bin/env"};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.insert(argv.end(), {(kBin / "conv_layer_bench").string(), "--layer", "1,8,16,12,12,3,1,1,1", "--no-plans",
                             "--warmup", "0", "--repeats", "2", "--json", (dir / json_name).string()});
    const ProcessResult r = run_process(argv, std::chrono::minutes(3));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const json report = read_json(dir / json_name);  // named: a range over a temporary's member would dangle
    std::map<std::string, json> rows;
    for (const auto& m : report["layers"][0]["measurements"]) rows.emplace(m["method"].get<std::string>(), m);
    for (const char* method : {"cuDNN (FP32 FMA math)", "cuDNN (TF32 tensor cores)", "cuBLAS SGEMM on the unroll",
                               "cuBLAS TF32 on the unroll", "lab 08 step 1 TF32"}) {
      INFO(method);
      REQUIRE(rows.count(method) == 1);
    }
    return rows;
  };
  const std::string cudnn_fp32 = "cuDNN (FP32 FMA math)", cudnn_tf32 = "cuDNN (TF32 tensor cores)",
                    cublas_tf32 = "cuBLAS TF32 on the unroll", lab08_step1 = "lab 08 step 1 TF32";

  const auto off = bench({"NVIDIA_TF32_OVERRIDE=0"}, "off.json");
  const bool have_cudnn = off.at(cudnn_fp32).contains("ms");  // else "not built: CMake found no cuDNN"
  for (const std::string& method : have_cudnn ? std::vector{cublas_tf32, cudnn_tf32} : std::vector{cublas_tf32}) {
    INFO(off.at(method).dump());
    CHECK_FALSE(off.at(method).contains("ms"));
    CHECK_THAT(off.at(method)["error"].get<std::string>(), Catch::Contains("NVIDIA_TF32_OVERRIDE=0"));
  }
  CHECK(off.at("cuBLAS SGEMM on the unroll")["ms"].get<double>() > 0);  // float32 rows run as before
  CHECK(off.at(lab08_step1)["ms"].get<double>() > 0);  // the lab's own PTX: the variable does not reach it

  const auto on = bench({"-u", "NVIDIA_TF32_OVERRIDE"}, "on.json");
  for (const std::string& method : have_cudnn ? std::vector{cublas_tf32, cudnn_tf32} : std::vector{cublas_tf32}) {
    INFO(on.at(method).dump());
    CHECK(on.at(method)["ms"].get<double>() > 0);
  }
}

TEST_CASE("gpu bench: the naive kernel's sweep runs and checks every block shape", "[gpu][bench]") {
  const fs::path dir = fresh_dir("convlab_gpu_bench_sweep");
  const ProcessResult r = run_process({(kBin / "naive_block_sweep").string(), "--size", "333", "--masks", "5",
                                       "--repeats", "3", "--json", (dir / "s.json").string()},
                                      std::chrono::minutes(3));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json j = read_json(dir / "s.json");
  REQUIRE(j["launches"].size() == 14);
  for (const auto& l : j["launches"]) {
    INFO(l.dump());
    CHECK(l["ms"].get<double>() > 0);
  }
  const ProcessResult bad = run_process({(kBin / "naive_block_sweep").string(), "--masks", "4"}, std::chrono::minutes(1));
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("mask width 4 is not one lab 01 takes (1,3,5,7,9,11,13,15,17)") != std::string::npos);
}

TEST_CASE("gpu bench: grader bench writes bench.json, the tables and the gnuplot script", "[gpu][bench]") {
  const fs::path dir = fresh_dir("convlab_gpu_bench_grader");
  const ProcessResult r = run_process({(kBin / "grader").string(), "bench", "--only", "conv2d", "--only", "sweep",
                                       "--sizes", "512", "--masks", "3,9", "--sweep-size", "256", "--sweep-masks", "3",
                                       "--no-ncu", "--out", dir.string()},
                                      std::chrono::minutes(5));
  INFO(r.output);
  CHECK((r.exit_code == 0 || r.output.find("gnuplot") != std::string::npos));
  const json b = read_json(dir / "bench.json");
  CHECK(b["format"] == "convlab-bench");
  CHECK_FALSE(b["device"]["name"].get<std::string>().empty());
  CHECK(b["conv2d"]["results"].size() >= 10);
  CHECK(b["sweep"]["rows"].size() == 14);
  CHECK(b["sweep"]["ncu"]["unavailable"] == "not asked for (--no-ncu)");
  CHECK(fs::exists(dir / "bench.md"));
  CHECK(fs::exists(dir / "summary.md"));
  CHECK(fs::exists(dir / "bench.gp"));
  CHECK(fs::exists(dir / "logs" / "conv2d_bench.log"));
}
