/// @file limits.hpp
/// @brief The sizes convlab supports, in one place (docs/design.md, "Limits"): every loader and
///        every shape check rejects what lies outside them, naming the limit, before it
///        allocates or multiplies anything.
///
/// Why these numbers: kernels index a tensor with `int`, so no tensor holds more than INT_MAX
/// elements; an extent of 65,536 keeps `H + 2P` and `D·(K-1)+1` far inside `int`; files are
/// bounded so that a hostile file cannot make a loader read or allocate without end.
#pragma once

#include <climits>
#include <cstdint>
#include <initializer_list>
#include <optional>

namespace convlab {

/// Largest mask width any lab supports (docs/design.md, Conventions: K from 1 to 17).
inline constexpr int kMaxMaskWidth = 17;
/// Largest height or width of an image or of a layer's input.
inline constexpr int kMaxExtent = 65536;
/// Largest batch, channel or filter count of a conv layer.
inline constexpr int kMaxLayerCount = 65536;
/// Largest stride, padding or dilation of a conv layer.
inline constexpr int kMaxLayerStep = 65536;
/// Most elements in one tensor (input, mask, weights, output): kernels index with `int`.
inline constexpr std::uint64_t kMaxTensorElements = INT_MAX;
/// Most axes of a `.npy` array.
inline constexpr int kMaxNpyRank = 8;
/// Longest `.npy` header (the dict); numpy's own reader refuses more than 10,000 by default.
inline constexpr std::uint32_t kMaxNpyHeaderBytes = 65536;
/// Largest `.npy` file: a float64 tensor of kMaxTensorElements and its header.
inline constexpr std::uint64_t kMaxNpyFileBytes = kMaxTensorElements * 8 + 16 + kMaxNpyHeaderBytes;
/// Largest text file a loader reads: case.json, a rubric, a tuning file, bench.json, a lab's
/// report, a tool's log, a file of a submission.
inline constexpr std::uint64_t kMaxTextFileBytes = 64ull << 20;
/// Deepest nesting of arrays and objects in a JSON file a loader reads: ours nest 4 deep; a
/// file nested 100,000 deep would overflow the stack of any recursive walk over it.
inline constexpr int kMaxJsonDepth = 64;
/// Longest quotation of a file's value in an error message (json_file.hpp, describe_json).
inline constexpr std::size_t kMaxQuotedChars = 80;
/// Longest case name (it becomes a folder name and part of output file names).
inline constexpr std::size_t kMaxCaseNameLength = 128;

/// The product of `factors`, or nullopt when it exceeds `limit` (checked before each
/// multiplication, so nothing wraps). Plain arithmetic: nvcc's front end reads this header too.
[[nodiscard]] inline std::optional<std::uint64_t> product_within(std::initializer_list<std::uint64_t> factors,
                                                                 std::uint64_t limit) {
  for (std::uint64_t f : factors) {
    if (f == 0) return 0;  // a zero anywhere makes the product 0, whatever the rest
  }
  std::uint64_t p = 1;
  for (std::uint64_t f : factors) {
    if (p > limit / f) return std::nullopt;
    p *= f;
  }
  return p;
}

}  // namespace convlab
