/// @file contained_paths.hpp
/// @brief The one rule for every folder a command is given (a submission, a class, the
///        datasets, a bench results folder, the repository of `grader docs`): what the command
///        reads or writes there stays inside it.
///
/// A symbolic link inside such a folder is followed only when what it leads to lies inside the
/// same folder; a link that leads out, dangles, or belongs to a loop of links is a PathError
/// whose message names the link. A writer never follows a link at the name it writes
/// (atomic_file.hpp replaces it); these functions check the folders on the way to that name.
///
/// Why: a submission is a student's folder, and `ln -s /course/hidden/expected.npy answers.h`
/// would otherwise make the grader itself (outside the sandbox) copy the hidden answers into the
/// build; a results folder with `speedup.png -> ~/.bashrc` would make gnuplot overwrite it. A
/// loop of links made every walk end in a raw `filesystem error`.
///
/// The checks look at the folder as it is when called: the folders are the user's own and are
/// not changed by anyone while a command reads them (a submission's build and runs happen in
/// the sandbox on copies).
#pragma once

#include <filesystem>
#include <functional>
#include <string_view>
#include <vector>

#include "convlab/file_reader.hpp"

namespace convlab {

/// A path that leaves its folder through a link, dangles, or loops; what() names the link.
class PathError : public LoadError {
 public:
  using LoadError::LoadError;
};

/// The folder a command was given (`role`: the option or argument that named it, for the
/// message): its canonical path.
/// @throws PathError "--datasets cases: no such folder", "...: a loop of symbolic links", "...:
///         is a file, not a folder"
std::filesystem::path given_folder(const std::filesystem::path& folder, std::string_view role);

/// `path`, at or below `folder`, with every link on the way followed and checked to stay inside
/// `folder`. Parts that do not exist yet (an output about to be written) are kept as given.
/// @returns the resolved path, inside canonical(`folder`)
/// @throws PathError naming the first link that leads out of `folder`, dangles or loops, or
///         `path` when it is not below `folder` at all
std::filesystem::path resolve_inside(const std::filesystem::path& folder, const std::filesystem::path& path);

/// Where `file`, below `folder`, is to be written: its folder resolved as resolve_inside does
/// and created where missing, the file's own name kept (write_file_atomically then replaces a
/// link of that name instead of following it).
/// @throws PathError as resolve_inside; std::filesystem::filesystem_error when a folder cannot be created
std::filesystem::path output_inside(const std::filesystem::path& folder, const std::filesystem::path& file);

/// Whether `path` (relative to a walked folder) is one the walk passes over, with what is below it.
using SkipEntry = std::function<bool(const std::filesystem::path& relative)>;

/// Every regular file below `folder`, as paths relative to it, sorted. A link to a file inside
/// is listed under its own name (reading it reads the file it leads to); a link to a folder is
/// not entered (its files are listed where they lie). Sockets, FIFOs and devices are passed
/// over: reading one could block.
/// @throws PathError for a link that leads out of `folder`, dangles or loops, or a folder that
///         cannot be read
std::vector<std::filesystem::path> files_inside(const std::filesystem::path& folder, const SkipEntry& skip = {});

}  // namespace convlab
