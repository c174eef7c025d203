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

/// Multiplies p[i] by `big` where its column (i % row_length) is `phase` modulo `period`, and by
/// `small` elsewhere: a wide range of values, large ones in a pattern (the benchmarks' --values
/// wide). Enqueued on the default stream.
void scale_columns(float* p, std::size_t n, int row_length, int period, int phase, float big, float small);

/// The same values, computed on the host (for masks and for checking).
float uniform_value(std::uint64_t seed, std::size_t i);

/// The benchmarks' K×K mask: uniform_value with a seed of its own per mask width, row-major.
std::vector<float> random_mask(int mask_width);

/// Blocks for a grid-stride loop over n elements (256 threads each, at most 8192 blocks).
int grid_for(std::size_t n);

}  // namespace convlab::bench
