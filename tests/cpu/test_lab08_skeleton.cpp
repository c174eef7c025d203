// Lab 08's stubs against the solution, as text (no GPU): tensor_core_gemm.cuh marks steps 1 and 2,
// banded_conv2d.cuh steps 3 and 4, wgmma_gemm.cuh steps 5 and 6, tf32_wgmma_gemm.cuh step 7, with
// the same titles in both folders, and each is the same code outside them; the given files (layer_tiles.cuh, nhwc_tiles.cuh,
// kernel_overlap.cuh, weight_order.cuh, mma_tf32.cuh, mma_bf16.cuh, ldmatrix.cuh, wgmma_tf32.cuh,
// wgmma_bf16.cuh, patch_conv2d.cuh, the launchers tensor_cores.cu and banded_conv2d.cu) are the solution's code; the
// stub marks every step unwritten and the solution none. The GPU test
// (tests/gpu/gpu_test_lab08.cpp) builds and grades the stub with the steps spliced in.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "convlab/file_reader.hpp"
#include "convlab/limits.hpp"
#include "step_splice.hpp"

using namespace convlab::testing;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = CONVLAB_SOURCE_DIR;
const fs::path kLab = kSource / "labs" / "08-tensor-cores";
const fs::path kSolution = kSource / "solutions" / "08-tensor-cores";

std::string read(const fs::path& p) { return convlab::read_file(p, convlab::kMaxTextFileBytes); }

}  // namespace

TEST_CASE("lab08 skeleton: the stub and the solution mark steps 1 to 7 with the same titles", "[lab08][skeleton]") {
  const auto stub = find_steps(read(kLab / "tensor_core_gemm.cuh"), "stub");
  const auto solution = find_steps(read(kSolution / "tensor_core_gemm.cuh"), "solution");
  REQUIRE(stub.size() == 2);
  REQUIRE(solution.size() == 2);
  CHECK(stub.at("1").title == "TF32 fragments and MMAs");
  CHECK(stub.at("2").title == "3xTF32");
  CHECK(solution.at("1").title == stub.at("1").title);
  CHECK(solution.at("2").title == stub.at("2").title);
  const auto stub3 = find_steps(read(kLab / "banded_conv2d.cuh"), "stub");
  const auto solution3 = find_steps(read(kSolution / "banded_conv2d.cuh"), "solution");
  REQUIRE(stub3.size() == 2);
  REQUIRE(solution3.size() == 2);
  CHECK(stub3.at("3").title == "banded 3xTF32");
  CHECK(stub3.at("4").title == "the small products in BF16");
  CHECK(solution3.at("3").title == stub3.at("3").title);
  CHECK(solution3.at("4").title == stub3.at("4").title);
  const auto stub5 = find_steps(read(kLab / "wgmma_gemm.cuh"), "stub");
  const auto solution5 = find_steps(read(kSolution / "wgmma_gemm.cuh"), "solution");
  REQUIRE(stub5.size() == 2);
  REQUIRE(solution5.size() == 2);
  CHECK(stub5.at("5").title == "3xTF32 on wgmma");
  CHECK(stub5.at("6").title == "step 4's small products on wgmma");
  CHECK(solution5.at("5").title == stub5.at("5").title);
  CHECK(solution5.at("6").title == stub5.at("6").title);
  const auto stub7 = find_steps(read(kLab / "tf32_wgmma_gemm.cuh"), "stub");
  const auto solution7 = find_steps(read(kSolution / "tf32_wgmma_gemm.cuh"), "solution");
  REQUIRE(stub7.size() == 1);
  REQUIRE(solution7.size() == 1);
  CHECK(stub7.at("7").title == "step 1 on wgmma");
  CHECK(solution7.at("7").title == stub7.at("7").title);
}

TEST_CASE("lab08 skeleton: outside the step markers the stub is the solution's code, and so is every given file",
          "[lab08][skeleton]") {
  for (const char* file : {"tensor_core_gemm.cuh", "banded_conv2d.cuh", "wgmma_gemm.cuh", "tf32_wgmma_gemm.cuh"}) {
    INFO(file);
    const std::string stub = read(kLab / file);
    const std::string solution = read(kSolution / file);
    CHECK(code_of(without_step_bodies(stub, "stub"), "stub") == code_of(without_step_bodies(solution, "solution"), "solution"));
    CHECK(code_of(splice_all_steps(stub, solution), "spliced") == code_of(solution, "solution"));
  }
  for (const char* given :
       {"layer_tiles.cuh", "nhwc_tiles.cuh", "tma_feed.cuh", "kernel_overlap.cuh", "weight_order.cuh", "mma_tf32.cuh", "mma_bf16.cuh",
        "ldmatrix.cuh", "wgmma_tf32.cuh", "wgmma_bf16.cuh", "tensor_cores.cu", "banded_conv2d.cu", "patch_conv2d.cuh"}) {
    INFO(given);
    CHECK(code_of(read(kLab / given), given) == code_of(read(kSolution / given), given));
  }
}

TEST_CASE("lab08 skeleton: every step of the stub is marked unwritten, none of the solution's", "[lab08][skeleton]") {
  CHECK(written_flags(read(kLab / "tensor_core_gemm.cuh")) == std::map<std::string, bool>{{"1", false}, {"2", false}});
  CHECK(written_flags(read(kSolution / "tensor_core_gemm.cuh")) == std::map<std::string, bool>{{"1", true}, {"2", true}});
  CHECK(written_flags(read(kLab / "banded_conv2d.cuh")) == std::map<std::string, bool>{{"3", false}, {"4", false}});
  CHECK(written_flags(read(kSolution / "banded_conv2d.cuh")) == std::map<std::string, bool>{{"3", true}, {"4", true}});
  CHECK(written_flags(read(kLab / "wgmma_gemm.cuh")) == std::map<std::string, bool>{{"5", false}, {"6", false}});
  CHECK(written_flags(read(kSolution / "wgmma_gemm.cuh")) == std::map<std::string, bool>{{"5", true}, {"6", true}});
  CHECK(written_flags(read(kLab / "tf32_wgmma_gemm.cuh")) == std::map<std::string, bool>{{"7", false}});
  CHECK(written_flags(read(kSolution / "tf32_wgmma_gemm.cuh")) == std::map<std::string, bool>{{"7", true}});
}

TEST_CASE("lab08 skeleton: the lab folder and the solution hold the same source files", "[lab08][skeleton]") {
  for (const fs::path& folder : {kLab, kSolution}) {
    const fs::path other = folder == kLab ? kSolution : kLab;
    for (const auto& entry : fs::directory_iterator(folder)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cu" && ext != ".cuh") continue;
      INFO(entry.path());
      CHECK(fs::exists(other / entry.path().filename()));
    }
  }
}
