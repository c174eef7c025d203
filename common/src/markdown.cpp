// The one Markdown cell escaper (see markdown.hpp for the rules and why each character).
#include "convlab/markdown.hpp"

namespace convlab {

std::string markdown_cell(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\n' || c == '\r') {
      out += ' ';
      continue;
    }
    if (c == '|' || c == '*' || c == '`' || c == '~' || c == '[' || c == ']' || c == '<' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  return out;
}

}  // namespace convlab
