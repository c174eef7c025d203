// The NPP peer: nppiFilterBorder_32f_C1R, the image-processing library's general 2D filter.
//
// NPP's conventions differ from the lectures' in two ways, both settled at prepare() time on a
// small image against the CPU reference rather than assumed:
//   * orientation: NPP documents its coefficients "in reverse order" (a true convolution), so
//     the lectures' cross-correlation passes the mask flipped; both orientations are tried;
//   * the border: the lectures' ghost cells are zeros. NPP_BORDER_CONSTANT is used when this
//     NPP accepts it for this function (NPP 13.0 answers NPP_NOT_SUPPORTED_MODE_ERROR: only
//     REPLICATE is implemented); otherwise the image is copied into a buffer with a K-pixel
//     zero frame (zeroed once, untimed) and filtered with NPP_BORDER_REPLICATE, which then
//     only ever replicates zeros. The timed run includes that copy.
// The anchor is (r, r), r = (K-1)/2, or (K-1-r, K-1-r) if only that placement matches.
#include <cuda_runtime.h>
#include <nppi_filtering_functions.h>

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "conv2d_peer.hpp"
#include "convlab/compare.hpp"
#include "convlab/cuda_check.cuh"
#include "convlab/library_check.hpp"
#include "convlab/reference.hpp"
#include "convlab/tensor.hpp"
#include "device_fill.cuh"

namespace convlab::bench {
namespace {

NppStreamContext default_stream_context() {
  NppStreamContext c{};
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  c.hStream = nullptr;
  c.nCudaDeviceId = device;
  c.nMultiProcessorCount = prop.multiProcessorCount;
  c.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  c.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  c.nSharedMemPerBlock = prop.sharedMemPerBlock;
  c.nCudaDevAttrComputeCapabilityMajor = prop.major;
  c.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  unsigned flags = 0;
  CUDA_CHECK(cudaStreamGetFlags(nullptr, &flags));
  c.nStreamFlags = flags;
  return c;
}

struct Placement {
  bool constant_border = true;  // else: zero frame + NPP_BORDER_REPLICATE
  bool flipped = true;          // coefficients reversed
  int anchor = 0;
};

class NppConv2d final : public Conv2dPeer {
 public:
  ~NppConv2d() override { release(); }

  [[nodiscard]] std::string name() const override { return "NPP nppiFilterBorder_32f_C1R"; }

  void prepare(const Conv2dProblem& p) override {
    release();
    p_ = p;
    ctx_ = default_stream_context();
    place_ = calibrate(p.mask_width);
    setup(p, place_, p_.height, p_.width);
  }

  void run() override { filter(p_.N, p_.P, p_.height, p_.width); }

  [[nodiscard]] std::string detail() const override {
    return fmt::format("{}, {} mask, anchor ({},{})",
                       place_.constant_border ? "NPP_BORDER_CONSTANT" : "zero-framed copy + NPP_BORDER_REPLICATE",
                       place_.flipped ? "reversed" : "unreversed", place_.anchor, place_.anchor);
  }

