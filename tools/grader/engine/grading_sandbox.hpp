// The sandboxes of a grading run on this machine (system/sandbox.hpp says what a sandbox is):
//   the lab runs'     the one GPU's device nodes, the CUDA toolkit and the driver's libraries
//                     read-only; each run adds its executable, its staged inputs and its fresh
//                     output folder (engine/runner_call.hpp);
//   the compile's     the same without the GPU, plus the project files the submission build reads
//                     (CMake's own inputs, the harness, the autotuner's headers) read-only and the
//                     build folder as the one writable folder: not datasets/, labs/, solutions/,
//                     tests/ or anything else of the repository.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "system/sandbox.hpp"

namespace convlab::grader {

/// The lab runs' sandbox for the GPU at `pci_bus_id`, with `tools` (compute-sanitizer, ncu:
/// their install folders) read-only. Opens the GPU first (on GPU builds), so that the driver
/// has created /dev/nvidia-uvm before the first sandboxed run binds it. @returns nullopt with
/// `problem` and `fix` set when the sandbox cannot start here.
std::optional<SandboxSpec> make_lab_sandbox(const std::string& pci_bus_id, const std::vector<std::filesystem::path>& tools,
                                            std::string* problem, std::string* fix);

/// The files a configured Ninja build folder reads again on every build (CMake's re-run check,
/// `build build.ninja: RERUN_CMAKE | ...`): absolute paths, as build.ninja lists them.
std::vector<std::filesystem::path> build_rerun_inputs(const std::filesystem::path& build_dir);

/// The compilers a configured build folder names in its CMakeCache.txt (C, C++, CUDA and its
/// host compiler), those that exist: the compile's sandbox shows their installations.
std::vector<std::filesystem::path> configured_compilers(const std::filesystem::path& build_dir);

/// The compile's sandbox: `labs` without devices, plus the project's build inputs of
/// `build_dir`, the prebuilt harness `harness_dir` (engine/harness_build.hpp) and `programs`
/// (cmake, ninja, nvcc: their install folders) read-only, and `build_dir` the one writable
/// folder and the working folder.
SandboxSpec compile_sandbox(const SandboxSpec& labs, const std::filesystem::path& source_dir,
                            const std::filesystem::path& harness_dir, const std::filesystem::path& build_dir,
                            const std::vector<std::filesystem::path>& programs);

/// The line the reports' headers carry about the sandbox (or its absence, with --no-sandbox).
std::string sandbox_description(bool sandboxed);

}  // namespace convlab::grader
