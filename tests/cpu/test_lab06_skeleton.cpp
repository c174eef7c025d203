// Lab 06's stubs against the solution, as text (no GPU): each file with steps marks the same steps
// with the same titles in both folders; outside the marked code the two are the same file (the
// solution's launcher files add, after a "Beyond the lab" line, what the benchmark and the tests
// call), so a student who writes what each step's stub says has the reference's code, and its
// speed; the stubs mark every step unwritten and the solution none. The GPU test
// (tests/gpu/gpu_test_lab06_steps.cpp) builds and grades the stubs with the steps spliced in.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "step_splice.hpp"

using namespace convlab::testing;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = CONVLAB_SOURCE_DIR;
const fs::path kLab = kSource / "labs" / "06-im2col";
const fs::path kSolution = kSource / "solutions" / "06-im2col";

// Every file of lab 06 that has steps, and the steps it marks.
const std::map<std::string, std::set<std::string>> kStepsOfFile{
    {"unroll_gemm.cu", {"1"}},         {"fused_gemm.cu", {"2"}},          {"implicit_gemm.cuh", {"3a"}},
    {"register_tiles.cuh", {"3a"}},    {"transposed_float4.cuh", {"3b"}}, {"async_copies.cuh", {"3c"}},
    {"register_tiled_gemm.cu", {"3d"}},
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("lab06 skeleton: the stubs and the solution mark the same steps with the same titles", "[lab06][skeleton]") {
  for (const auto& [file, ids] : kStepsOfFile) {
    INFO(file);
    const auto stub = find_steps(read(kLab / file), "labs/06-im2col/" + file);
    const auto solution = find_steps(read(kSolution / file), "solutions/06-im2col/" + file);
    std::set<std::string> stub_ids, solution_ids;
    for (const auto& [id, region] : stub) stub_ids.insert(id);
    for (const auto& [id, region] : solution) solution_ids.insert(id);
    CHECK(stub_ids == ids);
    CHECK(solution_ids == ids);
    for (const std::string& id : ids) {
      if (stub.count(id) && solution.count(id)) CHECK(stub.at(id).title == solution.at(id).title);
    }
  }
  CHECK(find_steps(read(kLab / "register_tiles.cuh"), "f").at("3a").title == "register tiles");
  CHECK(find_steps(read(kLab / "transposed_float4.cuh"), "f").at("3b").title == "transposed As, float4");
  CHECK(find_steps(read(kLab / "async_copies.cuh"), "f").at("3c").title == "async copies");
  CHECK(find_steps(read(kLab / "register_tiled_gemm.cu"), "f").at("3d").title == "tile choice and split-K");
}

TEST_CASE("lab06 skeleton: outside the step markers each stub is the solution's code", "[lab06][skeleton]") {
  for (const auto& [file, ids] : kStepsOfFile) {
    INFO(file);
    const std::string stub = read(kLab / file);
    const std::string solution = read(kSolution / file);
    CHECK(code_of(without_step_bodies(stub, "stub"), file) == code_of(without_step_bodies(solution, "solution"), file));
    // Every step spliced in: the solution's code, character for character.
    CHECK(code_of(splice_all_steps(stub, solution), file) == code_of(solution, file));
  }
  // One step spliced: that step's code; the others are still the stub's.
  const std::string stub = read(kLab / "register_tiles.cuh");
  const std::string one = splice_steps(stub, read(kSolution / "register_tiles.cuh"), {"3a"});
  CHECK(one != stub);
  CHECK(written_flags(one).at("3a"));
}

TEST_CASE("lab06 skeleton: every step of the stubs is marked unwritten, none of the solution's", "[lab06][skeleton]") {
  std::map<std::string, bool> stub, solution;
  for (const auto& [file, ids] : kStepsOfFile) {
    for (const auto& [id, w] : written_flags(read(kLab / file))) stub[id] = w;
    for (const auto& [id, w] : written_flags(read(kSolution / file))) solution[id] = w;
  }
  const std::map<std::string, bool> none{{"1", false}, {"2", false}, {"3a", false},
                                         {"3b", false}, {"3c", false}, {"3d", false}};
  const std::map<std::string, bool> all{{"1", true}, {"2", true}, {"3a", true}, {"3b", true}, {"3c", true}, {"3d", true}};
  CHECK(stub == none);
  CHECK(solution == all);
}

TEST_CASE("lab06 skeleton: the lab folder holds no file the solution lacks, but the stretch step's stub",
          "[lab06][skeleton]") {
  for (const auto& entry : fs::directory_iterator(kLab)) {
    const std::string name = entry.path().filename().string();
    const std::string ext = entry.path().extension().string();
    if (ext != ".cu" && ext != ".cuh") continue;
    INFO(name);
    CHECK(fs::exists(kSolution / name));
    if (name != "tf32_gemm.cu") CHECK(kStepsOfFile.count(name) == 1);  // every other source has steps
  }
}
