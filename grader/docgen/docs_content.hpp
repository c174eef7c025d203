// What the generated blocks hold (docs_markers.hpp finds them): the lecture tables, the errata
// drawn from them, Markdown files of the repository, lines of source files, and the pictures
// of `grader bench` and `grader tune`.
//
// Pictures: a deck in the repository may only point at committed files, so that it reads the
// same on every machine and `grader docs --check` does not depend on what a user has run. A
// staged copy (`grader docs --stage DIR`, what the `slides` target renders) looks at the user's
// own results first and copies every picture it uses into DIR/img/, next to the HTML.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "convlab/analysis_tables.hpp"
#include "docgen/docs_markers.hpp"

namespace convlab::grader::docs {

/// Where pictures are looked for.
enum class FigurePolicy {
  committed_only,  ///< the committed reference runs (results/bench/*/, results/tune/*/)
  own_first,       ///< first the user's own (build*/benchmarks/*/, build*/tuning/lab07-*/, newest first)
};

/// A picture found, and where it comes from.
struct FoundFigure {
  std::filesystem::path file;    ///< absolute path
  std::filesystem::path folder;  ///< its folder, relative to the root (e.g. results/bench/nvidia-h200)
  std::string gpu;               ///< the GPU it was measured on, e.g. "NVIDIA H200"
  bool own = false;              ///< the user's own result, not a committed reference
  std::string date;              ///< the picture's date (YYYY-MM-DD), for the user's own
};

/// Looks for picture `file` of `source` ("bench" or "tune") under `root`.
/// @param root the repository root
/// @param source "bench" (grader bench) or "tune" (grader tune, lab 07)
/// @param file the picture's file name, e.g. "roofline.png"
/// @param policy where to look
/// @return the picture, or nothing
std::optional<FoundFigure> find_figure(const std::filesystem::path& root, const std::string& source,
                                       const std::string& file, FigurePolicy policy);

/// The GPU a results folder was measured on: from bench.json ("gpu"/"device", a name or an
/// object with "name"), else the "# ... on GPU" heading of bench.md or table.md, else the
/// folder's name.
/// @param folder a results folder
/// @return the GPU's name
std::string results_gpu_name(const std::filesystem::path& folder);

/// The date of a results folder: the first YYYY-MM-DD in the heading of bench.md or table.md.
/// @param folder a results folder
/// @return the date, or "" when neither heading has one
std::string results_date(const std::filesystem::path& folder);

/// The text of `grader tables --format markdown --no-gpu --table NAME...` for these names.
/// @param names table names, in the order wanted
/// @return the Markdown
/// @throws BadMarker naming the first unknown table
std::string tables_markdown(const std::vector<std::string>& names);

/// The same tables as a slide shows them: the title, the table, the notes that explain it, and
/// the source as a citation of docs/sources.md ("Source: [talk] (Wainwright, GTC 2014, S4297):
/// 'slide title'"); the table's id and the command that prints it go into an HTML comment (a
/// presenter note in Marp), and the note about absent GPU columns is left out.
/// @param names table names, in the order wanted
/// @return the Markdown
/// @throws BadMarker naming the first unknown table
std::string slide_tables_markdown(const std::vector<std::string>& names);

/// The errata: every published value of the lecture tables flagged as rounding or error, with
/// the exact value and the reason, as a Markdown table whose rows start with the source's
/// citation ("| [lecture-tiling] (...) |"); the tables' ids go into an HTML comment above it.
/// @param tables the lecture tables
/// @param args optional 'rounding' or 'error' (only those) and table names (only those tables)
/// @return the Markdown
/// @throws BadMarker for an unknown word
std::string errata_markdown(const std::vector<analysis::LectureTable>& tables, const std::vector<std::string>& args);

/// Which slides a staged copy is for (`grader docs --stage DIR --edition E`).
enum class Edition {
  instructor,  ///< everything: the reference code, the tables that answer the labs' questions
  student,     ///< handed out before the deadline: no code of solutions/, no answers
};

/// How the generator works.
struct ContentOptions {
  std::filesystem::path root;  ///< the repository root
  FigurePolicy figures = FigurePolicy::committed_only;
  /// For a staged copy: pictures are copied to `*stage_dir`/img/ and referenced from there.
  std::optional<std::filesystem::path> stage_dir;
  Edition edition = Edition::instructor;
};

/// Produces the body of every kind of block.
class ContentGenerator {
 public:
  explicit ContentGenerator(ContentOptions options);

  /// The body for `marker` in a document written at `document` (relative links start there).
  /// @throws BadMarker for wrong arguments (unknown table, a path outside the root, a source
  ///         excerpt whose first or last line is not found)
  std::string generate(const Marker& marker, const std::filesystem::path& document);

  /// The pictures a staged copy needs: source file -> destination in the stage folder.
  [[nodiscard]] const std::map<std::filesystem::path, std::filesystem::path>& copies() const { return copies_; }

  /// The drawings the diagram blocks refer to: where each belongs (slides/figures/NAME.svg in
  /// the repository, DIR/figures/NAME.svg for a staged copy) -> its SVG text.
  [[nodiscard]] const std::map<std::filesystem::path, std::string>& diagram_files() const { return diagram_files_; }

 private:
  std::string table(const Marker& m);
  std::string include(const Marker& m);
  std::string figure(const Marker& m, const std::filesystem::path& document);
  std::string code(const Marker& m);
  std::string diagram(const Marker& m, const std::filesystem::path& document);
  /// A repository path from a marker: relative, inside the root.
  std::filesystem::path repo_path(const std::string& path) const;

  ContentOptions options_;
  std::optional<std::vector<analysis::LectureTable>> tables_;  // computed on first use
  std::map<std::filesystem::path, std::filesystem::path> copies_;
  std::map<std::filesystem::path, std::string> diagram_files_;
};

/// The sentence a figure block holds when the picture does not exist.
/// @param source "bench" or "tune"
/// @param file the picture's file name
/// @param caption the marker's caption
/// @return one sentence
std::string figure_missing_sentence(const std::string& source, const std::string& file, const std::string& caption);

}  // namespace convlab::grader::docs