 private:
  // Device mask and (for the framed placement) the zero frame for an image of h×w.
  void setup(const Conv2dProblem& p, const Placement& place, int h, int w) {
    release();
    const int K = p.mask_width;
    std::vector<float> m(p.mask_host);
    if (place.flipped) std::reverse(m.begin(), m.end());  // (p, q) → (K-1-p, K-1-q)
    CUDA_CHECK(cudaMalloc(&mask_, m.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(mask_, m.data(), m.size() * sizeof(float), cudaMemcpyHostToDevice));
    if (!place.constant_border) {
      frame_w_ = w + 2 * K;
      frame_h_ = h + 2 * K;
      const std::size_t bytes = static_cast<std::size_t>(frame_w_) * frame_h_ * sizeof(float);
      CUDA_CHECK(cudaMalloc(&frame_, bytes));
      CUDA_CHECK(cudaMemset(frame_, 0, bytes));
    }
    current_ = place;
  }

  void filter(const float* N, float* P, int h, int w) {
    const int K = p_.mask_width;
    const NppiSize roi{w, h};
    const NppiSize ksize{K, K};
    const NppiPoint anchor{current_.anchor, current_.anchor};
    if (current_.constant_border) {
      NPP_CHECK(nppiFilterBorder_32f_C1R_Ctx(N, static_cast<int>(sizeof(float)) * w, roi, NppiPoint{0, 0}, P,
                                        static_cast<int>(sizeof(float)) * w, roi, mask_, ksize, anchor,
                                        NPP_BORDER_CONSTANT, ctx_));
    } else {
      float* inner = frame_ + static_cast<std::size_t>(K) * frame_w_ + K;
      CUDA_CHECK(cudaMemcpy2DAsync(inner, sizeof(float) * frame_w_, N, sizeof(float) * w, sizeof(float) * w, h,
                                   cudaMemcpyDeviceToDevice));
      // pSrc points at the first pixel filtered; oSrcSize and oSrcOffset place it in the framed image.
      NPP_CHECK(nppiFilterBorder_32f_C1R_Ctx(inner, static_cast<int>(sizeof(float)) * frame_w_, NppiSize{frame_w_, frame_h_},
                                        NppiPoint{K, K}, P, static_cast<int>(sizeof(float)) * w, roi, mask_, ksize,
                                        anchor, NPP_BORDER_REPLICATE, ctx_));
    }
    CUDA_CHECK(cudaGetLastError());
  }

  // The first placement that reproduces the CPU reference on a small random image.
  Placement calibrate(int K) {
    const int h = 37, w = 53, r = (K - 1) / 2;
    Tensor<float> image({static_cast<std::size_t>(h), static_cast<std::size_t>(w)});
    for (std::size_t i = 0; i < image.size(); ++i) image.data()[i] = uniform_value(0xCA11B, i);
    Tensor<float> mask({static_cast<std::size_t>(K), static_cast<std::size_t>(K)}, p_.mask_host);
    const Tensor<double> expected = conv2d_reference(image, mask);
    const Tensor<double> abs_sum = conv2d_abs_sum(image, mask);
    float *in = nullptr, *out = nullptr;
    CUDA_CHECK(cudaMalloc(&in, image.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&out, image.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(in, image.data(), image.size() * sizeof(float), cudaMemcpyHostToDevice));
    std::string tried;
    for (bool constant : {true, false}) {
      for (bool flipped : {true, false}) {
        for (int anchor : {r, K - 1 - r}) {
          const Placement pl{constant, flipped, anchor};
          Tensor<float> got({static_cast<std::size_t>(h), static_cast<std::size_t>(w)});
          try {
            setup(p_, pl, h, w);
            CUDA_CHECK(cudaMemset(out, 0xFF, got.size() * sizeof(float)));
            filter(in, out, h, w);
            CUDA_CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
          } catch (const CudaError& e) {
            if (e.sticky()) throw;
            tried += fmt::format("; {}", e.what());
            continue;
          } catch (const std::runtime_error& e) {
            tried += fmt::format("; {}", e.what());
            continue;
          }
          const CompareResult c = compare_outputs(got, expected, abs_sum, static_cast<std::size_t>(K) * K,
                                                  Tolerance::fp32());
          if (c.ok()) {
            cudaFree(in);
            cudaFree(out);
            release();
            return pl;
          }
          tried += fmt::format("; {} border, {}, anchor {}: {}", constant ? "constant" : "framed",
                               flipped ? "reversed" : "unreversed", anchor, c.summary());
        }
      }
    }
    cudaFree(in);
    cudaFree(out);
    release();
    throw std::runtime_error("NPP matches the lectures' convolution under no border, orientation or anchor" + tried);
  }

  void release() {
    cudaFree(mask_);
    cudaFree(frame_);
    mask_ = nullptr;
    frame_ = nullptr;
  }

  Conv2dProblem p_;
  NppStreamContext ctx_{};
  Placement place_, current_;
  float* mask_ = nullptr;
  float* frame_ = nullptr;
  int frame_w_ = 0, frame_h_ = 0;
};

}  // namespace

std::unique_ptr<Conv2dPeer> make_npp_peer() { return std::make_unique<NppConv2d>(); }

}  // namespace convlab::bench
