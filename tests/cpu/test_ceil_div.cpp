// ceil_div: the one ceiling division of grids, chunks and warp counts, at its exact edges.
#include <catch2/catch.hpp>

#include <cstddef>
#include <limits>

#include "convlab/ceil_div.hpp"

using convlab::ceil_div;

TEST_CASE("ceil_div: a multiple of b divides exactly, one more needs another tile", "[ceil_div]") {
  CHECK(ceil_div(64, 32) == 2);
  CHECK(ceil_div(65, 32) == 3);
  CHECK(ceil_div(63, 32) == 2);
}

TEST_CASE("ceil_div: zero items need zero tiles, one item needs one", "[ceil_div]") {
  CHECK(ceil_div(0, 7) == 0);
  CHECK(ceil_div(1, 7) == 1);
  CHECK(ceil_div(5, 1) == 5);
}

TEST_CASE("ceil_div: sizes past 2^53 stay exact (no detour through double)", "[ceil_div]") {
  const std::size_t big = (std::size_t{1} << 60) + 1;
  CHECK(ceil_div(big, std::size_t{256}) == (std::size_t{1} << 52) + 1);
  // The largest a for b = 32 (a + b must not overflow): 2^31 - 33 = 32·(2^26 - 2) + 31.
  static_assert(ceil_div(std::numeric_limits<int>::max() - 32, 32) == (1 << 26) - 1);
}
