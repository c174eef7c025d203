// Where the grader finds its source tree, its own folder, and the programs it runs besides the labs: CMake (to build submissions),
// compute-sanitizer (--sanitize) and Nsight Compute's ncu (--profile).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace convlab::grader {

/// The source tree (datasets/, labs/, solutions/): CONVLAB_SOURCE_DIR unless the
/// CONVLAB_HOME environment variable says otherwise.
std::filesystem::path source_dir();
/// The folder holding the lab executables (the grader's own folder).
std::filesystem::path bin_dir();

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
