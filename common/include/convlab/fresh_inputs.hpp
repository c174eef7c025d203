/// @file fresh_inputs.hpp
/// @brief The inputs and the checked outputs of timed calls, as two processes agree on them.
///
/// A timed call must do the whole work every time (grader/README.md, "What a timed run cannot
/// fake"). So every timed call of a lab runner gets an input that the previous call did not
/// have, chosen from a few distinct inputs of the performance shape by a seed that the grader
/// picks when the timed phase starts, and writes into its own poisoned output. After the
/// phase, the grader names (by a second number, the nonce) which output elements of each call
/// the runner must hand over; it recomputes them itself.
///
/// Both sides compute the same values from the same numbers: the runner on the device, the
/// grader on the host, so the functions here are `__host__ __device__` where nvcc sees them,
/// use integer arithmetic only, and turn bits into floats exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#ifndef CONVLAB_HOST_DEVICE  // as ceil_div.hpp defines it
#if defined(__CUDACC__)
#define CONVLAB_HOST_DEVICE __host__ __device__
#else
#define CONVLAB_HOST_DEVICE
#endif
#endif

namespace convlab::fresh {

/// Distinct inputs a timed phase cycles through: enough that no two consecutive calls share one,
/// few enough that the grader recomputes them in milliseconds.
inline constexpr int kDistinctInputs = 4;
/// Output elements of each timed call that the grader checks. Positions are named only after
/// every call has finished, so a kernel that skips a fraction f of its outputs is caught with
/// probability 1 − (1 − f)^8192 per call.
inline constexpr int kSamplesPerCall = 8192;
/// Timed calls whose outputs one phase may keep on the device (each has its own buffer).
inline constexpr int kMaxKeptCalls = 200;

/// Which tensor of a problem a value belongs to: the lecture's N and M, or a layer's X and W.
enum Tensor : std::uint32_t { kInput = 0, kMask = 1 };

/// SplitMix64's finaliser (Steele, Lea and Flood, "Fast splittable pseudorandom number
/// generators"): a bijection of 64-bit words whose every output bit depends on every input bit.
CONVLAB_HOST_DEVICE inline std::uint64_t mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Element `index` of tensor `tensor` of distinct input `input` under `seed`: a multiple of
/// 2⁻²³ in [−1, 1), so exact in float32 on host and device alike.
CONVLAB_HOST_DEVICE inline float value(std::uint64_t seed, int input, Tensor tensor, std::uint64_t index) {
  const std::uint64_t stream = mix(seed ^ (static_cast<std::uint64_t>(input) << 32 | tensor));
  const std::uint64_t bits = mix(stream + index * 0xD1B54A32D192ED03ull) >> 40;  // 24 random bits
  return static_cast<float>(static_cast<std::int64_t>(bits)) * (1.0f / 8388608.0f) - 1.0f;
}

/// The output element that sample `sample` of timed call `call` reads, of `elements`.
CONVLAB_HOST_DEVICE inline std::uint64_t sample_position(std::uint64_t nonce, int call, int sample,
                                                         std::uint64_t elements) {
  const std::uint64_t h = mix(mix(nonce ^ static_cast<std::uint64_t>(call)) + static_cast<std::uint64_t>(sample));
  return h % elements;
}

/// The distinct input each of `calls` calls reads (warm-up calls first, then the timed ones):
/// shuffled by `seed`, never the same input twice in a row.
std::vector<int> call_order(std::uint64_t seed, int calls);

/// Fills `out` (`count` floats, host memory) with tensor `tensor` of distinct input `input`.
void fill_host(std::uint64_t seed, int input, Tensor tensor, float* out, std::size_t count);

}  // namespace convlab::fresh
