// What a grading run takes from the machine it runs on: the GPU (its description, how many
// there are), the lab executables a submission is built into, and the reference solutions.
// The real platform queries CUDA and builds with the project's CMake; the grader's test mode
// (tests/support/grader_test_mode.cpp) swaps in the GPU-free test double of a lab, so that the
// commands themselves — batch, slurm, merge — run end to end on a machine without a GPU.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "convlab/device_info.hpp"
#include "schedule/gpu_selection.hpp"
#include "run/lab_sandbox.hpp"
#include "build/lab_folders.hpp"
#include "grade/lab_grader.hpp"
#include "build/submission_build.hpp"

namespace convlab::grader {

/// Builds submissions one after another in one build folder.
class LabBuilder {
 public:
  virtual ~LabBuilder() = default;
  /// Stages `submission` (see SubmissionBuilder::stage).
  virtual void stage(const std::filesystem::path& submission, const std::vector<LabInfo>& graded) = 0;
  /// Builds the staged labs `labs` and copies their executables into `exe_dir` (see
  /// SubmissionBuilder::build_all): one result per lab, in their order.
  virtual std::vector<LabExecutable> build_all(const std::vector<LabInfo>& labs, const std::filesystem::path& exe_dir) = 0;
};

/// The machine, as grading sees it.
struct GradingPlatform {
  std::function<std::optional<DeviceInfo>(std::string* why_not)> query_device;
  GpuCounter count_gpus;
  /// A lab's reference solution (nullopt: none built) and a trusted executable to list its variants.
  std::function<std::optional<std::filesystem::path>(const LabInfo&)> reference_exe, variants_exe;
  /// A builder over one build folder.
  std::function<std::unique_ptr<LabBuilder>(const BuildSettings&, const std::vector<LabInfo>& all_labs)> make_builder;
  /// The sandbox of the submissions' steps on the GPU of `pci_bus_id`, or nullopt with *problem
  /// and *fix (run/lab_sandbox.hpp: make_lab_sandbox).
  std::function<std::optional<SandboxSpec>(const std::string& pci_bus_id, const std::vector<std::filesystem::path>& tools,
                                           std::string* problem, std::string* fix)>
      make_sandbox;
};

/// The real platform: CUDA's device query, the project's build for the references, and
/// SubmissionBuilder for the submissions.
GradingPlatform real_grading_platform();

/// The platform grading uses (the real one unless set_grading_platform() replaced it).
const GradingPlatform& grading_platform();
/// Replaces the platform for the rest of the process (the grader's test mode only).
void set_grading_platform(GradingPlatform platform);

}  // namespace convlab::grader
