// A class folder: one submission folder per student (`grader batch DIR`, `grader slurm DIR`).
// The folder is the instructor's, its entries often unpacked from students' archives: a link
// among them is followed only inside the class folder (convlab/contained_paths.hpp), and one
// entry that leads out, dangles or loops costs that student only.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "schedule/class_pipeline.hpp"

namespace convlab::grader {

/// The students of `dir`, by name: every folder (or link to a folder) whose name does not begin
/// with a dot. An entry that is a link out of `dir`, a dangling link or a loop of links is
/// listed with ClassSubmission::refused naming why; plain files are not students.
/// @throws PathError when `dir` itself is not a folder (contained_paths.hpp's given_folder)
std::vector<ClassSubmission> read_class_folder(const std::filesystem::path& dir, std::string_view role);

}  // namespace convlab::grader
