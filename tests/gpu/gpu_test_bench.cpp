// The benchmarks on the GPU, small: every lab solution and every peer this build has must pass
// the sampled reference check (so that the big run's timings are of correct code), the sweep
// must run every block shape, and `grader bench` must produce its JSON and tables.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

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
  std::size_t lab01_rows = 0;
  for (const auto& row : j["results"]) lab01_rows += row["method"] == "lab01 no_restrict";
  CHECK(lab01_rows == 2);
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
