/// @file device_fill.cuh
/// @brief Benchmark data made on the device: seeded, non-uniform values in [-1, 1), so the
///        large images of the benchmarks cost no host time or transfers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace convlab::bench {

/// p[i] = k·2^-23 - 1 for a splitmix64 hash k of (seed, i): deterministic, non-uniform, in
/// [-1, 1). Enqueued on the default stream.
void fill_uniform(float* p, std::size_t n, std::uint64_t seed);

/// The same values, computed on the host (for masks and for checking).
float uniform_value(std::uint64_t seed, std::size_t i);

/// The benchmarks' K×K mask: uniform_value with a seed of its own per mask width, row-major.
std::vector<float> random_mask(int mask_width);

/// Blocks for a grid-stride loop over n elements (256 threads each, at most 8192 blocks).
int grid_for(std::size_t n);

}  // namespace convlab::bench
