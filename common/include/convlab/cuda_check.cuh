/// @file cuda_check.cuh
/// @brief CUDA_CHECK: the one error-checking macro. Wrap every runtime call, and check every
///        launch with `CUDA_CHECK(cudaGetLastError())`.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace convlab {

/// A failed CUDA runtime call. what() names the call, the file and line, and CUDA's message.
class CudaError : public std::runtime_error {
 public:
  /// An error with CUDA's code and a message naming the call.
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  /// The CUDA error code.
  [[nodiscard]] cudaError_t code() const { return code_; }
  /// True for errors that leave the context unusable (illegal address, launch failure, ...):
  /// nothing more can run in this process.
  [[nodiscard]] bool sticky() const;

 private:
  cudaError_t code_;
};

/// Throws CudaError unless `code` is cudaSuccess. Use through CUDA_CHECK.
void cuda_check(cudaError_t code, const char* call, const char* file, int line);

}  // namespace convlab

/// Checks a CUDA runtime call; on failure throws convlab::CudaError naming the call, file, line.
#define CUDA_CHECK(call) ::convlab::cuda_check((call), #call, __FILE__, __LINE__)
