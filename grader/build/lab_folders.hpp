// The labs the grader knows: the lab registry's labs (convlab/lab_registry.hpp), each with its
// folder under the project's labs/ and the files a student edits in it (every source file
// there; README.md is the assignment, not a source). A submission must hold the same folders
// with the same file names.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace convlab::grader {

/// One lab, as found in labs/.
struct LabInfo {
  std::string number;               ///< "01"
  std::string folder;               ///< "01-naive"
  std::vector<std::string> files;   ///< "naive.cu", sorted
  /// "lab01": the executable built from the lab folder (the solution's is "solution01").
  [[nodiscard]] std::string id() const { return "lab" + number; }
};

/// The registry's labs, found under `labs_dir`, in number order. A folder named NN-name that
/// holds no source file is reading, not a lab (00-start, the start page), and is passed over.
/// @throws std::runtime_error if the folder holds no lab folder (NN-name/), one the registry
///         does not list, or lacks one the registry lists.
std::vector<LabInfo> discover_labs(const std::filesystem::path& labs_dir);

/// The labs named by `spec`, a comma-separated list such as "01,03", "1,3" or "lab01,lab03";
/// an empty spec or "all" selects every lab. @throws std::invalid_argument naming an unknown lab.
std::vector<LabInfo> select_labs(const std::vector<LabInfo>& all, const std::string& spec);

/// The files of `lab` missing from `submission/<folder>/`, as "01-naive/naive.cu".
std::vector<std::string> missing_files(const std::filesystem::path& submission, const LabInfo& lab);

}  // namespace convlab::grader
