/// @file cudnn_conv.hpp
/// @brief cuDNN's forward convolution for the benchmarks: float32 data, FMA math only (no TF32
///        tensor cores) or TF32 tensor cores allowed, the fastest algorithm that
///        cudnnFindConvolutionForwardAlgorithmEx measures. Built only when CMake found cuDNN
///        (CONVLAB_HAVE_CUDNN).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "convlab/shapes.hpp"

namespace convlab::bench {

/// Which arithmetic cuDNN may use.
enum class CudnnMath {
  fma,   ///< CUDNN_FMA_MATH: float32 FFMA only
  tf32,  ///< tensor-core math allowed (TF32 for float32 data), as PyTorch's allow_tf32 does
};

/// One algorithm as cudnnFind measured it.
struct CudnnCandidate {
  std::string algo;       ///< e.g. "IMPLICIT_PRECOMP_GEMM"
  std::string math;       ///< "FMA", "DEFAULT", "TENSOR_OP", ...
  float find_ms = 0;      ///< cuDNN's own timing
  std::size_t workspace = 0;
  bool usable = false;    ///< succeeded, and (CudnnMath::fma) uses no tensor-core math
};

/// A conv layer set up in cuDNN (NCHW, cross-correlation, float32).
class CudnnConv {
 public:
  explicit CudnnConv(const ConvLayerShape& shape, CudnnMath math = CudnnMath::fma);
  ~CudnnConv();
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;

  /// Runs cudnnFindConvolutionForwardAlgorithmEx (it writes Y) and keeps the fastest usable
  /// algorithm. @returns every candidate, fastest first. @throws std::runtime_error if none is usable.
  std::vector<CudnnCandidate> find(const float* X, const float* W, float* Y);
  /// The usable candidates of find(), in its order (fastest first by cuDNN's own timing).
  [[nodiscard]] std::vector<CudnnCandidate> usable() const;
  /// Switches to usable()[i]. @throws std::out_of_range past the end.
  void select(std::size_t i);
  /// Y = conv(X, W) with the algorithm find() chose (enqueued on the default stream).
  void run(const float* X, const float* W, float* Y);
  /// The chosen algorithm's name.
  [[nodiscard]] std::string algo_name() const;
  /// The chosen algorithm's math type ("FMA", "TENSOR_OP", ...).
  [[nodiscard]] std::string math_name() const;

  /// "cuDNN 9.19.0 (runtime 91900)".
  static std::string version();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace convlab::bench
