// Lab 07's skeleton against the solution, as text (no GPU): both kernel files mark the same five
// steps with the same titles; outside the marked code they are the same file, so a student who
// fills every step has the solution's kernel; the launchers are one file in both folders; every
// step of the skeleton is marked unwritten and none of the solution's. The GPU test
// (tests/gpu/gpu_test_lab07_steps.cpp) builds and grades the skeleton with the steps spliced in.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <regex>

#include "convlab/autotune/kernel_source.hpp"
#include "convlab/lab_registry.hpp"
#include "tune/tuner.hpp"
#include "step_splice.hpp"

using namespace convlab;
using namespace convlab::testing;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = CONVLAB_SOURCE_DIR;
const fs::path kLab = kSource / "labs" / "07-register-tiling";
const fs::path kSolution = kSource / "solutions" / "07-register-tiling";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The file from its `#pragma once` on: the header comments of the two kernel files differ (one
// is the assignment, the other the reference's notes), the code does not.
std::string code_of(const std::string& text) {
  const std::size_t at = text.find("#pragma once");
  REQUIRE(at != std::string::npos);
  return text.substr(at);
}

}  // namespace

TEST_CASE("lab07 skeleton: the skeleton and the solution mark the same five steps", "[lab07][skeleton]") {
  const auto skeleton = find_steps(read(kLab / "register_tiling_kernel.cuh"), "skeleton");
  const auto solution = find_steps(read(kSolution / "register_tiling_kernel.cuh"), "solution");
  REQUIRE(skeleton.size() == 5);
  REQUIRE(solution.size() == 5);
  for (const char* n : {"1", "2", "3", "4", "5"}) {
    INFO("step " << n);
    REQUIRE(skeleton.count(n));
    REQUIRE(solution.count(n));
    CHECK(skeleton.at(n).title == solution.at(n).title);
  }
  CHECK(skeleton.at("1").title == "one output per thread");
  CHECK(skeleton.at("2").title == "x×y outputs per thread");
  CHECK(skeleton.at("3").title == "the filter through __shfl_sync");
  CHECK(skeleton.at("4").title == "the filter in constant memory");
}

TEST_CASE("lab07 skeleton: outside the step markers the skeleton is the solution's code", "[lab07][skeleton]") {
  const std::string skeleton = read(kLab / "register_tiling_kernel.cuh");
  const std::string solution = read(kSolution / "register_tiling_kernel.cuh");
  CHECK(code_of(without_step_bodies(skeleton, "skeleton")) == code_of(without_step_bodies(solution, "solution")));
  // Every step spliced in: the solution's code, character for character.
  CHECK(code_of(splice_steps(skeleton, solution, {"1", "2", "3", "4", "5"})) == code_of(solution));
  // One step spliced: that step's code, and the others still the skeleton's.
  const std::string one = splice_steps(skeleton, solution, {"3"});
  CHECK(code_of(one) != code_of(solution));
  CHECK(find_steps(one, "spliced").at("2").title == "x×y outputs per thread");
  CHECK(one.find("constexpr bool kStep3Written = true;") != std::string::npos);
  CHECK(one.find("constexpr bool kStep2Written = false;") != std::string::npos);
}

TEST_CASE("lab07 skeleton: the launchers of labs/ and solutions/ are the same file", "[lab07][skeleton]") {
  CHECK(read(kLab / "register_tiling.cu") == read(kSolution / "register_tiling.cu"));
}

TEST_CASE("lab07 skeleton: every step of the skeleton is marked unwritten, none of the solution's",
          "[lab07][skeleton]") {
  CHECK(lab07::unwritten_steps(read(kLab / "register_tiling_kernel.cuh")) == std::vector<int>{1, 2, 3, 4, 5});
  CHECK(lab07::unwritten_steps(read(kSolution / "register_tiling_kernel.cuh")).empty());
  CHECK(lab07::unwritten_steps("constexpr bool kStep2Written = true;\n  constexpr   bool kStep4Written=false ;") ==
        std::vector<int>{4});
}

TEST_CASE("lab07 skeleton: malformed step markers are refused, naming the step", "[lab07][skeleton]") {
  const std::string begin = "// ==== BEGIN STEP 2: x ====\n";
  const std::string end = "// ==== END STEP 2 ====\n";
  CHECK_THROWS_WITH(find_steps(begin + "code\n", "f"), Catch::Contains("f: step 2 is never closed"));
  CHECK_THROWS_WITH(find_steps(end, "f"), Catch::Contains("END STEP 2 without its BEGIN"));
  CHECK_THROWS_WITH(find_steps(begin + end + begin + end, "f"), Catch::Contains("step 2 is marked twice"));
  CHECK_THROWS_WITH(find_steps(begin + "// ==== BEGIN STEP 3: y ====\n", "f"), Catch::Contains("step 3 begins inside step 2"));
  CHECK_THROWS_WITH(splice_steps(begin + end, "// ==== BEGIN STEP 2: other ====\n" + end, {"2"}),
                    Catch::Contains("step 2 is \"x\" in the skeleton but \"other\" in the solution"));
  CHECK_THROWS_WITH(splice_steps(begin + end, begin + end, {"5"}), Catch::Contains("the solution marks no step 5"));
  CHECK(splice_steps(begin + "stub\n" + end, begin + "done\n" + end, {"2"}) == begin + "done\n" + end);
}

TEST_CASE("lab07 skeleton: a kernel's hash names its text", "[lab07][tuning]") {
  const lab07::KernelSource a = lab07::read_kernel_source(kLab / "register_tiling_kernel.cuh", "labs");
  const lab07::KernelSource b = lab07::read_kernel_source(kSolution / "register_tiling_kernel.cuh", "solutions");
  CHECK(a.hash.size() == 16);
  CHECK(a.hash != b.hash);
  CHECK(a.origin == "labs");
  CHECK(lab07::read_kernel_source(kLab / "register_tiling_kernel.cuh", "file").hash == a.hash);
  CHECK_THROWS_WITH(lab07::read_kernel_source(kLab / "nothing.cuh", "labs"), Catch::Contains("nothing.cuh"));
}

TEST_CASE("lab07 skeleton: the README's run command names exactly the public mask widths lab 07 skips",
          "[lab07][docs]") {
  // The widths of the public conv2d cases that lab 07's row of the lab registry does not take.
  const convlab::MaskWidths takes = convlab::labs::find_lab(7)->mask_widths;
  std::set<int> skipped;
  for (const auto& entry : fs::directory_iterator(kSource / "datasets" / "conv2d")) {
    const int k = nlohmann::json::parse(read(entry.path() / "case.json")).at("shape").at("mask_width").get<int>();
    if (!takes.contains(k)) skipped.insert(k);
  }
  REQUIRE(!skipped.empty());
  // The README's line "build/bin/lab07 datasets/conv2d   # every public case, every step (K=... skipped)".
  const std::string readme = read(kLab / "README.md");
  const std::regex line(R"(build/bin/lab07 datasets/conv2d +# every public case, every step \(([^)]*)\))");
  std::smatch m;
  REQUIRE(std::regex_search(readme, m, line));
  const std::string said = m[1];
  std::set<int> named;
  const std::regex width(R"(K ?= ?(\d+))");
  for (auto it = std::sregex_iterator(said.begin(), said.end(), width); it != std::sregex_iterator(); ++it) {
    named.insert(std::stoi((*it)[1]));
  }
  INFO("README: (" << said << ")");
  CHECK(named == skipped);
}
