// The cuDNN peer: one image as a convolution layer with one input and one output channel
// (float32, CUDNN_FMA_MATH, the fastest algorithm cudnnFind measures for this problem).
//
// Placement: cuDNN pads symmetrically. For odd K, padding r = (K-1)/2 gives the lectures' H×W
// output exactly. For even K the lectures' placement needs r rows of ghosts above and r + 1
// below, which cuDNN cannot express; it gets padding r + 1 on every side instead, computes
// (H+1)×(W+1) outputs, and P is the window that starts at (1, 1). Only the convolution is timed
// (it does the 0.02–0.05% extra outputs of that frame); the crop into P is not.
#include <cuda_runtime.h>

#include <fmt/format.h>

#include "conv2d_peer.hpp"
#include "convlab/cuda_check.cuh"
#include "cudnn_conv.hpp"

namespace convlab::bench {
namespace {

class CudnnConv2d final : public Conv2dPeer {
 public:
  ~CudnnConv2d() override { cudaFree(frame_); }

  [[nodiscard]] std::string name() const override { return "cuDNN"; }

  void prepare(const Conv2dProblem& p) override {
    p_ = p;
    cudaFree(frame_);
    frame_ = nullptr;
    const int K = p.mask_width, r = (K - 1) / 2;
    even_ = K % 2 == 0;
    ConvLayerShape s;
    s.batch = s.channels = s.filters = 1;
    s.height = p.height, s.width = p.width, s.mask_width = K;
    s.stride = 1, s.dilation = 1, s.padding = even_ ? r + 1 : r;
    s.validate();
    if (even_) {
      CUDA_CHECK(cudaMalloc(&frame_, s.output_elements() * sizeof(float)));
    }
    conv_ = std::make_unique<CudnnConv>(s, CudnnMath::fma);
    conv_->find(p.N, p.M, out());
  }

  void run() override { conv_->run(p_.N, p_.M, out()); }

  void finish() override {
    if (!even_) return;
    const std::size_t frame_width = static_cast<std::size_t>(p_.width) + 1;
    CUDA_CHECK(cudaMemcpy2D(p_.P, sizeof(float) * p_.width, frame_ + frame_width + 1, sizeof(float) * frame_width,
                            sizeof(float) * p_.width, p_.height, cudaMemcpyDeviceToDevice));
  }

  [[nodiscard]] std::string detail() const override {
    return fmt::format("{} ({} math){}", conv_->algo_name(), conv_->math_name(),
                       even_ ? "; even K: (H+1)x(W+1) frame, crop untimed" : "");
  }

  [[nodiscard]] Accuracy accuracy() const override {
    const std::string a = conv_ ? conv_->algo_name() : "";
    return a.find("FFT") != std::string::npos || a.find("WINOGRAD") != std::string::npos ? Accuracy::transform
                                                                                          : Accuracy::direct;
  }
  [[nodiscard]] double transform_points() const override {
    // cuDNN does not say how it tiles its transforms; the whole padded image bounds them.
    return (static_cast<double>(p_.height) + p_.mask_width) * (static_cast<double>(p_.width) + p_.mask_width);
  }

 private:
  float* out() { return even_ ? frame_ : p_.P; }

  Conv2dProblem p_;
  bool even_ = false;
  float* frame_ = nullptr;
  std::unique_ptr<CudnnConv> conv_;
};

}  // namespace

std::unique_ptr<Conv2dPeer> make_cudnn_peer() { return std::make_unique<CudnnConv2d>(); }

}  // namespace convlab::bench
