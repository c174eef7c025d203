// Drawing a results folder's pictures with gnuplot without writing through what the folder
// holds. A script of `grader bench` or `grader tune` names each picture (`set output
// "speedup.png"`), and gnuplot opens that name and writes into whatever is there: a link planted
// in a results folder copied from elsewhere (`speedup.png -> ~/.bashrc`), or a hard link to
// another file. So gnuplot works in a fresh private folder inside the results folder, finds the
// data files through its loadpath, and each picture it drew is then moved into place by
// rename(2), which replaces the name instead of writing through it (as atomic_file.hpp does
// for every other file the grader writes).
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "system/subprocess.hpp"

namespace convlab::grader {

struct GnuplotRun {
  ProcessResult process;           ///< gnuplot's run
  std::vector<std::string> drawn;  ///< the PNG files it drew, now in the results folder, sorted
};

/// Runs `gnuplot` on `script`, a file in `dir` whose data files lie in `dir` too, and moves the
/// PNG files it drew into `dir`.
/// @throws PathError when `dir` is not a folder; std::filesystem::filesystem_error when the
///         private folder cannot be made
GnuplotRun run_gnuplot(const std::filesystem::path& gnuplot, const std::filesystem::path& dir,
                       const std::string& script, std::chrono::seconds timeout);

}  // namespace convlab::grader
