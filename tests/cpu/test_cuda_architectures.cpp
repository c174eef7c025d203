// Lab 08 step 5's build rule (cmake/ConvlabCudaArchitectures.cmake): the targets that compile lab
// 08's kernels take the build's CUDA architectures with 90 made 90a, since wgmma exists only in
// sm_90a code, and every other architecture as given; checked on the CMake function itself (no
// compiler needed) and, in a CUDA build, on the compile commands CMake wrote for lab 08 and for
// another lab.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "grader_test_support.hpp"
#include "system/subprocess.hpp"

using namespace std::chrono_literals;
using convlab::grader::ProcessResult;
using convlab::grader::run_process;
namespace fs = std::filesystem;

namespace {

const fs::path kModule = fs::path(CONVLAB_SOURCE_DIR) / "cmake" / "ConvlabCudaArchitectures.cmake";

// What convlab_cuda_architectures_with_wgmma makes of CMAKE_CUDA_ARCHITECTURES = `given`.
std::string with_wgmma(const std::string& given) {
  convlab::grader::testing::TempDir tmp("cuda-archs");
  const fs::path script = tmp.path() / "archs.cmake";
  std::ofstream(script) << "include(\"${MODULE}\")\n"
                           "convlab_cuda_architectures_with_wgmma(out)\n"
                           "message(\"RESULT=${out}\")\n";
  const ProcessResult r = run_process({CONVLAB_CMAKE_COMMAND, "-DCMAKE_CUDA_ARCHITECTURES=" + given,
                                       "-DMODULE=" + kModule.string(), "-P", script.string()},
                                      60s);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::size_t at = r.output.find("RESULT=");
  REQUIRE(at != std::string::npos);
  std::string out = r.output.substr(at + 7);
  return out.substr(0, out.find('\n'));
}

}  // namespace

TEST_CASE("cuda architectures: lab 08 gets sm_90a code where the build has 90, keeps compute_90 PTX, and every other "
          "architecture as given",
          "[build][lab08][wgmma]") {
  CHECK(with_wgmma("90") == "90a-real;90-virtual");             // the ci preset, a detected H100/H200
  CHECK(with_wgmma("90-real") == "90a-real");
  CHECK(with_wgmma("90-virtual") == "90a-virtual");
  CHECK(with_wgmma("80-real;86-real;89-real;90") == "80-real;86-real;89-real;90a-real;90-virtual");  // the fallback list
  CHECK(with_wgmma("80") == "80");                              // an A100: no Hopper code to make
  CHECK(with_wgmma("90a") == "90a");                            // named already
  CHECK(with_wgmma("100;120") == "100;120");                    // later GPUs have no wgmma
}

#ifdef CONVLAB_BUILT_CUDA_ARCHITECTURES
TEST_CASE("cuda architectures: this build compiles lab 08's kernels for sm_90a where its architectures have 90, and "
          "lab 06's as configured",
          "[build][lab08][wgmma]") {
  const std::string built = CONVLAB_BUILT_CUDA_ARCHITECTURES;  // "80-real,90": CMake's list, with commas
  std::ifstream in(fs::path(CONVLAB_BINARY_DIR) / "compile_commands.json");
  REQUIRE(in);
  const nlohmann::json commands = nlohmann::json::parse(in);
  int lab08 = 0, lab06 = 0;
  for (const nlohmann::json& c : commands) {
    const std::string file = c.at("file"), command = c.value("command", "");
    const bool is_lab08 = file.find("08-tensor-cores/tensor_cores.cu") != std::string::npos;
    const bool is_lab06 = file.find("06-im2col/fused_gemm.cu") != std::string::npos;
    if (!is_lab08 && !is_lab06) continue;
    INFO(file << ": " << command);
    const bool has_90 = ("," + built + ",").find(",90,") != std::string::npos ||
                        ("," + built + ",").find(",90-real,") != std::string::npos;
    if (is_lab08) {
      ++lab08;
      CHECK((command.find("compute_90a") != std::string::npos) == has_90);
      if (has_90) CHECK(command.find("code=[sm_90a]") != std::string::npos);
    } else {
      ++lab06;
      CHECK(command.find("compute_90a") == std::string::npos);
    }
  }
  CHECK(lab08 == 2);  // lab08 (the stubs) and convlab_solution08_kernels
  CHECK(lab06 == 2);
}
#endif
