/// @file markdown.hpp
/// @brief markdown_cell: text as a Markdown table cell shows it, literally. The one escaper of
///        every generated table (the lecture tables, the slides' generated blocks, the
///        benchmark report).
#pragma once

#include <string>
#include <string_view>

namespace convlab {

/// `text` for one cell of a Markdown (GFM) table, shown literally:
/// - '|' would end the cell; '*', '`', '~', '[', ']', '<' and '\' would start emphasis, code,
///   strikethrough, a link or HTML ("2*K^2 ... sqrt(2*67)" in italics without its stars):
///   each gets a backslash in front;
/// - a line break (newline or carriage return) would end the table row: it becomes one space.
/// '_' is left alone: inside a word (TILE_WIDTH) it never starts emphasis.
[[nodiscard]] std::string markdown_cell(std::string_view text);

}  // namespace convlab
