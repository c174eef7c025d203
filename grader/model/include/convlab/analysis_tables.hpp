/// @file analysis_tables.hpp
/// @brief Every table and worked answer of the syllabus, recomputed by the analysis model and
///        set beside the published value, with a flag and a one-line reason where they differ.
///        `grader tables` prints these; the slide decks paste their Markdown.
///
/// Each table has a stable name (lecture_table_names()) so that one table can be selected,
/// and the output is deterministic: the same build on the same inputs prints the same bytes.
/// Where a GPU is present, extra "this GPU" columns redo the machine-balance tables with its
/// measured copy bandwidth and FMA rate.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "convlab/analysis.hpp"

namespace convlab::analysis {

/// How a published value compares with the exact one.
enum class Verdict {
  agrees,    ///< equal to the exact value at the precision printed
  rounding,  ///< off by at most one unit in the last printed digit (truncated or rounded up)
  error,     ///< the source is inconsistent: a wrong formula, or a number its own data contradict
  exact_only,      ///< nothing published to compare with (an extension, or a "this GPU" column)
  published_only,  ///< nothing to recompute it from (a measurement in the source)
};

/// "agrees", "rounding", "error", "exact only" or "published only".
/// @param v the verdict
/// @return a static string
const char* verdict_name(Verdict v);

/// A number as the source prints it.
struct Published {
  std::string text;      ///< verbatim from the source, e.g. "4.9", "37%", "1/12", "9 + 12 + 15×14"
  double value = 0;      ///< its numeric value, in the unit of the exact value
  double tolerance = 0;  ///< |exact - value| up to which it agrees (half a unit of the last digit)
};

/// A published value whose precision is read from its text: "4.9" → tolerance 0.05,
/// "37%" → 0.5, "13.3×" → 0.05. Commas, %, × and leading "~" are ignored.
/// @param text the number as printed
/// @return the parsed value
/// @throws std::invalid_argument if `text` holds no number
Published published(const std::string& text);

/// A published value given as an expression or with a precision of its own.
/// @param text as printed, e.g. "1/12" or "almost 100%"
/// @param value its numeric value
/// @param tolerance how far the exact value may be and still agree
/// @return the published value
Published published(const std::string& text, double value, double tolerance);

/// One cell of a table: a published value, an exact value, or both, with the verdict.
struct Value {
  std::optional<Published> published;  ///< absent for values the source does not give
  std::optional<double> exact;         ///< absent for values the model cannot recompute
  int decimals = 0;                    ///< decimals when printing `exact`
  std::string unit;                    ///< printed after the number: "", "%", "×", " ms", ...
  Verdict verdict = Verdict::exact_only;  ///< how published compares with exact
  /// One line: why the values differ (rounding or error), or what an agreeing value assumes.
  std::string reason;
  /// `exact` as printed: fixed decimals, thousands separated by commas, then the unit;
  /// "—" when absent.
  /// @return the text
  [[nodiscard]] std::string exact_text() const;
  /// True when the verdict is rounding or error.
  /// @return whether the value is flagged
  [[nodiscard]] bool flagged() const {
    return verdict == Verdict::rounding || verdict == Verdict::error;
  }
};

/// A value compared automatically: agrees within the published tolerance, rounding within
/// twice it, otherwise error (with `error_reason`, or a generic one).
/// @param p the published value
/// @param exact the model's value
/// @param decimals decimals to print `exact` with
/// @param unit unit printed after both numbers
/// @param error_reason the one-line reason if the difference is more than rounding
/// @return the value with its verdict and reason
Value compare(const Published& p, double exact, int decimals, const std::string& unit = "",
              const std::string& error_reason = "");

/// A published value the model cannot recompute (a measurement). A flag can still be set:
/// pass Verdict::error and a reason when the source contradicts itself about it.
/// @param p the published value
/// @param verdict published_only, or error
/// @param reason the one-line reason for an error
/// @return the value
Value published_only(const Published& p, Verdict verdict = Verdict::published_only,
                     const std::string& reason = "");

/// A value the source does not give: the model's only.
/// @param exact the model's value
/// @param decimals decimals to print it with
/// @param unit unit printed after it
/// @return the value
Value exact_only(double exact, int decimals, const std::string& unit = "");

/// One row: its key columns (what the row is about) and its value columns.
struct TableRow {
  std::vector<std::string> keys;  ///< one per LectureTable::key_headers
  std::vector<Value> values;      ///< one per LectureTable::value_headers
};

/// One table of the syllabus, recomputed.
struct LectureTable {
  std::string name;    ///< stable identifier, e.g. "reduction-1d"
  std::string title;   ///< e.g. "Bandwidth reduction, 1D, interior tile"
  std::string source;  ///< where it is published, e.g. "[lecture-tiling] (ECE408 Lecture 9, ...): 'Bandwidth Reduction for 1D'"
  std::vector<std::string> key_headers;    ///< headers of the key columns
  std::vector<std::string> value_headers;  ///< headers of the value columns
  std::vector<TableRow> rows;              ///< the rows
  std::vector<std::string> notes;          ///< assumptions and how the exact values are computed
  /// The value of a row, found by its keys and a value header.
  /// @param keys the row's keys, all of them
  /// @param header a value header
  /// @return the value
  /// @throws std::out_of_range if there is no such row or column
  [[nodiscard]] const Value& at(const std::vector<std::string>& keys, const std::string& header) const;
};

/// The measured GPU for the "this GPU" columns, or why there is none.
struct GpuColumns {
  std::optional<Machine> gpu;  ///< measured copy bandwidth and FMA rate, if a GPU is present
  std::string absent_reason;   ///< when `gpu` is empty: why ("no GPU", "--no-gpu", ...)
};

/// Every table, in syllabus order.
/// @param gpu the GPU for the extra columns, or its absence
/// @return the tables
std::vector<LectureTable> lecture_tables(const GpuColumns& gpu);

/// The names of the tables, in the order lecture_tables() returns them.
/// @return the names
std::vector<std::string> lecture_table_names();

/// Tables as aligned plain text, with flags and notes under each table.
/// @param tables the tables to print
/// @param gpu the GPU columns' status, stated once at the top
/// @return the text
std::string render_text(const std::vector<LectureTable>& tables, const GpuColumns& gpu);

/// Tables as GitHub Markdown, one block per table (a bold title line, the table, its notes),
/// deterministic so that slide decks can embed them between markers.
/// @param tables the tables to print
/// @param gpu the GPU columns' status, stated as a note when tables have GPU columns
/// @return the Markdown
std::string render_markdown(const std::vector<LectureTable>& tables, const GpuColumns& gpu);

/// Tables as versioned JSON: `{"format": "convlab-tables", "version": 1, "gpu": ..., "tables": [...]}`.
/// @param tables the tables
/// @param gpu the GPU columns' status
/// @return the JSON document
nlohmann::json tables_json(const std::vector<LectureTable>& tables, const GpuColumns& gpu);

/// Version of the JSON format written by tables_json().
inline constexpr int kTablesJsonVersion = 1;

}  // namespace convlab::analysis
