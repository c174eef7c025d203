/// @file atomic_file.hpp
/// @brief Whole files: writing one atomically — a reader (Gradescope, a script polling a report,
///        a grader reading a lab's JSON) sees the old file or the new one, never half of one —
///        and reading one whole.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace convlab {

/// Writes `content` to a new temporary file in `path`'s folder, then renames it over `path`:
/// the temporary gets an unpredictable name and is opened O_CREAT|O_EXCL|O_NOFOLLOW (a file or
/// symlink planted under any name is never written through); all bytes are written and
/// fsync'ed before the rename, and the folder is fsync'ed after it, so a crash leaves the old
/// file or the new one. An existing symlink at `path` is replaced, not followed.
/// @param path the file to (re)place
/// @param content its new bytes
/// @throws std::runtime_error "cannot write PATH: STEP: ERRNO TEXT" for the step that failed
///         (the temporary is removed).
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// Checks, before long work starts, that write_file_atomically(`path`, …) can succeed: its
/// folder exists, accepts a new file (one is created and removed), and `path` is not a folder.
/// @throws std::runtime_error "cannot write PATH: REASON".
void check_writable(const std::filesystem::path& path);

/// The same for a results folder: creates `dir` (and its parents) if missing, then checks that
/// it accepts a new file. @throws std::runtime_error "cannot write into DIR: REASON".
void check_writable_folder(const std::filesystem::path& dir);

}  // namespace convlab
