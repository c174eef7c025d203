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
#include "build/lab_compile.hpp"

namespace convlab::grader {

/// Compiles a run's labs, one at a time or many at once from several threads (the real one:
/// LabCompiler; the grader's test mode: the GPU-free test double).
class LabBuilder {
 public:
  virtual ~LabBuilder() = default;
  /// Reads one lab of `submission` for its compile (see stage_lab).
  virtual StagedLab stage(const std::filesystem::path& submission, const LabInfo& lab) = 0;
  /// Gets ready to compile (the harness, a first compile folder); false: `*error` says why.
  virtual bool prepare(std::string* error) = 0;
  /// What every compile reads besides the lab's own files, as a digest (LabCompiler::context).
  virtual std::string context() = 0;
  /// The cores a compile of `lab` keeps busy.
  virtual int useful_cores(const StagedLab& lab) const = 0;
  /// Compiles `lab` with `cores` cores; what grading runs goes into `out_dir`.
  virtual LabExecutable compile(const StagedLab& lab, int cores, const std::filesystem::path& out_dir, double* core_s) = 0;
  /// CPU seconds spent getting ready to compile (configuring compile folders) so far.
  virtual double setup_core_s() = 0;
};

/// The machine, as grading sees it.
struct GradingPlatform {
  std::function<std::optional<DeviceInfo>(std::string* why_not)> query_device;
  GpuCounter count_gpus;
  /// A lab's reference solution (nullopt: none built) and a trusted executable to list its variants.
  std::function<std::optional<std::filesystem::path>(const LabInfo&)> reference_exe, variants_exe;
  /// The labs' compiler of a run.
  std::function<std::unique_ptr<LabBuilder>(const BuildSettings&, const std::vector<LabInfo>& all_labs)> make_builder;
  /// How the run's harness is built (build_harness_with_cmake; the test mode's stand-in).
  HarnessBuilder build_harness;
  /// The sandbox of the submissions' steps on the GPU of `pci_bus_id`, or nullopt with *problem
  /// and *fix (run/lab_sandbox.hpp: make_lab_sandbox).
  std::function<std::optional<SandboxSpec>(const std::string& pci_bus_id, const std::vector<std::filesystem::path>& tools,
                                           std::string* problem, std::string* fix)>
      make_sandbox;
};

/// The real platform: CUDA's device query, the project's build for the references, and
/// LabCompiler for the submissions.
GradingPlatform real_grading_platform();

/// The platform grading uses (the real one unless set_grading_platform() replaced it).
const GradingPlatform& grading_platform();
/// Replaces the platform for the rest of the process (the grader's test mode only).
void set_grading_platform(GradingPlatform platform);

}  // namespace convlab::grader
