#include "build/harness_build.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include <nlohmann/json.hpp>

#include "convlab/atomic_file.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/json_file.hpp"
#include "convlab/limits.hpp"
#include "system/subprocess.hpp"
#include "system/tool_paths.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;

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
                                   // cores, not in its runs on a GPU (precompile.hpp), but the
                                   // grader runs lab07_precompile itself, beside the lab's
                                   // compile and for the graded cases only (build/lab_compile.hpp).
                                   "-DCONVLAB_LAB07_PRECOMPILE=OFF"};
  if (!fs::exists(build_dir / "CMakeCache.txt")) {  // a generator and compiler are chosen once per folder
    if (find_tool("ninja")) argv.insert(argv.end(), {"-G", "Ninja"});
    if (const auto nvcc = cuda_compiler()) argv.push_back("-DCMAKE_CUDA_COMPILER=" + nvcc->string());
  }
  return argv;
}

bool build_harness_with_cmake(const HarnessSettings& settings, double* core_s, std::string* error) {
  const fs::path build = settings.build_dir;
  fs::create_directories(build);
  if (settings.progress) settings.progress(fmt::format("configuring the lab harness's build in {}", build.string()));
  // At idle priority, as every build step of a run (system/subprocess.hpp): it may run while the
  // references are timed.
  const ProcessResult conf =
      run_process(at_idle_priority(grader_configure_command(settings.source_dir, build, settings.cuda_architectures)), 600s);
  *core_s += conf.cpu_seconds;
  if (conf.exit_code != 0) {
    *error = fmt::format("cmake could not configure the lab harness's build ({}):\n{}", conf.describe(),
                         last_lines(conf.output, 15));
    return false;
  }
  const int jobs = compile_jobs(settings.jobs);
  if (settings.progress) {
    settings.progress(fmt::format("building the lab harness once for every submission, on {} cores", jobs));
  }
  // What cmake/ConvlabHarnessExport.cmake exports and a lab links or runs.
  std::vector<std::string> argv = {cmake_program().string(), "--build", build.string(), "--target",
                                   "convlab_runner", "convlab_autotune", "lab07_precompile"};
  for (const std::string& lab : settings.labs) argv.push_back("convlab_lab_main" + lab);
  argv.insert(argv.end(), {"-j", std::to_string(jobs)});
  const ProcessResult harness = run_process(at_idle_priority(argv), 1800s);
  *core_s += harness.cpu_seconds;
  if (harness.exit_code != 0) {
    *error = fmt::format("the lab harness does not build ({}):\n{}", harness.describe(), last_lines(harness.output, 15));
    return false;
  }
  return true;
}

HarnessBuild::HarnessBuild(HarnessSettings settings, HarnessBuilder build)
    : settings_(std::move(settings)), build_(std::move(build)) {}

std::shared_ptr<HarnessBuild> HarnessBuild::prebuilt(fs::path dir, std::string cuda_architectures) {
  HarnessSettings s;
  s.build_dir = std::move(dir);
  s.cuda_architectures = std::move(cuda_architectures);
  return std::make_shared<HarnessBuild>(std::move(s), HarnessBuilder{});
}

std::string prebuilt_harness_problem(const fs::path& dir, const std::string& architectures) {
  const fs::path stamp = dir / kHarnessStamp;
  std::string built_for;
  try {
    const json j = parse_json(convlab::read_file(stamp, kMaxTextFileBytes), stamp.string());
    built_for = j.at("cuda_architectures").get<std::string>();
  } catch (const std::exception& e) {
    return fmt::format("--harness {}: no harness built by `grader harness` there ({})", dir.string(), e.what());
  }
  if (!fs::is_regular_file(dir / "convlab-harness-targets.cmake")) {
    return fmt::format("--harness {}: its convlab-harness-targets.cmake is missing", dir.string());
  }
  if (built_for != architectures) {
    return fmt::format("--harness {} was built for CUDA architectures {}, and the labs here are built for {}: build "
                       "one for this GPU with `grader harness --out DIR`",
                       dir.string(), built_for, architectures);
  }
  return "";
}

bool HarnessBuild::ensure_built(std::string* error) {
  std::call_once(once_, [this] {
    if (!build_) {  // prebuilt: checked, never built
      error_ = prebuilt_harness_problem(settings_.build_dir, settings_.cuda_architectures);
      built_ = error_.empty();
      return;
    }
    double spent = 0;
    built_ = build_(settings_, &spent, &error_);
    core_s_ = spent;
    if (!built_) return;
    // The stamp last: a folder whose build stopped half-way is no harness for `--harness`.
    const json stamp = {{"format", "convlab-harness"},
                        {"version", 1},
                        {"cuda_architectures", settings_.cuda_architectures},
                        {"labs", settings_.labs}};
    write_file_atomically(settings_.build_dir / kHarnessStamp, stamp.dump(2) + "\n");
  });
  if (!built_) *error = error_;
  return built_;
}

double HarnessBuild::core_s() const { return core_s_; }

}  // namespace convlab::grader
