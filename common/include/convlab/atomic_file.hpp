/// @file atomic_file.hpp
/// @brief Whole files: writing one atomically — a reader (Gradescope, a script polling a report,
///        a grader reading a lab's JSON) sees the old file or the new one, never half of one —
///        and reading one whole.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace convlab {

/// Whether a file written atomically must also outlive a crash of the machine.
enum class Durability {
  /// fsync'ed before the rename, and its folder after it: what a person keeps (reports,
  /// datasets, tuning files, the compile store). A crash leaves the old file or the new one.
  durable,
  /// Renamed whole, never fsync'ed: a run's own working files, read back by the same run (the
  /// cases a grader stages for a lab, a runner's outputs, samples and report, a compile
  /// folder's sources). A crash loses the run anyway, and an fsync waits for every write the
  /// machine has pending: in a class graded on two GPUs, one inside a timed run's witness window
  /// waited on the other GPU's checks (grader/README.md, "Measuring it on a GPU machine").
  scratch,
};

/// Writes `content` to a new temporary file in `path`'s folder, then renames it over `path`: a
/// reader sees the old file or the new one, never half of one. The temporary gets an
/// unpredictable name and is opened O_CREAT|O_EXCL|O_NOFOLLOW (a file or symlink planted under
/// any name is never written through). `durability` says whether the bytes and the rename are
/// fsync'ed. An existing symlink at `path` is replaced, not followed.
/// @param path the file to (re)place
/// @param content its new bytes
/// @param durability durable: the bytes and the rename fsync'ed; scratch: neither
/// @throws std::runtime_error "cannot write PATH: STEP: ERRNO TEXT" for the step that failed
///         (the temporary is removed).
void write_file_atomically(const std::filesystem::path& path, std::string_view content,
                           Durability durability = Durability::durable);

/// Checks, before long work starts, that write_file_atomically(`path`, …) can succeed: its
/// folder exists, accepts a new file (one is created and removed), and `path` is not a folder.
/// @throws std::runtime_error "cannot write PATH: REASON".
void check_writable(const std::filesystem::path& path);

/// The same for a results folder: creates `dir` (and its parents) if missing, then checks that
/// it accepts a new file. @throws std::runtime_error "cannot write into DIR: REASON".
void check_writable_folder(const std::filesystem::path& dir);

}  // namespace convlab
