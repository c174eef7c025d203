// The one gnuplot escaper (see gnuplot_text.hpp for the rules and why each character).
#include "convlab/gnuplot_text.hpp"

namespace convlab {

namespace {

bool is_control(char c) { return static_cast<unsigned char>(c) < 0x20 || c == '\x7f'; }

}  // namespace

std::string gnuplot_string(std::string_view text) {
  std::string out = "'";
  out.reserve(text.size() + 2);
  for (const char c : text) {
    if (is_control(c)) {
      out += ' ';
    } else if (c == '\'') {
      out += "''";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

std::string gnuplot_data_field(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) out += is_control(c) ? ' ' : c;
  return out;
}

}  // namespace convlab
