// The lab harness, compiled once for every submission a grading run builds.
//
// A lab executable links the harness, its registration main and lab 07's autotuner, and lab 07's
// build runs lab07_precompile (cmake/ConvlabHarnessExport.cmake). They are the project's own
// code, the same for every student, so one build folder compiles them, on every core and
// outside the sandbox, and
// exports them; each submission build folder (build/submission_build.hpp) is configured with
// CONVLAB_PREBUILT_HARNESS pointing at it and compiles the labs only. A class's build workers
// share one: when each of four workers compiled its own copy (an H200 machine, 16 cores), they
// took 95-107 s before the first student reached the GPU, against 56 s for a lone build.
//
// The compile sandbox shows this folder read-only (build/compile_sandbox.hpp): a student's
// build cannot change what the next student's labs link.
#pragma once

#include <filesystem>
#include <functional>
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

/// The harness of a grading run, built on first use; safe to share between build workers.
class HarnessBuild {
 public:
  explicit HarnessBuild(HarnessSettings settings);

  /// Configures and builds the harness the first time it is called; callers on other threads
  /// wait for that build, and every later call returns its outcome. false: `*error` says why.
  bool ensure_built(std::string* error);

  /// The build folder that CONVLAB_PREBUILT_HARNESS names.
  const std::filesystem::path& dir() const { return settings_.build_dir; }

 private:
  HarnessSettings settings_;
  std::once_flag once_;
  bool built_ = false;
  std::string error_;
};

/// `jobs` when positive, else the machine's core count: the parallel compile jobs of a build.
int compile_jobs(int jobs);

/// The `cmake` command line that configures `build_dir` from the project the way the grader
/// builds it: CUDA for `cuda_architectures`, no tests, Release, no compiler cache, lab 07's
/// instantiations precompiled. A submission build adds its own -D options.
std::vector<std::string> grader_configure_command(const std::filesystem::path& source_dir,
                                                  const std::filesystem::path& build_dir,
                                                  const std::string& cuda_architectures);

}  // namespace convlab::grader
