// The check of a built lab's host code against host_code_rules.hpp: the symbols of its compiled
// objects (nm), the functions that call `atexit` and any raw `syscall` instruction (objdump),
// and the definitions that would replace the harness's (nm of the harness's archives).
//
// It reads the objects of the lab's target only, not the executable: the harness the lab links
// is the grader's own code and may do what the lab may not (write files, time, create streams).
#pragma once

#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace convlab::grader {

/// One refused symbol.
struct HostCodeFinding {
  std::string object;  ///< the object file's name ("naive.cu.o")
  std::string symbol;  ///< demangled
  std::string why;     ///< the rule (host_code_rules.cpp)
};

/// What the check found.
struct HostCodeReport {
  std::vector<HostCodeFinding> findings;
  std::string error;  ///< the tools could not read an object: the lab is refused too
  [[nodiscard]] bool clean() const { return findings.empty() && error.empty(); }
  /// "naive.cu.o calls pthread_create (threads: ...)", a line each, at most `max_lines`.
  [[nodiscard]] std::string describe(std::size_t max_lines = 6) const;
};

/// How to run a tool on the submission's objects (the compile sandbox, or as is).
using ToolRunner = std::function<std::string(const std::vector<std::string>& argv, std::string* error)>;

/// The compiled objects of target `target` in `build_dir`: the lab's own files (its registration main
/// is the harness's, compiled there: cmake/ConvlabLabs.cmake).
std::vector<std::filesystem::path> lab_objects(const std::filesystem::path& build_dir, const std::string& target);

/// The external symbols that the static archives under `harness_dir` define.
std::set<std::string> harness_symbols(const std::filesystem::path& harness_dir, const ToolRunner& run);

/// Applies the rules to `objects`.
HostCodeReport check_host_code(const std::vector<std::filesystem::path>& objects,
                               const std::set<std::string>& harness_defines, const ToolRunner& run);

}  // namespace convlab::grader
