/// @file gnuplot_text.hpp
/// @brief gnuplot_string: text as a gnuplot string literal that shows it, literally, and runs
///        nothing. The one escaper of every generated gnuplot script (`grader bench`'s bench.gp,
///        `grader tune`'s heatmaps.gp), for every piece of data a script shows (a GPU's name, a
///        method's name): data can come from a results folder copied from another machine.
#pragma once

#include <string>
#include <string_view>

namespace convlab {

/// `text` as a single-quoted gnuplot string, e.g. `'NVIDIA H200'`:
/// - single quotes, because gnuplot runs a `command` in backquotes inside a double-quoted
///   string (command substitution) and reads backslash escapes there; inside single quotes it
///   does neither, and `@` (macros) is never expanded inside a string;
/// - a single quote becomes two ('' is gnuplot's literal quote inside single quotes);
/// - a line break or any other control character (a newline would end the command and start
///   the next) becomes one space.
/// Join it with the script's own text by gnuplot's `.` operator: `set title 'on ' . NAME`.
[[nodiscard]] std::string gnuplot_string(std::string_view text);

/// `text` as one field of a gnuplot data file (whitespace- or tab-separated): each control
/// character (tab, line break) becomes one space, so a field can never start a new field, line
/// or data block. Data files are read, never run.
[[nodiscard]] std::string gnuplot_data_field(std::string_view text);

}  // namespace convlab
