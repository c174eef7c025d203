// The generated blocks of the README and the slide decks: finding them, and rewriting them.
//
// A block is an opening marker line, the generated body, and an end marker line, all HTML
// comments (invisible on GitHub and in Marp):
//
//   <!-- convlab:table reduction-1d -->
//   ...what `grader tables --format markdown --table reduction-1d --no-gpu` prints...
//   <!-- convlab:end -->
//
// This unit knows the syntax only: which kinds exist, their arguments, where each block starts
// and ends, and how to write a new body in. What a body holds is the generator's business
// (docs_content.hpp), passed in as a function, so that the syntax is tested on strings alone.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace convlab::grader::docs {

/// The kinds of block.
enum class MarkerKind {
  table,    ///< `table NAME... [| answers lab NN]`: lecture tables, as `grader tables --format
            ///< markdown --no-gpu`; one that answers lab NN's questions is left out of the student edition
  include,  ///< `include PATH`: a Markdown file of the repository, verbatim
  figure,   ///< `figure bench|tune FILE [| caption]`: a picture of `grader bench` / `grader tune`
  errata,   ///< `errata [rounding|error] [NAME...]`: every flagged published value of the tables
  code,     ///< `code PATH | FIRST | LAST`: lines of a source file, from the line holding FIRST
            ///< to the next line holding LAST, as a fenced code block
  diagram,  ///< `diagram NAME`: a drawing of figures.hpp (slides/figures/NAME.svg) and its caption
};

/// "table", "include", "figure", "errata", "code" or "diagram".
const char* kind_name(MarkerKind kind);

/// An opening marker, parsed.
struct Marker {
  MarkerKind kind = MarkerKind::table;
  std::vector<std::string> args;  ///< the words after the kind (before the first '|')
  std::vector<std::string> parts; ///< the '|'-separated fields after the first one, trimmed
  std::string text;               ///< the marker as written, trimmed (for messages)
  int line = 0;                   ///< 1-based line of the marker
};

/// A block found in a document.
struct Block {
  Marker marker;
  int body_first_line = 0;         ///< 1-based line of the first body line
  std::vector<std::string> body;   ///< the lines between the markers
  int end_line = 0;                ///< 1-based line of `<!-- convlab:end -->`
};

/// A malformed marker: an unknown kind, bad arguments, a block that is not closed...
struct MarkerError {
  int line = 0;         ///< 1-based line
  std::string message;  ///< what is wrong, in a sentence
};

/// A document split into lines, with its blocks (in order) and its errors.
struct ParsedDocument {
  std::vector<std::string> lines;  ///< the text split at '\n' (a final newline adds no line)
  bool final_newline = true;       ///< whether the text ended with '\n'
  std::vector<Block> blocks;
  std::vector<MarkerError> errors;
};

/// Finds the blocks of `text`. Markers are whole lines (surrounding blanks allowed); lines inside
/// fenced code blocks (``` or ~~~) outside any block are never markers, so a README can show the
/// syntax. Every problem is collected, none stops the scan.
/// @param text the document
/// @return its lines, blocks and errors
ParsedDocument parse_document(const std::string& text);

/// Thrown by a generator for a marker whose arguments are wrong (an unknown table, a path
/// outside the repository): reported as a MarkerError at the marker's line.
class BadMarker : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Produces a block's body for its marker; throws BadMarker for bad arguments.
using Generator = std::function<std::string(const Marker&)>;

/// One block, with what it holds and what it should hold.
struct BlockResult {
  Block block;
  std::vector<std::string> expected;  ///< the body the generator gives now
  [[nodiscard]] bool current() const { return block.body == expected; }
};

/// A document with every block regenerated.
struct ProcessedDocument {
  std::string text;                   ///< the document with every body replaced
  std::vector<BlockResult> blocks;    ///< each block, in order
  std::vector<MarkerError> errors;    ///< parse errors, then generator errors, by line
  [[nodiscard]] bool changed() const;  ///< whether any block differs
};

/// How a regenerated document is written.
struct WriteOptions {
  /// Leave the marker lines out (for a copy that is rendered, not edited).
  bool strip_markers = false;
};

/// Regenerates every block of `text`. The body written is a blank line, the generator's text,
/// a blank line (so Markdown sees the generated tables and lists as blocks of their own).
/// @param text the document
/// @param generate produces a body for a marker
/// @param options how to write the result
/// @return the new text, each block's state, and the errors (the text is meaningless if any)
ProcessedDocument process_document(const std::string& text, const Generator& generate,
                                   const WriteOptions& options = {});

/// The body `process_document` writes for a generator's text: "", its lines, "".
/// @param generated what the generator returned
/// @return the body's lines
std::vector<std::string> body_lines(const std::string& generated);

/// A unified-style description of a block that is out of date: a header naming the file, the
/// marker and its line, then hunks (`-` the lines in the file, `+` the generated ones) with
/// line numbers of the file and two lines of context.
/// @param file the file's name as shown
/// @param result the block
/// @return the text, ending in a newline
std::string describe_difference(const std::string& file, const BlockResult& result);

}  // namespace convlab::grader::docs
