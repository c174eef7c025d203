// MaskWidths: parsing and printing of mask-width sets (see mask_widths.hpp for the rules).
#include "convlab/mask_widths.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace convlab {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

void check_range(int k) {
  if (k < 1 || k > kMaxMaskWidth) {
    throw std::invalid_argument(fmt::format("mask width {} is outside 1..{}", k, kMaxMaskWidth));
  }
}

}  // namespace

MaskWidths MaskWidths::of(std::initializer_list<int> widths) { return of(std::vector<int>(widths)); }

MaskWidths MaskWidths::of(const std::vector<int>& widths) {
  MaskWidths m;
  for (const int k : widths) {
    check_range(k);
    m.bits_ |= 1u << k;
  }
  return m;
}

MaskWidths MaskWidths::parse(std::string_view text, MaskWidths allowed, std::string_view who) {
  if (trim(text) == "all") return allowed;
  if (trim(text).empty()) throw std::invalid_argument("no mask width given");
  MaskWidths m;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = text.find(',', pos);
    const std::string_view item = trim(text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos));
    // Digits only: "3x", "+3", "3.0", "" and "0x3" are not widths (std::stoi would take some).
    const bool digits = !item.empty() && item.size() <= 9 &&
                        item.find_first_not_of("0123456789") == std::string_view::npos;
    if (!digits) throw std::invalid_argument(fmt::format("'{}' is not a mask width", item));
    const int k = std::stoi(std::string(item));
    check_range(k);
    if (m.contains(k)) throw std::invalid_argument(fmt::format("mask width {} is given twice", k));
    if (!allowed.contains(k)) {
      throw std::invalid_argument(fmt::format("mask width {} is not one {} takes ({})", k, who, allowed.to_string()));
    }
    m.bits_ |= 1u << k;
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return m;
}

int MaskWidths::size() const {
  int n = 0;
  for (int k = 1; k <= kMaxMaskWidth; ++k) n += contains(k);
  return n;
}

std::vector<int> MaskWidths::widths() const {
  std::vector<int> out;
  for (int k = 1; k <= kMaxMaskWidth; ++k) {
    if (contains(k)) out.push_back(k);
  }
  return out;
}

std::string MaskWidths::to_string() const {
  std::string s;
  for (const int k : widths()) s += (s.empty() ? "" : ",") + std::to_string(k);
  return s;
}

void MaskWidths::require_within(MaskWidths supported, std::string_view who) const {
  for (const int k : widths()) {
    if (!supported.contains(k)) {
      throw std::invalid_argument(fmt::format("mask width {} is not one {} takes ({})", k, who, supported.to_string()));
    }
  }
}

}  // namespace convlab
