// Reports are written atomically: a reader (Gradescope, a script polling the file) sees the old
// file or the new one, never half of one.
#pragma once

#include <filesystem>
#include <string_view>

namespace convlab::grader {

/// Writes `content` to a temporary file next to `path`, then renames it over `path`.
/// @throws std::runtime_error naming the file if it cannot be written.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace convlab::grader
