/// @file npy.hpp
/// @brief Reading and writing NumPy `.npy` files (little-endian float32/float64, C order).
///
/// Supported: format versions 1.0, 2.0 and 3.0; dtypes `<f4` and `<f8`; `fortran_order: False`.
/// Everything else is rejected with an NpyError whose message names the file and the problem.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "convlab/atomic_file.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/limits.hpp"
#include "convlab/tensor.hpp"

namespace convlab {

/// A malformed, truncated or wrongly typed `.npy` file. what() names the file and the problem.
class NpyError : public LoadError {
 public:
  using LoadError::LoadError;
};

/// Reads a float32 (`<f4`) array. Throws NpyError for any other dtype or a malformed file.
///
/// Before it allocates, the reader checks the file (a regular file of at most `max_file_bytes`),
/// the header (at most kMaxNpyHeaderBytes), the shape (at most kMaxNpyRank axes and
/// kMaxTensorElements elements, limits.hpp) and shape × dtype against the bytes in the file.
Tensor<float> read_npy_f32(const std::filesystem::path& path, std::uint64_t max_file_bytes = kMaxNpyFileBytes);
/// Reads a float64 (`<f8`) array, as read_npy_f32.
Tensor<double> read_npy_f64(const std::filesystem::path& path, std::uint64_t max_file_bytes = kMaxNpyFileBytes);

/// The largest file that can hold `elements` values of `element_size` bytes: what a reader
/// passes as `max_file_bytes` when it knows the shape to expect (a lab's output), so that a
/// larger file is refused by its size before its header is read.
std::uint64_t npy_file_bytes_limit(std::uint64_t elements, std::size_t element_size);

/// Writes a float32 array as `.npy` version 1.0, atomically (temporary file, then rename), fsync'ed
/// unless `durability` is scratch (atomic_file.hpp).
void write_npy(const std::filesystem::path& path, const Tensor<float>& tensor,
               Durability durability = Durability::durable);
/// Writes a float64 array as `.npy` version 1.0, as the float32 one.
void write_npy(const std::filesystem::path& path, const Tensor<double>& tensor,
               Durability durability = Durability::durable);

}  // namespace convlab
