/// @file npy.hpp
/// @brief Reading and writing NumPy `.npy` files (little-endian float32/float64, C order).
///
/// Supported: format versions 1.0, 2.0 and 3.0; dtypes `<f4` and `<f8`; `fortran_order: False`.
/// Everything else is rejected with an NpyError whose message names the file and the problem.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

#include "convlab/tensor.hpp"

namespace convlab {

/// A malformed, truncated or wrongly typed `.npy` file. what() names the file and the problem.
class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Reads a float32 (`<f4`) array. Throws NpyError for any other dtype or a malformed file.
Tensor<float> read_npy_f32(const std::filesystem::path& path);
/// Reads a float64 (`<f8`) array. Throws NpyError for any other dtype or a malformed file.
Tensor<double> read_npy_f64(const std::filesystem::path& path);

/// Writes a float32 array as `.npy` version 1.0, atomically (temporary file, then rename).
void write_npy(const std::filesystem::path& path, const Tensor<float>& tensor);
/// Writes a float64 array as `.npy` version 1.0, atomically (temporary file, then rename).
void write_npy(const std::filesystem::path& path, const Tensor<double>& tensor);

}  // namespace convlab
