// The compile's sandbox (system/sandbox.hpp says what a sandbox is): the lab runs' sandbox
// (run/lab_sandbox.hpp) without the GPU, plus the project files the submission build reads
// (CMake's own inputs, common/, the CMake helpers) and the prebuilt harness read-only, and the
// build folder as the one writable folder: not datasets/, labs/, solutions/, tests/ or anything
// else of the repository.
#pragma once

#include <filesystem>
#include <vector>

#include "system/sandbox.hpp"

namespace convlab::grader {

/// The files a configured Ninja build folder reads again on every build (CMake's re-run check,
/// `build build.ninja: RERUN_CMAKE | ...`): absolute paths, as build.ninja lists them.
std::vector<std::filesystem::path> build_rerun_inputs(const std::filesystem::path& build_dir);

/// The compilers a configured build folder names in its CMakeCache.txt (C, C++, CUDA and its
/// host compiler), those that exist: the compile's sandbox shows their installations.
std::vector<std::filesystem::path> configured_compilers(const std::filesystem::path& build_dir);

/// The compile's sandbox: `labs` without devices, plus the project's build inputs of
/// `build_dir`, the prebuilt harness `harness_dir` (build/harness_build.hpp) and `programs`
/// (cmake, ninja, nvcc: their install folders) read-only, and `build_dir` the one writable
/// folder and the working folder.
SandboxSpec compile_sandbox(const SandboxSpec& labs, const std::filesystem::path& source_dir,
                            const std::filesystem::path& harness_dir, const std::filesystem::path& build_dir,
                            const std::vector<std::filesystem::path>& programs);

}  // namespace convlab::grader
