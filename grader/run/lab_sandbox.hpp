// The lab runs' sandbox on this machine (system/sandbox.hpp says what a sandbox is): the one
// GPU's device nodes, the CUDA toolkit and the driver's libraries read-only; each run adds its
// executable, its staged inputs and its fresh output folder (run/runner_call.hpp). The
// compile's sandbox is built from it (build/compile_sandbox.hpp).
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

/// The line the reports' headers carry about the sandbox (or its absence, with --no-sandbox).
std::string sandbox_description(bool sandboxed);

}  // namespace convlab::grader
