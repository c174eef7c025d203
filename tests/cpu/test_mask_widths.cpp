// MaskWidths: the one mask-width set type, parsed strictly at every edge of its text form.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "convlab/mask_widths.hpp"

using namespace convlab;

TEST_CASE("mask widths: a list parses to its set and prints back ascending", "[mask_widths]") {
  const MaskWidths m = MaskWidths::parse("7,3, 5", kOddMaskWidths, "lab 03");
  CHECK(m.widths() == std::vector<int>{3, 5, 7});
  CHECK(m.to_string() == "3,5,7");
  CHECK(MaskWidths::parse(m.to_string(), kOddMaskWidths, "lab 03") == m);
  CHECK(m.contains(5));
  CHECK_FALSE(m.contains(4));
  CHECK(m.size() == 3);
}

TEST_CASE("mask widths: 'all' is the context's whole set", "[mask_widths]") {
  CHECK(MaskWidths::parse("all", kRegisterTilingMaskWidths, "lab 07") == kRegisterTilingMaskWidths);
  CHECK(kRegisterTilingMaskWidths.to_string() == "2,3,4,5,6,7,9,11,13,15,17");
  CHECK(kOddMaskWidths.to_string() == "1,3,5,7,9,11,13,15,17");
  CHECK(kAllMaskWidths.size() == 17);
}

TEST_CASE("mask widths: an item that is not a plain number is rejected by name", "[mask_widths]") {
  CHECK_THROWS_WITH(MaskWidths::parse("3x", kAllMaskWidths, "x"), "'3x' is not a mask width");
  CHECK_THROWS_WITH(MaskWidths::parse("3,,5", kAllMaskWidths, "x"), "'' is not a mask width");
  CHECK_THROWS_WITH(MaskWidths::parse("3,", kAllMaskWidths, "x"), "'' is not a mask width");
  CHECK_THROWS_WITH(MaskWidths::parse("+3", kAllMaskWidths, "x"), "'+3' is not a mask width");
  CHECK_THROWS_WITH(MaskWidths::parse("-1", kAllMaskWidths, "x"), "'-1' is not a mask width");
  CHECK_THROWS_WITH(MaskWidths::parse("3.0", kAllMaskWidths, "x"), "'3.0' is not a mask width");
}

TEST_CASE("mask widths: an empty list is an error, not the empty set", "[mask_widths]") {
  CHECK_THROWS_WITH(MaskWidths::parse("", kAllMaskWidths, "x"), "no mask width given");
  CHECK_THROWS_WITH(MaskWidths::parse("  ", kAllMaskWidths, "x"), "no mask width given");
}

TEST_CASE("mask widths: a width given twice is an error naming it", "[mask_widths]") {
  CHECK_THROWS_WITH(MaskWidths::parse("3,5,3", kAllMaskWidths, "x"), "mask width 3 is given twice");
}

TEST_CASE("mask widths: 1 and 17 are in range, 0 and 18 are not", "[mask_widths]") {
  CHECK(MaskWidths::parse("1,17", kAllMaskWidths, "x").widths() == std::vector<int>{1, 17});
  CHECK_THROWS_WITH(MaskWidths::parse("0", kAllMaskWidths, "x"), "mask width 0 is outside 1..17");
  CHECK_THROWS_WITH(MaskWidths::parse("18", kAllMaskWidths, "x"), "mask width 18 is outside 1..17");
  CHECK_THROWS_AS(MaskWidths::of({3, 18}), std::invalid_argument);
  CHECK_FALSE(kAllMaskWidths.contains(0));
  CHECK_FALSE(kAllMaskWidths.contains(18));
}

TEST_CASE("mask widths: a width the context does not take names the width and the set", "[mask_widths]") {
  CHECK_THROWS_WITH(MaskWidths::parse("3,8", kRegisterTilingMaskWidths, "lab 07"),
                    "mask width 8 is not one lab 07 takes (2,3,4,5,6,7,9,11,13,15,17)");
  CHECK_THROWS_WITH(MaskWidths::of({3, 4}).require_within(kOddMaskWidths, "lab 01"),
                    "mask width 4 is not one lab 01 takes (1,3,5,7,9,11,13,15,17)");
  CHECK_NOTHROW(MaskWidths::of({3, 5}).require_within(kOddMaskWidths, "lab 01"));
  CHECK(MaskWidths::of({3, 5}).within(kOddMaskWidths));
}
