// The FFT peer: P = crop(IFFT(FFT(pad(N)) · FFT(place(M)))) with cuFFT, single precision.
//
// Cross-correlation as a circular convolution: with the image zero-padded to Hp×Wp
// (Hp ≥ H + K - 1, likewise Wp) and the mask placed at G[(r-p) mod Hp][(r-q) mod Wp] = M[p][q],
// (pad(N) ⊛ G)[i][j] = Σ_{p,q} N[i-r+p][j-r+q]·M[p][q] for every output, with no wrap-around
// onto real pixels. Hp and Wp are the next sizes with factors 2, 3, 5 and 7 only (cuFFT's fast
// radices). The timed run includes everything a call with a new image and a new mask needs:
// copying N into the padded buffer, placing M, both forward transforms, the pointwise product
// (with the 1/(Hp·Wp) scale), the inverse and the crop into P. Plans and the buffers' zero
// padding are set up once per problem, untimed.
#include <cufft.h>

#include <fmt/format.h>

#include <stdexcept>

#include "conv2d_peer.hpp"
#include "convlab/ceil_div.hpp"
#include "convlab/cuda_check.cuh"
#include "convlab/library_check.hpp"
#include "device_fill.cuh"

namespace convlab::bench {
namespace {

/// The smallest n' ≥ n whose only prime factors are 2, 3, 5 and 7.
int fft_size(int n) {
  for (int m = n;; ++m) {
    int x = m;
    for (int f : {2, 3, 5, 7}) {
      while (x % f == 0) x /= f;
    }
    if (x == 1) return m;
  }
}

// G[(r-p) mod Hp][(r-q) mod Wp] = M[p][q]; K² threads.
__global__ void place_mask(const float* M, int K, float* G, int Hp, int Wp) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= K * K) return;
  const int p = t / K, q = t % K, r = (K - 1) / 2;
  const int y = ((r - p) % Hp + Hp) % Hp, x = ((r - q) % Wp + Wp) % Wp;
  G[static_cast<std::size_t>(y) * Wp + x] = M[t];
}

// A[i] = A[i]·B[i]·scale over Hp×(Wp/2+1) complex values.
__global__ void multiply(cufftComplex* A, const cufftComplex* B, std::size_t n, float scale) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const cufftComplex a = A[i], b = B[i];
    A[i] = make_cuFloatComplex((a.x * b.x - a.y * b.y) * scale, (a.x * b.y + a.y * b.x) * scale);
  }
}

class CufftConv2d final : public Conv2dPeer {
 public:
  ~CufftConv2d() override { release(); }

  [[nodiscard]] std::string name() const override { return "cuFFT"; }

  void prepare(const Conv2dProblem& p) override {
    release();
    p_ = p;
    Hp_ = fft_size(p.height + p.mask_width - 1);
    Wp_ = fft_size(p.width + p.mask_width - 1);
    const std::size_t real = static_cast<std::size_t>(Hp_) * Wp_;
    const std::size_t cplx = static_cast<std::size_t>(Hp_) * (Wp_ / 2 + 1);
    CUDA_CHECK(cudaMalloc(&image_, real * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&mask_, real * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&result_, real * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&image_f_, cplx * sizeof(cufftComplex)));
    CUDA_CHECK(cudaMalloc(&mask_f_, cplx * sizeof(cufftComplex)));
    CUDA_CHECK(cudaMemset(image_, 0, real * sizeof(float)));  // the padding: runs only write the H×W corner
    CUDA_CHECK(cudaMemset(mask_, 0, real * sizeof(float)));   // runs only write the K² mask positions
    CUFFT_CHECK(cufftPlan2d(&forward_, Hp_, Wp_, CUFFT_R2C));
    CUFFT_CHECK(cufftPlan2d(&inverse_, Hp_, Wp_, CUFFT_C2R));
  }

  void run() override {
    const std::size_t cplx = static_cast<std::size_t>(Hp_) * (Wp_ / 2 + 1);
    const int K = p_.mask_width;
    CUDA_CHECK(cudaMemcpy2DAsync(image_, sizeof(float) * Wp_, p_.N, sizeof(float) * p_.width, sizeof(float) * p_.width,
                                 p_.height, cudaMemcpyDeviceToDevice));
    place_mask<<<ceil_div(K * K, 256), 256>>>(p_.M, K, mask_, Hp_, Wp_);
    CUDA_CHECK(cudaGetLastError());
    CUFFT_CHECK(cufftExecR2C(forward_, image_, image_f_));
    CUFFT_CHECK(cufftExecR2C(forward_, mask_, mask_f_));
    multiply<<<grid_for(cplx), 256>>>(image_f_, mask_f_, cplx, 1.0f / (static_cast<float>(Hp_) * Wp_));
    CUDA_CHECK(cudaGetLastError());
    CUFFT_CHECK(cufftExecC2R(inverse_, image_f_, result_));
    CUDA_CHECK(cudaMemcpy2DAsync(p_.P, sizeof(float) * p_.width, result_, sizeof(float) * Wp_, sizeof(float) * p_.width,
                                 p_.height, cudaMemcpyDeviceToDevice));
  }

  [[nodiscard]] std::string detail() const override {
    return fmt::format("R2C/C2R {}x{}, time incl. pad, mask FFT, product, inverse, crop", Hp_, Wp_);
  }
  [[nodiscard]] Accuracy accuracy() const override { return Accuracy::transform; }
  [[nodiscard]] double transform_points() const override { return static_cast<double>(Hp_) * Wp_; }

 private:
  void release() {
    if (forward_) cufftDestroy(forward_);
    if (inverse_) cufftDestroy(inverse_);
    forward_ = inverse_ = 0;
    for (void* p : {static_cast<void*>(image_), static_cast<void*>(mask_), static_cast<void*>(result_),
                    static_cast<void*>(image_f_), static_cast<void*>(mask_f_)}) {
      cudaFree(p);
    }
    image_ = mask_ = result_ = nullptr;
    image_f_ = mask_f_ = nullptr;
  }

  Conv2dProblem p_;
  int Hp_ = 0, Wp_ = 0;
  float *image_ = nullptr, *mask_ = nullptr, *result_ = nullptr;
  cufftComplex *image_f_ = nullptr, *mask_f_ = nullptr;
  cufftHandle forward_ = 0, inverse_ = 0;
};

}  // namespace

std::unique_ptr<Conv2dPeer> make_cufft_peer() { return std::make_unique<CufftConv2d>(); }

}  // namespace convlab::bench
