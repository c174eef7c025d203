// markdown_cell: the one Markdown escaper, at each character that would break a table cell.
#include <catch2/catch.hpp>

#include "convlab/markdown.hpp"

using convlab::markdown_cell;

TEST_CASE("markdown_cell: a '|' is escaped, so it cannot end the cell", "[markdown]") {
  CHECK(markdown_cell("a|b") == "a\\|b");
  CHECK(markdown_cell("|") == "\\|");
}

TEST_CASE("markdown_cell: a backslash is escaped, so it cannot escape what follows", "[markdown]") {
  CHECK(markdown_cell("a\\b") == "a\\\\b");
  CHECK(markdown_cell("\\|") == "\\\\\\|");  // both shown: backslash, then bar
}

TEST_CASE("markdown_cell: a line break becomes one space, so the row stays one line", "[markdown]") {
  CHECK(markdown_cell("line 1\nline 2") == "line 1 line 2");
  CHECK(markdown_cell("a\r\nb") == "a  b");
  CHECK(markdown_cell("\n") == " ");
}

TEST_CASE("markdown_cell: backticks, stars, tildes, brackets and '<' are shown, not interpreted", "[markdown]") {
  CHECK(markdown_cell("`code`") == "\\`code\\`");
  CHECK(markdown_cell("2*K^2") == "2\\*K^2");
  CHECK(markdown_cell("~[x]<b>") == "\\~\\[x\\]\\<b>");
}

TEST_CASE("markdown_cell: plain text, underscores in names and the empty string pass unchanged", "[markdown]") {
  CHECK(markdown_cell("TILE_WIDTH = 32, 1.50×") == "TILE_WIDTH = 32, 1.50×");
  CHECK(markdown_cell("").empty());
}
