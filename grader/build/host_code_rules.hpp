// What a submission's host code may call and define: the lab's API and nothing that could reach
// around the grader's measurements (grader/README.md, "What a timed run cannot fake").
//
// A lab's host code launches kernels, moves memory, sets function attributes and does a little
// arithmetic. Everything it calls is a symbol in its compiled objects, so the rules below are
// applied to the symbols (host_code_check.hpp reads them). Calls are an allow-list for C names
// (an unknown C function is refused: tell the instructor if a lab really needs it) and a
// refuse-list for C++ names (the standard library is large, and what is dangerous in it is a
// short list). Each refusal carries its reason, so that a student reads why.
#pragma once

#include <optional>
#include <string>

namespace convlab::grader {

/// Why a symbol the submission calls is refused; nullopt when it may call it.
/// @param name the symbol as the object file names it (mangled for C++)
/// @param demangled its demangled form (the same as `name` for C symbols)
std::optional<std::string> refused_call(const std::string& name, const std::string& demangled);

/// Why a symbol the submission defines is refused; nullopt when it may define it.
/// @param name the symbol (mangled)
/// @param demangled its demangled form
/// @param strong a strong definition (nm's T, D, B, R), not a weak or unique one
/// @param function code (nm's T, W, i), not data
/// @param harness_defines the harness the lab links defines it too
std::optional<std::string> refused_definition(const std::string& name, const std::string& demangled, bool strong,
                                              bool function, bool harness_defines);

/// True for the function nvcc generates to register a file's kernels, which alone may call
/// `atexit` (to unregister them).
bool is_nvcc_registration(const std::string& function);

}  // namespace convlab::grader
