/// @file dataset.hpp
/// @brief Dataset cases on disk: a folder with `case.json` and `.npy` files (datasets/README.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "convlab/atomic_file.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/reference.hpp"
#include "convlab/shapes.hpp"
#include "convlab/tensor.hpp"

namespace convlab {

/// A malformed case folder; what() names the file, the field and what is wrong.
class DatasetError : public LoadError {
 public:
  using LoadError::LoadError;
};

/// Which of the two problems a case poses.
enum class Problem { conv2d, conv_layer };

/// "conv2d" or "conv_layer", as written in case.json.
const char* problem_name(Problem p);

/// Version of the case.json format this code reads and writes.
inline constexpr int kCaseFormatVersion = 1;

/// The metadata of a case, from its `case.json`.
struct CaseInfo {
  std::filesystem::path dir;  ///< the case folder
  std::string name;           ///< e.g. "k5_37x53"; unique within its problem
  Problem problem = Problem::conv2d;  ///< which problem, hence which shape is valid
  Conv2dShape conv2d;         ///< valid when problem == conv2d
  ConvLayerShape layer;       ///< valid when problem == conv_layer
  std::uint64_t seed = 0;     ///< generator seed (0 for hand-made cases)
  std::string description;    ///< one line for people
  /// "conv2d/k5_37x53", the name used in reports.
  [[nodiscard]] std::string id() const;
};

/// A conv2d case in memory.
struct Conv2dCase {
  CaseInfo info;                          ///< metadata from case.json
  Tensor<float> image;                    ///< N, H×W
  Tensor<float> mask;                     ///< M, K×K
  std::optional<Tensor<double>> expected; ///< P from the reference, H×W (absent for graders' children)
};

/// A conv-layer case in memory.
struct ConvLayerCase {
  CaseInfo info;                          ///< metadata from case.json
  Tensor<float> x;                        ///< X, B×C×H×W
  Tensor<float> w;                        ///< W, M×C×K×K
  std::optional<Tensor<double>> expected; ///< Y, B×M×Ho×Wo
  /// Stride, padding and dilation, as the reference takes them.
  [[nodiscard]] ConvLayerParams params() const {
    return {info.layer.stride, info.layer.padding, info.layer.dilation};
  }
};

/// Why `name` cannot name a case ("it holds '/'; ...", "" when it can): a case name is one path
/// component of letters, digits, '.', '_' and '-', not "." or "..", at most kMaxCaseNameLength long.
std::string case_name_problem(const std::string& name);

/// Reads and validates `dir/case.json`: a regular file of at most kMaxTextFileBytes, every
/// field of the right type and within limits.hpp, the name a plain case name.
/// @throws DatasetError naming the file, the field and the reason
CaseInfo read_case_info(const std::filesystem::path& dir);

/// Loads a conv2d case; the expected output is read only when `with_expected` and present.
/// Shapes in the files must agree with case.json. @throws DatasetError, NpyError
Conv2dCase load_conv2d_case(const std::filesystem::path& dir, bool with_expected = true);
/// Loads a conv-layer case, as load_conv2d_case. @throws DatasetError, NpyError
ConvLayerCase load_conv_layer_case(const std::filesystem::path& dir, bool with_expected = true);

/// Writes a case folder (case.json and its .npy files), creating `dir`; `durability` as
/// write_file_atomically's (scratch: a case a grader stages for one run).
void write_case(const std::filesystem::path& dir, const Conv2dCase& c, Durability durability = Durability::durable);
/// Writes a case folder (case.json and its .npy files), creating `dir`, as the conv2d one.
void write_case(const std::filesystem::path& dir, const ConvLayerCase& c, Durability durability = Durability::durable);

/// The case folders under `path`: `path` itself if it holds a case.json, else every folder
/// below it (at any depth) that does, sorted by path. A folder that cannot be read is passed
/// over and described in `skipped` (when given). @throws DatasetError if there are none.
std::vector<std::filesystem::path> find_cases(const std::filesystem::path& path,
                                              std::vector<std::string>* skipped = nullptr);

}  // namespace convlab
