// Where the grader finds the programs it runs besides the labs: CMake (to build submissions),
// compute-sanitizer (--sanitize) and Nsight Compute's ncu (--profile).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace convlab::grader {

/// Looks for `name` in $PATH, then in the CUDA toolkit the project was configured with, then in
/// /usr/local/cuda/bin. @returns the full path, or nullopt.
std::optional<std::filesystem::path> find_tool(const std::string& name);

/// gnuplot (for the autotuner's and the benchmarks' pictures): $GNUPLOT when set and present,
/// else find_tool("gnuplot"). @returns nullopt when there is none.
std::optional<std::filesystem::path> find_gnuplot();
/// The CMake that configured this build (else `cmake` from $PATH).
std::filesystem::path cmake_program();

/// The CUDA compiler this build used, if any (passed on so a submission builds with the same one).
std::optional<std::filesystem::path> cuda_compiler();

}  // namespace convlab::grader
