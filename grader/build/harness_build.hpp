// The lab harness, compiled once for every submission a grading run builds.
//
// A lab executable links the harness, its registration main and lab 07's autotuner, and lab 07's
// compile runs lab07_precompile beside it (cmake/ConvlabHarnessExport.cmake). They are the
// project's own code, the same for every student, so one build folder compiles them, on every
// core and outside the sandbox, and exports them; each compile folder (build/lab_compile.hpp) is
// configured with CONVLAB_PREBUILT_HARNESS pointing at it and compiles a lab only. When each of
// a class's four build workers compiled its own copy (an H200 machine, 16 cores), they took
// 95-107 s before the first student reached the GPU, against 56 s for a lone build.
//
// A harness built before, by `grader harness` (a Slurm job's first step, or once before timing
// a class), serves any number of later runs: `--harness DIR` checks that it was built for this
// GPU's architecture and builds nothing.
//
// The compile sandbox shows this folder read-only (build/compile_sandbox.hpp): a student's
// build cannot change what the next student's labs link.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace convlab::grader {

/// Where and how the harness is built.
struct HarnessSettings {
  std::filesystem::path source_dir;  ///< the project
  std::filesystem::path build_dir;   ///< its build folder (kept, reused)
  std::string cuda_architectures;    ///< e.g. "90": the GPU's, as the labs are built for
  int jobs = 0;                      ///< parallel compile jobs (0: one per core)
  std::vector<std::string> labs;     ///< the lab numbers whose registration mains it compiles ("01", ...)
  std::function<void(const std::string&)> progress;
};

/// How a harness folder is built; false: `*error` says why. `*core_s` gets the CPU seconds spent.
/// The real one configures and builds with CMake; the grader's test mode has its own.
using HarnessBuilder = std::function<bool(const HarnessSettings&, double* core_s, std::string* error)>;

/// Configures `settings.build_dir` (grader_configure_command) and builds what a lab links.
bool build_harness_with_cmake(const HarnessSettings& settings, double* core_s, std::string* error);

/// The file that marks a harness folder built, with the architectures it was built for.
inline constexpr const char* kHarnessStamp = "convlab-harness.json";

/// Why the harness folder `dir` cannot serve labs built for `architectures`: no stamp (not built
/// by `grader harness`, or its build stopped half-way), no export file, other architectures.
/// "" when it can.
std::string prebuilt_harness_problem(const std::filesystem::path& dir, const std::string& architectures);

/// The harness of a grading run, built on first use; safe to share between build threads.
class HarnessBuild {
 public:
  explicit HarnessBuild(HarnessSettings settings, HarnessBuilder build = build_harness_with_cmake);

  /// A harness built before (`grader harness --out DIR`): ensure_built() checks that DIR holds
  /// one built for `cuda_architectures` and builds nothing.
  static std::shared_ptr<HarnessBuild> prebuilt(std::filesystem::path dir, std::string cuda_architectures);

  /// Builds the harness the first time it is called (or checks a prebuilt one); callers on other
  /// threads wait for that, and every later call returns its outcome. false: `*error` says why.
  bool ensure_built(std::string* error);

  /// The build folder that CONVLAB_PREBUILT_HARNESS names.
  const std::filesystem::path& dir() const { return settings_.build_dir; }
  /// CPU seconds this run spent building it (0 for a prebuilt one, or before ensure_built();
  /// read it once the threads that build have been joined).
  [[nodiscard]] double core_s() const;

 private:
  HarnessSettings settings_;
  HarnessBuilder build_;  ///< empty: prebuilt, only checked
  std::once_flag once_;
  bool built_ = false;
  std::string error_;
  double core_s_ = 0;
};

/// `jobs` when positive, else the machine's core count: the parallel compile jobs of a build.
int compile_jobs(int jobs);

/// The `cmake` command line that configures `build_dir` from the project the way the grader
/// builds it: CUDA for `cuda_architectures`, no tests, Release, no compiler cache, lab 07's
/// instantiations left to the grader (build/lab_compile.hpp runs lab07_precompile). A compile
/// folder adds its own -D options.
std::vector<std::string> grader_configure_command(const std::filesystem::path& source_dir,
                                                  const std::filesystem::path& build_dir,
                                                  const std::string& cuda_architectures);

}  // namespace convlab::grader
