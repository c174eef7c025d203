/// @file atomic_file.hpp
/// @brief Whole files: writing one atomically — a reader (Gradescope, a script polling a report,
///        a grader reading a lab's JSON) sees the old file or the new one, never half of one —
///        and reading one whole.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace convlab {

/// Writes `content` to a temporary file next to `path`, then renames it over `path`.
/// @param path the file to (re)place
/// @param content its new bytes
/// @throws std::runtime_error naming the file if it cannot be written.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// Reads a whole file (bytes as they are).
/// @throws std::runtime_error naming the file if it cannot be read.
std::string read_whole_file(const std::filesystem::path& path);

}  // namespace convlab
