/// @file library_check.hpp
/// @brief One error check per CUDA library, beside CUDA_CHECK (cuda_check.cuh) for the runtime:
///        CUDNN_CHECK, CUFFT_CHECK, CUBLAS_CHECK, NVRTC_CHECK, NPP_CHECK. Each throws
///        convlab::LibraryError whose what() names the library, the call, the file and line,
///        and the library's own error text.
///
/// A check exists when its library's header can be included (`__has_include`): the toolkit's
/// cuFFT, cuBLAS, NVRTC and NPP, and cuDNN where the target was given its include folder. The
/// functions are inline, so a program links only the libraries whose checks it calls.
#pragma once

#include <stdexcept>
#include <string>

namespace convlab {

/// A failed call of a CUDA library (not the runtime: that is CudaError).
class LibraryError : public std::runtime_error {
 public:
  /// `library` "cuDNN", `code` the library's status as an integer, `what` the full message.
  LibraryError(const char* library, int code, const std::string& what)
      : std::runtime_error(what), library_(library), code_(code) {}
  /// "cuDNN", "cuFFT", "cuBLAS", "NVRTC" or "NPP".
  [[nodiscard]] const char* library() const { return library_; }
  /// The library's status code, as an integer.
  [[nodiscard]] int code() const { return code_; }

 private:
  const char* library_;
  int code_;
};

namespace detail {

/// "cuFFT error: cufftExecR2C(...) failed at cufft_conv2d.cu:92: CUFFT_INVALID_PLAN (1)".
[[noreturn]] inline void throw_library_error(const char* library, int code, const std::string& text, const char* call,
                                             const char* file, int line) {
  throw LibraryError(library, code,
                     std::string(library) + " error: " + call + " failed at " + file + ":" + std::to_string(line) +
                         ": " + text + " (" + std::to_string(code) + ")");
}

}  // namespace detail
}  // namespace convlab

// ---- cuDNN ---------------------------------------------------------------------------------------
#if __has_include(<cudnn.h>)
#include <cudnn.h>
namespace convlab {
/// Throws LibraryError unless `s` is CUDNN_STATUS_SUCCESS. Use through CUDNN_CHECK.
inline void cudnn_check(cudnnStatus_t s, const char* call, const char* file, int line) {
  if (s != CUDNN_STATUS_SUCCESS) detail::throw_library_error("cuDNN", static_cast<int>(s), cudnnGetErrorString(s), call, file, line);
}
}  // namespace convlab
/// Checks a cuDNN call.
#define CUDNN_CHECK(call) ::convlab::cudnn_check((call), #call, __FILE__, __LINE__)
#endif

// ---- cuFFT ---------------------------------------------------------------------------------------
#if __has_include(<cufft.h>)
#include <cufft.h>
namespace convlab {
/// cuFFT has no error-string function: the names of cufft.h's cufftResult values (by number,
/// since toolkits add and retire names).
inline const char* cufft_result_name(int code) {
  static const char* const kNames[] = {
      "CUFFT_SUCCESS",        "CUFFT_INVALID_PLAN",     "CUFFT_ALLOC_FAILED",
      "CUFFT_INVALID_TYPE",   "CUFFT_INVALID_VALUE",    "CUFFT_INTERNAL_ERROR",
      "CUFFT_EXEC_FAILED",    "CUFFT_SETUP_FAILED",     "CUFFT_INVALID_SIZE",
      "CUFFT_UNALIGNED_DATA", "CUFFT_INCOMPLETE_PARAMETER_LIST", "CUFFT_INVALID_DEVICE",
      "CUFFT_PARSE_ERROR",    "CUFFT_NO_WORKSPACE",     "CUFFT_NOT_IMPLEMENTED",
      "CUFFT_LICENSE_ERROR",  "CUFFT_NOT_SUPPORTED",    "CUFFT_MISSING_DEPENDENCY",
      "CUFFT_NVRTC_FAILURE",  "CUFFT_NVJITLINK_FAILURE", "CUFFT_NVSHMEM_FAILURE"};
  return code >= 0 && code < static_cast<int>(sizeof kNames / sizeof kNames[0]) ? kNames[code] : "unknown cufftResult";
}
/// Throws LibraryError unless `r` is CUFFT_SUCCESS. Use through CUFFT_CHECK.
inline void cufft_check(cufftResult r, const char* call, const char* file, int line) {
  if (r != CUFFT_SUCCESS) {
    detail::throw_library_error("cuFFT", static_cast<int>(r), cufft_result_name(static_cast<int>(r)), call, file, line);
  }
}
}  // namespace convlab
/// Checks a cuFFT call.
#define CUFFT_CHECK(call) ::convlab::cufft_check((call), #call, __FILE__, __LINE__)
#endif

// ---- cuBLAS --------------------------------------------------------------------------------------
#if __has_include(<cublas_v2.h>)
#include <cublas_v2.h>
namespace convlab {
/// Throws LibraryError unless `s` is CUBLAS_STATUS_SUCCESS. Use through CUBLAS_CHECK.
inline void cublas_check(cublasStatus_t s, const char* call, const char* file, int line) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    detail::throw_library_error("cuBLAS", static_cast<int>(s),
                                std::string(cublasGetStatusName(s)) + ": " + cublasGetStatusString(s), call, file, line);
  }
}
}  // namespace convlab
/// Checks a cuBLAS call.
#define CUBLAS_CHECK(call) ::convlab::cublas_check((call), #call, __FILE__, __LINE__)
#endif

// ---- NVRTC ---------------------------------------------------------------------------------------
#if __has_include(<nvrtc.h>)
#include <nvrtc.h>
namespace convlab {
/// Throws LibraryError unless `r` is NVRTC_SUCCESS. Use through NVRTC_CHECK.
inline void nvrtc_check(nvrtcResult r, const char* call, const char* file, int line) {
  if (r != NVRTC_SUCCESS) detail::throw_library_error("NVRTC", static_cast<int>(r), nvrtcGetErrorString(r), call, file, line);
}
}  // namespace convlab
/// Checks an NVRTC call.
#define NVRTC_CHECK(call) ::convlab::nvrtc_check((call), #call, __FILE__, __LINE__)
#endif

// ---- NPP -----------------------------------------------------------------------------------------
#if __has_include(<nppdefs.h>)
#include <nppdefs.h>
namespace convlab {
/// Throws LibraryError unless `s` is NPP_SUCCESS (NPP's warnings, positive codes, are errors
/// here too: a filter that did nothing is not a result). NPP has no error-string function; the
/// code is the NppStatus value of nppdefs.h.
inline void npp_check(NppStatus s, const char* call, const char* file, int line) {
  if (s != NPP_SUCCESS) {
    detail::throw_library_error("NPP", static_cast<int>(s),
                                static_cast<int>(s) < 0 ? "NppStatus error (see nppdefs.h)" : "NppStatus warning (see nppdefs.h)",
                                call, file, line);
  }
}
}  // namespace convlab
/// Checks an NPP call.
#define NPP_CHECK(call) ::convlab::npp_check((call), #call, __FILE__, __LINE__)
#endif
