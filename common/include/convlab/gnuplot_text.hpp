/// @file gnuplot_text.hpp
/// @brief gnuplot_string: text as a gnuplot string literal that shows it, literally, and runs
///        nothing. The one escaper of every generated gnuplot script (`grader bench`'s bench.gp,
///        `grader tune`'s heatmaps.gp), for every piece of data a script shows (a GPU's name, a
///        method's name): data can come from a results folder copied from another machine.
#pragma once

#include <string>
#include <string_view>

namespace convlab {

/// `text` as a single-quoted gnuplot string, e.g. 'NVIDIA H200' with its quotes:
/// - single quotes, because inside a double-quoted string gnuplot runs any command written
///   between backquotes (command substitution) and reads backslash escapes; inside single
///   quotes it does neither, and macros (the at sign) are never expanded inside a string;
/// - a single quote becomes two (gnuplot's literal quote inside single quotes);
/// - a line break or any other control character (a newline would end the command and start
///   the next) becomes one space.
/// Join it with the script's own text by gnuplot's dot operator: set title "on " . NAME
[[nodiscard]] std::string gnuplot_string(std::string_view text);

/// `text` as one field of a gnuplot data file (whitespace- or tab-separated): each control
/// character (tab, line break) becomes one space, so a field can never start a new field, line
/// or data block. Data files are read, never run.
[[nodiscard]] std::string gnuplot_data_field(std::string_view text);

}  // namespace convlab
