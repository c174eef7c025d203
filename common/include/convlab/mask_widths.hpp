/// @file mask_widths.hpp
/// @brief MaskWidths: a set of mask widths K (1 ≤ K ≤ kMaxMaskWidth), the one type for "which K"
///        everywhere: what a lab variant accepts (the runner, its `--list` JSON, the grader's
///        listing), the benchmarks' and `grader tune`'s `--masks`, `grader datagen --masks`.
///
/// Written as text "3,5,7" (ascending, no spaces) or "all" (a context's whole set); parsed
/// strictly, since the text comes from command lines and from a lab's own JSON: an item that is
/// not a number, a width outside 1..17, one given twice, one the context does not take, and an
/// empty list are each an error that names the item.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "convlab/shapes.hpp"

namespace convlab {

/// A set of mask widths, bit K for width K.
class MaskWidths {
 public:
  /// The empty set.
  constexpr MaskWidths() = default;
  /// Every width in [first, last] that is first + a multiple of `step`.
  static constexpr MaskWidths range(int first, int last, int step = 1) {
    MaskWidths m;
    for (int k = first; k <= last; k += step) m.bits_ |= 1u << k;
    return m;
  }
  /// The widths listed. @throws std::invalid_argument for a width outside 1..kMaxMaskWidth
  static MaskWidths of(std::initializer_list<int> widths);
  /// The widths in `widths`. @throws std::invalid_argument as of()
  static MaskWidths of(const std::vector<int>& widths);

  /// Parses "3,5,7" (spaces around items allowed) or "all" (= `allowed`). Every width must be
  /// in `allowed`.
  /// @param text    the list, or "all"
  /// @param allowed the widths the context takes
  /// @param who     what takes the widths, for the errors ("lab 07", "the naive kernel")
  /// @throws std::invalid_argument naming the bad item: "'3x' is not a mask width", "mask width
  ///         18 is outside 1..17", "mask width 3 is given twice", "mask width 8 is not one lab 07
  ///         takes (2,3,4,5,6,7,9,11,13,15,17)", "no mask width given"
  static MaskWidths parse(std::string_view text, MaskWidths allowed, std::string_view who);

  /// True when K is in the set.
  [[nodiscard]] constexpr bool contains(int k) const { return k >= 1 && k <= kMaxMaskWidth && (bits_ >> k & 1u) != 0; }
  /// True when the set has no width.
  [[nodiscard]] constexpr bool empty() const { return bits_ == 0; }
  /// Number of widths.
  [[nodiscard]] int size() const;
  /// The widths, ascending.
  [[nodiscard]] std::vector<int> widths() const;
  /// "3,5,7" (ascending); "" for the empty set. parse() reads it back.
  [[nodiscard]] std::string to_string() const;
  /// True when every width of this set is in `other`.
  [[nodiscard]] constexpr bool within(MaskWidths other) const { return (bits_ & ~other.bits_) == 0; }
  /// @throws std::invalid_argument naming the smallest width not in `supported`, `who` and its set
  void require_within(MaskWidths supported, std::string_view who) const;

  /// Bit K set for width K.
  [[nodiscard]] constexpr std::uint32_t bits() const { return bits_; }
  /// The union.
  friend constexpr MaskWidths operator|(MaskWidths a, MaskWidths b) {
    MaskWidths m;
    m.bits_ = a.bits_ | b.bits_;
    return m;
  }
  /// The same widths.
  friend constexpr bool operator==(MaskWidths a, MaskWidths b) { return a.bits_ == b.bits_; }
  /// Not the same widths.
  friend constexpr bool operator!=(MaskWidths a, MaskWidths b) { return a.bits_ != b.bits_; }

 private:
  std::uint32_t bits_ = 0;
};

/// Odd K from 1 to 17: labs 01–05 (a centred mask has an odd width).
inline constexpr MaskWidths kOddMaskWidths = MaskWidths::range(1, kMaxMaskWidth, 2);
/// Lab 07: 2..7 (the paper's range) and odd 9..17 (the talk's range).
inline constexpr MaskWidths kRegisterTilingMaskWidths = MaskWidths::range(2, 7) | MaskWidths::range(9, kMaxMaskWidth, 2);
/// Every K from 1 to 17.
inline constexpr MaskWidths kAllMaskWidths = MaskWidths::range(1, kMaxMaskWidth);

static_assert(kOddMaskWidths.bits() == 0x2AAAAu && kRegisterTilingMaskWidths.bits() == 0x2AAFCu &&
              kAllMaskWidths.bits() == 0x3FFFEu);

}  // namespace convlab
