// Nsight Compute's CSV, as the grader reads it: the real sample from an H200 (thousands
// separators, a warning line, `n/a` metrics), and every way a measurement can be unavailable.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "performance/ncu_profile.hpp"

using namespace convlab::grader;

namespace {

std::string sample() {
  std::ifstream in(std::string(CONVLAB_TEST_DATA_DIR) + "/ncu-2025.3.1-naive3x3.csv");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("ncu: CSV lines with quoted commas", "[grader][ncu]") {
  const auto f = split_csv_line(R"csv("0","void naive<3>(const float *, float *, int)","dram__bytes_read.sum","byte","268,520,960")csv");
  REQUIRE(f.size() == 5);
  CHECK(f[1] == "void naive<3>(const float *, float *, int)");
  CHECK(f[4] == "268,520,960");
  CHECK(split_csv_line(R"("a ""quoted"" word",b)") == std::vector<std::string>{"a \"quoted\" word", "b"});
}

TEST_CASE("ncu: numbers with thousands separators, and n/a is no number", "[grader][ncu]") {
  CHECK(parse_ncu_number("268,520,960").value() == 268520960.0);
  CHECK(parse_ncu_number("31.5").value() == 31.5);
  CHECK_FALSE(parse_ncu_number("n/a"));
  CHECK_FALSE(parse_ncu_number(""));
  CHECK_FALSE(parse_ncu_number("12 MB"));
}

TEST_CASE("ncu: the H200 sample parses, warning line and all", "[grader][ncu]") {
  const std::vector<NcuRow> rows = parse_ncu_csv(sample());
  REQUIRE(rows.size() == 16);  // two launches × eight metrics
  CHECK(rows[0].launch_id == "0");
  CHECK(rows[0].metric == "dram__bytes_read.sum");
  CHECK(rows[0].value == "268,520,960");
  CHECK(rows[5].value == "n/a");
}

TEST_CASE("ncu: a profile sums launches and reports n/a as unavailable, never as a number", "[grader][ncu]") {
  const ProfileResult p = profile_from_ncu("v", sample(), "", 0);
  CHECK(p.unavailable.empty());
  CHECK(p.kernels.size() == 2);
  // DRAM bytes of the two launches in the sample, summed.
  CHECK(p.metrics.at(kMetricDramReadBytes).value.value() == 268520960.0 + 268451072.0);
  CHECK(p.metrics.at(kMetricDivergentBranches).value.value() == 0);
  // The sample did not collect these: they must say so, not read 0.
  const Measured& global = p.metrics.at(kMetricGlobalLoadBytes);
  CHECK_FALSE(global.value);
  CHECK_THAT(global.unavailable, Catch::StartsWith("unavailable:"));
  REQUIRE(p.threads_per_warp_instruction.size() == 2);
  CHECK_FALSE(p.threads_per_warp_instruction[0].value);

  // A metric that reads n/a.
  std::string csv = sample();
  const std::string from = "\"smsp__sass_branch_targets_threads_divergent.sum\",\"branches\",\"0\"";
  csv.replace(csv.find(from), from.size(), "\"smsp__sass_branch_targets_threads_divergent.sum\",\"\",\"n/a\"");
  const ProfileResult q = profile_from_ncu("v", csv, "", 0);
  CHECK_FALSE(q.metrics.at(kMetricDivergentBranches).value);
  CHECK_THAT(q.metrics.at(kMetricDivergentBranches).unavailable, Catch::Contains("\"n/a\""));
}

TEST_CASE("ncu: profiler failures make every column unavailable with the reason", "[grader][ncu]") {
  const ProfileResult perm = profile_from_ncu(
      "v", "", "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters", 1);
  CHECK_THAT(perm.unavailable, Catch::Contains("ERR_NVGPUCTRPERM"));
  for (const auto& [name, m] : perm.metrics) {
    INFO(name);
    CHECK_FALSE(m.value);
    CHECK_THAT(m.unavailable, Catch::StartsWith("unavailable:"));
  }
  const ProfileResult none = profile_from_ncu("v", "==PROF== Disconnected\n", "==WARNING== No kernels were profiled.", 0);
  CHECK_THAT(none.unavailable, Catch::Contains("no kernel"));
  const ProfileResult other = profile_from_ncu("v", "", "==ERROR== Failed to prepare kernel for profiling", 1);
  CHECK_THAT(other.unavailable, Catch::Contains("Failed to prepare kernel"));
  const ProfileResult missing = unavailable_profile("v", "ncu was not found");
  CHECK(missing.unavailable == "unavailable: ncu was not found");
}
