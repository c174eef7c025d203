// The benchmark's sampled correctness gate (see conv2d_check.hpp).
#include "conv2d_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "convlab/compare.hpp"
#include "convlab/cuda_check.cuh"
#include "convlab/reference.hpp"
#include "device_fill.cuh"

namespace convlab::bench {
namespace {

__global__ void gather(const float* P, const std::size_t* index, float* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    out[i] = P[index[i]];
  }
}

__global__ void count_not_finite(const float* P, std::size_t n, unsigned long long* count) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    mine += isfinite(P[i]) ? 0 : 1;
  }
  if (mine) atomicAdd(count, mine);
}

}  // namespace

std::string CheckResult::describe() const {
  if (ok()) return fmt::format("ok: {} samples, worst {:.3f} of allowed ({})", samples, worst_ratio, accuracy);
  std::string s;
  if (not_finite) s = fmt::format("{} outputs unwritten or not finite", not_finite);
  if (bad) {
    s += fmt::format("{}{} of {} samples out of tolerance ({}), first at {}", s.empty() ? "" : "; ", bad, samples,
                     accuracy, first_bad);
  }
  return s;
}

Conv2dChecker::Conv2dChecker(const std::vector<float>& image, int height, int width, const std::vector<float>& mask,
                             int mask_width, std::size_t interior_samples, std::uint64_t seed)
    : height_(height), width_(width), mask_width_(mask_width) {
  const int K = mask_width;
  // Every output within K of an edge (their windows hold the ghost cells), then random interior ones.
  std::vector<std::size_t> idx;
  for (int row = 0; row < height; ++row) {
    const bool edge_row = row < K || row >= height - K;
    for (int col = 0; col < width; ++col) {
      if (edge_row || col < K || col >= width - K) idx.push_back(static_cast<std::size_t>(row) * width + col);
      else col = width - K - 1;  // jump to the right band
    }
  }
  if (height > 2 * K && width > 2 * K) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> rows(K, height - K - 1), cols(K, width - K - 1);
    for (std::size_t i = 0; i < interior_samples; ++i) {
      idx.push_back(static_cast<std::size_t>(rows(rng)) * width + cols(rng));
    }
  }
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  index_ = std::move(idx);

  expected_.resize(index_.size());
  abs_sum_.resize(index_.size());
  for (std::size_t s = 0; s < index_.size(); ++s) {
    const Conv2dOutput o = conv2d_reference_at(image.data(), height, width, mask.data(), K,
                                               static_cast<int>(index_[s] / width), static_cast<int>(index_[s] % width));
    expected_[s] = o.value;
    abs_sum_[s] = o.abs_sum;
  }
  for (float v : image) max_abs_input_ = std::max(max_abs_input_, static_cast<double>(std::fabs(v)));
  for (float v : mask) mask_abs_sum_ += std::fabs(v);

  CUDA_CHECK(cudaMalloc(&index_device_, index_.size() * sizeof(std::size_t)));
  CUDA_CHECK(cudaMalloc(&gathered_device_, index_.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&count_device_, sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemcpy(index_device_, index_.data(), index_.size() * sizeof(std::size_t), cudaMemcpyHostToDevice));
}

Conv2dChecker::~Conv2dChecker() {
  cudaFree(index_device_);
  cudaFree(gathered_device_);
  cudaFree(count_device_);
}

CheckResult Conv2dChecker::check(const float* P, Accuracy accuracy, double transform_points) const {
  const std::size_t n = index_.size();
  const std::size_t total = static_cast<std::size_t>(height_) * width_;
  CUDA_CHECK(cudaMemset(count_device_, 0, sizeof(unsigned long long)));
  gather<<<grid_for(n), 256>>>(P, index_device_, gathered_device_, n);
  CUDA_CHECK(cudaGetLastError());
  count_not_finite<<<grid_for(total), 256>>>(P, total, count_device_);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> got(n);
  CheckResult r;
  CUDA_CHECK(cudaMemcpy(got.data(), gathered_device_, n * sizeof(float), cudaMemcpyDeviceToHost));
  unsigned long long not_finite = 0;
  CUDA_CHECK(cudaMemcpy(&not_finite, count_device_, sizeof not_finite, cudaMemcpyDeviceToHost));
  r.not_finite = not_finite;
  r.samples = n;
  const std::size_t terms = static_cast<std::size_t>(mask_width_) * mask_width_;
  double transform_allowed = 0;
  if (accuracy == Accuracy::transform) {
    // The design's rule n·u·S with n·S = (K² + 4·log2(points))·max|N|·Σ|M|, the largest S any output can have.
    const double log2_points = std::log2(std::max(transform_points, 2.0));
    transform_allowed = allowed_error(1, (static_cast<double>(terms) + 4 * log2_points) * max_abs_input_ * mask_abs_sum_,
                                      Tolerance::fp32());
    r.accuracy = fmt::format("transform, 2^{:.1f} points", log2_points);
  } else {
    r.accuracy = "direct";
  }
  for (std::size_t s = 0; s < n; ++s) {
    const double allowed =
        accuracy == Accuracy::transform ? transform_allowed : allowed_error(terms, abs_sum_[s], Tolerance::fp32());
    const double err = std::fabs(static_cast<double>(got[s]) - expected_[s]);
    if (std::isfinite(err)) r.worst_ratio = std::max(r.worst_ratio, err / allowed);
    if (!(err <= allowed)) {
      if (r.bad++ == 0) {
        r.first_bad = fmt::format("({}, {}): expected {:.9g}, got {:.9g} (allowed ±{:.3g})", index_[s] / width_,
                                  index_[s] % width_, expected_[s], got[s], allowed);
      }
    }
  }
  return r;
}

}  // namespace convlab::bench
