#include "build/harness_build.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "system/subprocess.hpp"
#include "system/tool_paths.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

int compile_jobs(int jobs) {
  return jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::vector<std::string> grader_configure_command(const fs::path& source_dir, const fs::path& build_dir,
                                                  const std::string& cuda_architectures) {
  std::vector<std::string> argv = {cmake_program().string(), "-S", source_dir.string(), "-B", build_dir.string(),
                                   "-DCONVLAB_ENABLE_CUDA=ON", "-DCONVLAB_BUILD_TESTS=OFF",
                                   "-DCMAKE_BUILD_TYPE=Release",
                                   // No compiler cache: the sandboxed compile cannot write one,
                                   // and a cache shared by submissions is a channel between them.
                                   "-DCMAKE_CXX_COMPILER_LAUNCHER=", "-DCMAKE_CUDA_COMPILER_LAUNCHER=",
                                   "-DCMAKE_CUDA_ARCHITECTURES=" + cuda_architectures,
                                   // Lab 07's run-time compilations happen in the build, on its
                                   // cores, not in its runs on a GPU (precompile.hpp).
                                   "-DCONVLAB_LAB07_PRECOMPILE=ON"};
  if (!fs::exists(build_dir / "CMakeCache.txt")) {  // a generator and compiler are chosen once per folder
    if (find_tool("ninja")) argv.insert(argv.end(), {"-G", "Ninja"});
    if (const auto nvcc = cuda_compiler()) argv.push_back("-DCMAKE_CUDA_COMPILER=" + nvcc->string());
  }
  return argv;
}

HarnessBuild::HarnessBuild(HarnessSettings settings) : settings_(std::move(settings)) {}

bool HarnessBuild::ensure_built(std::string* error) {
  std::call_once(once_, [this] {
    const fs::path build = settings_.build_dir;
    fs::create_directories(build);
    if (settings_.progress) settings_.progress(fmt::format("configuring the lab harness's build in {}", build.string()));
    const ProcessResult conf =
        run_process(grader_configure_command(settings_.source_dir, build, settings_.cuda_architectures), 600s);
    if (conf.exit_code != 0) {
      error_ = fmt::format("cmake could not configure the lab harness's build ({}):\n{}", conf.describe(),
                           last_lines(conf.output, 15));
      return;
    }
    const int jobs = compile_jobs(settings_.jobs);
    if (settings_.progress) {
      settings_.progress(fmt::format("building the lab harness once for every submission, on {} cores", jobs));
    }
    // What cmake/ConvlabHarnessExport.cmake exports and a lab links or runs.
    std::vector<std::string> argv = {cmake_program().string(), "--build", build.string(), "--target",
                                     "convlab_runner", "convlab_autotune", "lab07_precompile"};
    for (const std::string& lab : settings_.labs) argv.push_back("convlab_lab_main" + lab);
    argv.insert(argv.end(), {"-j", std::to_string(jobs)});
    const ProcessResult harness = run_process(argv, 1800s);
    if (harness.exit_code != 0) {
      error_ = fmt::format("the lab harness does not build ({}):\n{}", harness.describe(), last_lines(harness.output, 15));
      return;
    }
    built_ = true;
  });
  if (!built_) *error = error_;
  return built_;
}

}  // namespace convlab::grader
