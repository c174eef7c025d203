/// @file tuned_dispatch.hpp
/// @brief How lab 07's launchers (the student's labs/ and the reference solutions/) pick the
///        configuration of a mask width and run it: the tuning file of this GPU when it was made
///        for *their own* kernel source (same hash), else the compiled-in defaults; a
///        configuration the launcher was not compiled with is JIT-compiled by NVRTC from that
///        same source and cached on disk, unless the build compiled it ahead into the folder
///        beside the executable (`bin/lab07.jit-cache/`, precompile.hpp), which is read first.
///
/// So the student's `lab07` runs the student's tuned choice, compiled from the student's
/// register_tiling_kernel.cuh, and never a configuration tuned on the solution's kernel.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>

#include "convlab/autotune/kernel_source.hpp"
#include "convlab/autotune/tuning_file.hpp"
#include "convlab/lab07_config.hpp"
#include "convlab/lab_api.cuh"

namespace convlab::lab07 {

class LoadedKernel;

class TunedDispatch {
 public:
  /// `origin`: "labs" or "solutions" (which default tuning file to read); `launcher_file`: the
  /// launcher's __FILE__, beside which its own register_tiling_kernel.cuh lies (kernel_beside();
  /// its hash must match the tuning file's). A plain string: the finding of files is the
  /// harness's, so that the lab's own code calls no file functions (grader/build/host_code_rules.hpp).
  TunedDispatch(std::string origin, const char* launcher_file);
  ~TunedDispatch();
  TunedDispatch(const TunedDispatch&) = delete;
  TunedDispatch& operator=(const TunedDispatch&) = delete;

  /// The configuration of mask width k for a variant: role "" is the tuned choice (tuning file,
  /// else the compiled-in default); "shfl", "constant", "shared" the tuner's best of that path
  /// (else the choice moved onto it, force_path); "loaded" the choice with step 2's filter path.
  /// @throws std::invalid_argument for a mask width lab 07 does not support.
  TileConfig config_for(int k, const std::string& role);

  /// Launches `v` compiled by NVRTC from the kernel source (compiled at first use, then kept).
  void launch_jit(const KernelVariant& v, const Conv2dArgs& a);

  /// What was decided about the tuning file (printed once to stderr at first use).
  const std::string& note();

 private:
  void load();

  std::string origin_;
  std::filesystem::path kernel_file_;
  std::once_flag once_;
  std::optional<TuningTable> tuned_;
  std::string note_;
  std::filesystem::path cache_;
  std::filesystem::path precompiled_;  ///< <executable>.jit-cache when the build made one
  int cc_major_ = 0;
  int cc_minor_ = 0;
  std::optional<KernelSource> source_;
  std::map<std::string, std::unique_ptr<LoadedKernel>> jit_;
  std::mutex mutex_;
};

/// The file a launcher at `this_file` (its __FILE__) compiles at run time: the copy beside the
/// running executable when there is one, else the register_tiling_kernel.cuh next to the launcher.
std::filesystem::path kernel_beside(const char* this_file);

}  // namespace convlab::lab07
