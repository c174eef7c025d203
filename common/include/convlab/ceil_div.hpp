/// @file ceil_div.hpp
/// @brief ceil_div(a, b) = ⌈a/b⌉ for a ≥ 0, b > 0: the number of b-sized tiles (blocks, chunks,
///        k-steps, warps) that cover a items. The one ceiling division of host and device code.
///
/// Written as `(a + b - 1) / b` in the lectures; one function so that a grid size, a loop count
/// and a prediction of the analysis model cannot round differently. Integer arithmetic only:
/// `std::ceil(double(a) / b)` loses exactness above 2^53 and costs a conversion in a kernel.
#pragma once

#include <type_traits>

#if defined(__CUDACC__)
#define CONVLAB_HOST_DEVICE __host__ __device__
#else
#define CONVLAB_HOST_DEVICE
#endif

namespace convlab {

/// ⌈a/b⌉ for a ≥ 0 and b > 0 (integers of one type; the caller guarantees that a + b does not
/// overflow, as for every size in this project). ceil_div(0, b) = 0.
template <typename T>
[[nodiscard]] CONVLAB_HOST_DEVICE constexpr T ceil_div(T a, T b) {
  static_assert(std::is_integral_v<T>, "ceil_div is integer division");
  return (a + b - 1) / b;
}

static_assert(ceil_div(0, 32) == 0 && ceil_div(1, 32) == 1 && ceil_div(32, 32) == 1 &&
              ceil_div(33, 32) == 2);

}  // namespace convlab
