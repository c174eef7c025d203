// Seeded benchmark data on the device (see device_fill.cuh).
#include "device_fill.cuh"

#include <algorithm>

#include "convlab/ceil_div.hpp"
#include "convlab/cuda_check.cuh"

namespace convlab::bench {
namespace {

__host__ __device__ inline float hashed_value(std::uint64_t seed, std::size_t i) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (i + 1);  // splitmix64
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (1.0f / 8388608.0f) - 1.0f;  // k·2^-23 - 1
}

__global__ void fill_kernel(float* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    p[i] = hashed_value(seed, i);
  }
}

__global__ void scale_columns_kernel(float* p, std::size_t n, int row_length, int period, int phase, float big,
                                     float small) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    p[i] *= static_cast<int>(i % row_length) % period == phase ? big : small;
  }
}

}  // namespace

void scale_columns(float* p, std::size_t n, int row_length, int period, int phase, float big, float small) {
  scale_columns_kernel<<<grid_for(n), 256>>>(p, n, row_length, period, phase, big, small);
  CUDA_CHECK(cudaGetLastError());
}

int grid_for(std::size_t n) { return static_cast<int>(std::min<std::size_t>(ceil_div(n, std::size_t{256}), 8192)); }

void fill_uniform(float* p, std::size_t n, std::uint64_t seed) {
  fill_kernel<<<grid_for(n), 256>>>(p, n, seed);
  CUDA_CHECK(cudaGetLastError());
}

float uniform_value(std::uint64_t seed, std::size_t i) { return hashed_value(seed, i); }

std::vector<float> random_mask(int mask_width) {
  std::vector<float> mask(static_cast<std::size_t>(mask_width) * mask_width);
  for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = hashed_value(0x3A5C + mask_width, i);
  return mask;
}

}  // namespace convlab::bench
