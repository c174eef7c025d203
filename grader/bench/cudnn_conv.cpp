// cuDNN's forward convolution for conv_layer_bench (see cudnn_conv.hpp).
#include "cudnn_conv.hpp"

#include <cuda_runtime.h>
#include <cudnn.h>

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "convlab/cuda_check.cuh"
#include "convlab/library_check.hpp"

namespace convlab::bench {
namespace {

const char* algo_text(cudnnConvolutionFwdAlgo_t a) {
  switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
    default: return "UNKNOWN";
  }
}

const char* math_text(cudnnMathType_t m) {
  switch (m) {
    case CUDNN_DEFAULT_MATH: return "DEFAULT";
    case CUDNN_TENSOR_OP_MATH: return "TENSOR_OP";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: return "TENSOR_OP_ALLOW_CONVERSION";
    case CUDNN_FMA_MATH: return "FMA";
    default: return "UNKNOWN";
  }
}

// The one handle (creating one costs tens of milliseconds).
cudnnHandle_t handle() {
  static cudnnHandle_t h = [] {
    cudnnHandle_t created = nullptr;
    CUDNN_CHECK(cudnnCreate(&created));
    return created;
  }();
  return h;
}

}  // namespace

struct CudnnConv::Impl {
  ConvLayerShape shape;
  CudnnMath math = CudnnMath::fma;
  cudnnMathType_t chosen_math = CUDNN_FMA_MATH;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  bool found = false;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  std::vector<cudnnConvolutionFwdAlgoPerf_t> usable;  // from find(), fastest first
};

CudnnConv::CudnnConv(const ConvLayerShape& s, CudnnMath math) : impl_(std::make_unique<Impl>()) {
  Impl& d = *impl_;
  d.shape = s;
  d.math = math;
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&d.x));
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&d.y));
  CUDNN_CHECK(cudnnCreateFilterDescriptor(&d.w));
  CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&d.conv));
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(d.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, s.batch, s.channels, s.height,
                                         s.width));
  CUDNN_CHECK(cudnnSetFilter4dDescriptor(d.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, s.filters, s.channels,
                                         s.mask_width, s.mask_width));
  CUDNN_CHECK(cudnnSetConvolution2dDescriptor(d.conv, s.padding, s.padding, s.stride, s.stride, s.dilation,
                                              s.dilation, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  // FMA math: float32 FFMA only; forbids TF32 (and any other tensor-core) conversions.
  // Tensor-op math lets cudnnFind also try the TF32 tensor-core kernels.
  CUDNN_CHECK(cudnnSetConvolutionMathType(d.conv, math == CudnnMath::fma ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH));
  int n = 0, c = 0, h = 0, w = 0;
  CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(d.conv, d.x, d.w, &n, &c, &h, &w));
  if (n != s.batch || c != s.filters || h != s.out_height() || w != s.out_width()) {
    throw std::runtime_error(fmt::format("cuDNN's output {}x{}x{}x{} differs from convlab's {}", n, c, h, w,
                                         s.describe()));
  }
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(d.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
}

CudnnConv::~CudnnConv() {
  Impl& d = *impl_;
  cudaFree(d.workspace);
  cudnnDestroyConvolutionDescriptor(d.conv);
  cudnnDestroyFilterDescriptor(d.w);
  cudnnDestroyTensorDescriptor(d.y);
  cudnnDestroyTensorDescriptor(d.x);
}

std::vector<CudnnCandidate> CudnnConv::find(const float* X, const float* W, float* Y) {
  Impl& d = *impl_;
  int max_count = 0;
  CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithmMaxCount(handle(), &max_count));
  // A generous workspace for the search (FFT and Winograd variants want a lot): a quarter of
  // the free memory, at most 4 GiB. Algorithms that need more are simply not tried.
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  std::size_t search_bytes = std::min<std::size_t>(free_bytes / 4, std::size_t{4} << 30);
  void* search = nullptr;
  CUDA_CHECK(cudaMalloc(&search, search_bytes));
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<std::size_t>(max_count));
  int returned = 0;
  const cudnnStatus_t st = cudnnFindConvolutionForwardAlgorithmEx(handle(), d.x, X, d.w, W, d.conv, d.y, Y, max_count,
                                                                  &returned, perf.data(), search, search_bytes);
  CUDA_CHECK(cudaFree(search));
  CUDNN_CHECK(st);
  std::vector<CudnnCandidate> out;
  for (int i = 0; i < returned; ++i) {
    const auto& p = perf[static_cast<std::size_t>(i)];
    CudnnCandidate c;
    c.algo = algo_text(p.algo);
    c.math = math_text(p.mathType);
    c.find_ms = p.time;
    c.workspace = p.memory;
    c.usable = p.status == CUDNN_STATUS_SUCCESS &&
               (d.math == CudnnMath::tf32 ||
                (p.mathType != CUDNN_TENSOR_OP_MATH && p.mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION));
    if (c.usable) d.usable.push_back(p);
    if (c.usable && !d.found) {  // results come fastest first
      d.found = true;
      d.algo = p.algo;
      d.workspace_bytes = p.memory;
      d.chosen_math = p.mathType;
      CUDNN_CHECK(cudnnSetConvolutionMathType(d.conv, p.mathType));
    }
    if (p.status == CUDNN_STATUS_SUCCESS) out.push_back(c);
  }
  if (!d.found) {
    throw std::runtime_error(d.math == CudnnMath::fma ? "cudnnFind returned no algorithm with FMA math"
                                                      : "cudnnFind returned no algorithm that succeeded");
  }
  if (d.workspace_bytes > 0) CUDA_CHECK(cudaMalloc(&d.workspace, d.workspace_bytes));
  return out;
}

std::vector<CudnnCandidate> CudnnConv::usable() const {
  std::vector<CudnnCandidate> out;
  for (const auto& p : impl_->usable) {
    out.push_back({algo_text(p.algo), math_text(p.mathType), p.time, p.memory, true});
  }
  return out;
}

void CudnnConv::select(std::size_t i) {
  Impl& d = *impl_;
  const cudnnConvolutionFwdAlgoPerf_t& p = d.usable.at(i);
  d.algo = p.algo;
  d.chosen_math = p.mathType;
  CUDNN_CHECK(cudnnSetConvolutionMathType(d.conv, p.mathType));
  if (p.memory > d.workspace_bytes) {
    CUDA_CHECK(cudaFree(d.workspace));
    d.workspace = nullptr;
    CUDA_CHECK(cudaMalloc(&d.workspace, p.memory));
  }
  d.workspace_bytes = std::max(d.workspace_bytes, p.memory);
}

void CudnnConv::run(const float* X, const float* W, float* Y) {
  Impl& d = *impl_;
  if (!d.found) throw std::logic_error("CudnnConv::run before find");
  const float alpha = 1.0f, beta = 0.0f;
  CUDNN_CHECK(cudnnConvolutionForward(handle(), &alpha, d.x, X, d.w, W, d.conv, d.algo, d.workspace,
                                      d.workspace_bytes, &beta, d.y, Y));
}

std::string CudnnConv::algo_name() const { return algo_text(impl_->algo); }

std::string CudnnConv::math_name() const { return math_text(impl_->chosen_math); }

std::string CudnnConv::version() {
  return fmt::format("cuDNN {}.{}.{} (library {})", CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL, cudnnGetVersion());
}

}  // namespace convlab::bench
