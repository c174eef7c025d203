// Where the tests find the build's executables and the repository's datasets: one definition
// for every test file (the folders come from tests/CMakeLists.txt as compile definitions).
#pragma once

#include <filesystem>

namespace convlab::testing {

/// The committed datasets (datasets/conv2d, datasets/conv_layer, ...).
inline const std::filesystem::path kDatasets = std::filesystem::path(CONVLAB_SOURCE_DIR) / "datasets";

#ifdef CONVLAB_BIN_DIR
/// The build's executables (lab runners, solutions, benchmarks, the grader): GPU tests only.
inline const std::filesystem::path kBin = CONVLAB_BIN_DIR;
#endif

}  // namespace convlab::testing
