// The benchmark's sampled correctness gate (see conv2d_check.hpp).
#include "conv2d_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "convlab/cuda_check.cuh"
#include "device_fill.cuh"

namespace convlab::bench {
namespace {

constexpr double kUnitRoundoff = 1.0 / 16777216.0;  // float32: 2^-24

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
  const int K = mask_width, r = (K - 1) / 2;
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
    const int row = static_cast<int>(index_[s] / width), col = static_cast<int>(index_[s] % width);
    double sum = 0, abs_sum = 0;
    for (int p = 0; p < K; ++p) {
      const int y = row - r + p;
      if (y < 0 || y >= height) continue;
      for (int q = 0; q < K; ++q) {
        const int x = col - r + q;
        if (x < 0 || x >= width) continue;
        const double term = static_cast<double>(image[static_cast<std::size_t>(y) * width + x]) * mask[p * K + q];
        sum += term;
        abs_sum += std::fabs(term);
      }
    }
    expected_[s] = sum;
    abs_sum_[s] = abs_sum;
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
  const double terms = static_cast<double>(mask_width_) * mask_width_;
  double transform_allowed = 0;
  if (accuracy == Accuracy::transform) {
    const double log2_points = std::log2(std::max(transform_points, 2.0));
    transform_allowed = kUnitRoundoff * (terms + 4 * log2_points) * max_abs_input_ * mask_abs_sum_ + 1e-30;
    r.accuracy = fmt::format("transform, 2^{:.1f} points", log2_points);
  } else {
    r.accuracy = "direct";
  }
  for (std::size_t s = 0; s < n; ++s) {
    const double allowed =
        accuracy == Accuracy::transform ? transform_allowed : terms * kUnitRoundoff * abs_sum_[s] + 1e-30;
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
