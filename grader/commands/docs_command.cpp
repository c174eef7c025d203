// `grader docs`: the generated blocks of README.md and slides/*.md, rewritten from the code.
//
//   grader docs                 show every block that differs from what the code gives now (a
//                               diff) and write nothing: the difference may be a hand edit
//   grader docs --force         rewrite every block that differs (after reading that diff)
//   grader docs --check         change nothing; describe each block that differs; exit 1 if any
//   grader docs --stage DIR     write render-ready copies of the decks into DIR (the `slides`
//                               target): markers left out, the user's own pictures first, every
//                               picture copied into DIR/img/; --edition student leaves out the
//                               code of solutions/ and the tables marked "answers lab NN"
//   Diagram blocks refer to drawings of grader figures (slides/figures/NAME.svg): `grader docs`
//   redraws them, --check reports a stale one, --stage draws them into DIR/figures/.
//   --root DIR                  the repository (default: this build's source tree)
//
// Why --force: a block holds what the generator wrote last time; when it differs from what the
// generator gives now, either the code changed (the normal case: rewrite it) or someone edited
// the block by hand (rewriting loses the edit). Nothing recorded tells the two apart, so
// `grader docs` shows the diff and writes only when told to.
//
// Exit status: 0 all current (or rewritten), 1 --check or a `grader docs` without --force found
// blocks that differ (nothing written), 2 a malformed
// marker (unclosed block, unknown kind, unknown table...: each named with file and line) or a
// bad option; nothing is written when any marker is malformed.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <regex>

#include "commands/commands.hpp"
#include "convlab/atomic_file.hpp"
#include "convlab/contained_paths.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/limits.hpp"
#include "docgen/docs_content.hpp"
#include "docgen/docs_markers.hpp"

namespace convlab::grader {

namespace fs = std::filesystem;

namespace {

struct DocsOptions {
  bool check = false;
  std::string root;
  std::string stage;
  bool quiet = false;
  bool force = false;
  std::string edition = "instructor";
};

bool looks_like_root(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p / "slides", ec) && fs::is_regular_file(p / "CMakePresets.json", ec);
}

/// The repository: --root, else the source tree this grader was built from, else the folder
/// two levels above the binary (build/bin/grader), else the current folder or one above it.
std::optional<fs::path> find_root(const std::string& given) {
  std::error_code ec;
  if (!given.empty()) {
    if (!fs::is_directory(given, ec)) return std::nullopt;
    return fs::weakly_canonical(fs::absolute(given), ec);  // run_docs checks that it is one
  }
  std::vector<fs::path> candidates{source_dir(), bin_dir().parent_path().parent_path()};
  for (fs::path p = fs::current_path(ec); !p.empty(); p = p.parent_path()) {
    candidates.push_back(p);
    if (p == p.root_path()) break;
  }
  for (const auto& c : candidates) {
    if (looks_like_root(c)) return fs::weakly_canonical(c, ec);
  }
  return std::nullopt;
}

/// Whether a Markdown file is a Marp deck: front matter that says `marp: true`.
bool is_deck(const std::string& text) {
  if (text.rfind("---\n", 0) != 0) return false;
  const auto end = text.find("\n---", 3);
  const std::string front = text.substr(0, end);
  return front.find("\nmarp: true") != std::string::npos;
}

/// README.md and every slides/*.md, as paths relative to the root, sorted. A document that is a
/// link is read only when it leads to a file inside the repository (contained_paths.hpp): --check
/// would print an outside file's lines into a CI log, --force would copy them into the README.
std::vector<fs::path> documents(const fs::path& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (fs::is_regular_file(resolve_inside(root, root / "README.md"), ec)) out.emplace_back("README.md");
  std::vector<fs::path> slides;
  for (const auto& e : fs::directory_iterator(resolve_inside(root, root / "slides"), ec)) {
    const fs::path rel = fs::path("slides") / e.path().filename();
    if (e.path().extension() == ".md" && fs::is_regular_file(resolve_inside(root, root / rel), ec)) slides.push_back(rel);
  }
  std::sort(slides.begin(), slides.end());
  out.insert(out.end(), slides.begin(), slides.end());
  return out;
}

/// Local images a staged deck refers to that it did not get from a figure block: copied from
/// slides/ keeping their relative paths (a deck's own pictures, if it has any).
void copy_deck_images(const std::string& text, const fs::path& root, const fs::path& stage) {
  const fs::path slides_dir = root / "slides";
  static const std::regex image(R"(!\[[^\]]*\]\(([^)\s]+))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), image); it != std::sregex_iterator(); ++it) {
    const std::string target = (*it)[1].str();
    if (target.find("://") != std::string::npos || target.rfind("data:", 0) == 0 || target.rfind("img/", 0) == 0 ||
        target.rfind("figures/", 0) == 0) {
      continue;  // pictures and drawings the stage already holds
    }
    const fs::path rel(target);
    if (rel.is_absolute() || std::any_of(rel.begin(), rel.end(), [](const fs::path& p) { return p == ".."; })) continue;
    std::error_code ec;
    const fs::path from = resolve_inside(root, slides_dir / rel);
    if (!fs::is_regular_file(from, ec)) continue;  // the render check reports it
    write_file_atomically(output_inside(stage, stage / rel), read_file(from, kMaxTextFileBytes));
  }
}

/// A document of the run: where it is, what it held, and what the code makes of it.
struct DocumentResult {
  fs::path rel;
  std::string original;
  docs::ProcessedDocument doc;
};

/// The documents of one run, regenerated in memory: nothing is written yet.
struct DocsRun {
  fs::path root;   ///< the repository
  fs::path stage;  ///< --stage, absolute; empty when not staging
  std::unique_ptr<docs::ContentGenerator> generator;
  std::vector<DocumentResult> results;
  std::size_t blocks = 0, stale = 0;
  std::vector<fs::path> stale_drawings;  ///< diagram files that differ from what figures.hpp draws

  [[nodiscard]] bool staging() const { return !stage.empty(); }
  /// The folder written into: the stage, or the repository.
  [[nodiscard]] const fs::path& target() const { return staging() ? stage : root; }
  void write_drawings() const {
    for (const auto& file : stale_drawings) {
      write_file_atomically(output_inside(target(), file), generator->diagram_files().at(file));
    }
  }
  void print_differences() const {
    for (const auto& r : results) {
      for (const auto& b : r.doc.blocks) {
        if (!b.current()) fmt::print("{}\n", docs::describe_difference(r.rel.generic_string(), b));
      }
    }
  }
};

/// Phase 1: the repository and the stage folder, checked. @returns an exit code on failure.
std::optional<int> open_run(const DocsOptions& o, DocsRun& run) {
  const auto root = find_root(o.root);
  if (!root) {
    fmt::print(stderr, "grader docs: {}\n",
               o.root.empty() ? "cannot find the repository (a folder with slides/ and CMakePresets.json); give --root DIR"
                              : fmt::format("--root {}: no such folder", o.root));
    return kUsageError;
  }
  if (!looks_like_root(*root)) {
    // A folder with no documents would otherwise pass as "all 0 blocks current".
    fmt::print(stderr, "grader docs: not a convlab repository: {} (no slides/ folder and CMakePresets.json)\n",
               root->string());
    return kUsageError;
  }
  run.root = *root;
  if (!o.stage.empty() && o.check) {
    fmt::print(stderr, "grader docs: --check and --stage exclude each other\n");
    return kUsageError;
  }
  if (!o.stage.empty()) {
    std::error_code ec;
    run.stage = fs::absolute(o.stage);
    fs::create_directories(run.stage, ec);
    if (!fs::is_directory(run.stage, ec)) {
      fmt::print(stderr, "grader docs: --stage {}: cannot create the folder\n", o.stage);
      return kUsageError;
    }
  }
  return std::nullopt;
}

/// Phase 2: every document regenerated in memory, and the drawings compared. @returns an exit
/// code when a marker is malformed (each printed with file and line).
std::optional<int> regenerate(const DocsOptions& o, DocsRun& run) {
  docs::ContentOptions copt;
  copt.root = run.root;
  copt.figures = run.staging() ? docs::FigurePolicy::own_first : docs::FigurePolicy::committed_only;
  if (run.staging()) copt.stage_dir = run.stage;
  copt.edition = o.edition == "student" ? docs::Edition::student : docs::Edition::instructor;
  run.generator = std::make_unique<docs::ContentGenerator>(copt);
  docs::WriteOptions wopt;
  wopt.strip_markers = run.staging();
  std::vector<std::string> errors;
  for (const fs::path& rel : documents(run.root)) {
    const std::string text = read_file(resolve_inside(run.root, run.root / rel), kMaxTextFileBytes);
    if (run.staging() && !is_deck(text)) continue;
    const fs::path written_at = run.staging() ? run.stage / rel.filename() : run.root / rel;
    docs::ProcessedDocument doc = docs::process_document(
        text, [&](const docs::Marker& m) { return run.generator->generate(m, written_at); }, wopt);
    for (const auto& e : doc.errors) errors.push_back(fmt::format("{}:{}: {}", rel.generic_string(), e.line, e.message));
    run.results.push_back({rel, text, std::move(doc)});
  }
  if (!errors.empty()) {
    for (const auto& e : errors) fmt::print(stderr, "{}\n", e);
    fmt::print(stderr, "grader docs: {} malformed marker{}; nothing was {}\n", errors.size(),
               errors.size() == 1 ? "" : "s", o.check ? "checked" : "written");
    return kUsageError;
  }
  for (const auto& r : run.results) {
    run.blocks += r.doc.blocks.size();
    for (const auto& b : r.doc.blocks) run.stale += b.current() ? 0 : 1;
  }
  // The drawings of the diagram blocks: files of their own, current when they hold what
  // figures.hpp draws today.
  for (const auto& [file, svg] : run.generator->diagram_files()) {
    std::error_code ec;
    const fs::path at = resolve_inside(run.target(), file);
    if (!fs::is_regular_file(at, ec) || read_file(at, kMaxTextFileBytes) != svg) run.stale_drawings.push_back(file);
  }
  return std::nullopt;
}

/// --stage: render-ready decks, drawings and pictures in the stage folder.
int stage_decks(const DocsOptions& o, const DocsRun& run) {
  for (const auto& r : run.results) {
    write_file_atomically(output_inside(run.stage, run.stage / r.rel.filename()), r.doc.text);
  }
  run.write_drawings();
  const auto& copies = run.generator->copies();
  for (const auto& [from, to] : copies) {
    write_file_atomically(output_inside(run.stage, to), read_file(resolve_inside(run.root, from), kMaxTextFileBytes));
  }
  for (const auto& r : run.results) copy_deck_images(r.doc.text, run.root, run.stage);
  if (!o.quiet) {
    fmt::print("grader docs: {} deck{} staged in {} ({} generated blocks, {} picture{})\n", run.results.size(),
               run.results.size() == 1 ? "" : "s", run.stage.string(), run.blocks, copies.size(),
               copies.size() == 1 ? "" : "s");
  }
  return kGraded;
}

/// --check: every difference described, nothing written.
int check_blocks(const DocsOptions& o, const DocsRun& run) {
  run.print_differences();
  for (const auto& file : run.stale_drawings) {
    std::error_code ec;
    fmt::print("{}: the drawing differs from what grader figures draws from the code's sizes now\n",
               fs::relative(file, run.root, ec).generic_string());
  }
  const std::size_t stale = run.stale + run.stale_drawings.size();
  if (stale == 0) {
    if (!o.quiet) {
      fmt::print("grader docs --check: all {} generated blocks in {} files are current\n", run.blocks, run.results.size());
    }
    return kGraded;
  }
  fmt::print("grader docs --check: {} of {} generated blocks differ from what the code generates now; "
             "`build/bin/grader docs --force` rewrites them\n", stale, run.blocks);
  return 1;
}

/// Without --check: the differences shown, and written only with --force.
int write_blocks(const DocsOptions& o, const DocsRun& run) {
  if (run.stale > 0 && !o.force) {
    run.print_differences();
    std::fflush(stdout);  // the diffs first, then the verdict
    fmt::print(stderr,
               "grader docs: {} of {} generated blocks differ from what the code generates now (above: - the file, "
               "+ the code); nothing was written. If the differences are the code's, run `grader docs --force`; a "
               "hand edit inside a block would be lost: move it out of the block first\n",
               run.stale, run.blocks);
    return 1;
  }
  run.write_drawings();
  for (const auto& file : run.stale_drawings) {
    std::error_code ec;
    if (!o.quiet) fmt::print("grader docs: redrew {}\n", fs::relative(file, run.root, ec).generic_string());
  }
  for (const auto& r : run.results) {
    if (!r.doc.changed() || r.doc.text == r.original) continue;
    write_file_atomically(output_inside(run.root, run.root / r.rel), r.doc.text);
    std::size_t n = 0;
    for (const auto& b : r.doc.blocks) n += b.current() ? 0 : 1;
    if (!o.quiet) fmt::print("grader docs: rewrote {} block{} in {}\n", n, n == 1 ? "" : "s", r.rel.generic_string());
  }
  if (!o.quiet) {
    fmt::print("grader docs: {} generated blocks in {} files, {} rewritten\n", run.blocks, run.results.size(), run.stale);
  }
  return kGraded;
}

int run_docs(const DocsOptions& o) {
  DocsRun run;
  if (const auto failed = open_run(o, run)) return *failed;
  if (const auto failed = regenerate(o, run)) return *failed;
  if (run.staging()) return stage_decks(o, run);
  if (o.check) return check_blocks(o, run);
  return write_blocks(o, run);
}

}  // namespace

void add_docs_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<DocsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "docs",
      "Regenerate the generated blocks of README.md and slides/*.md (lecture tables, errata, included "
      "results, code excerpts, pictures of grader bench and tune) between their <!-- convlab:... --> markers. A "
      "block that differs from what the code generates is shown as a diff and rewritten only with --force: a "
      "change of the code and a hand edit look the same, and rewriting would lose the edit");
  cmd->add_flag("--check", opts->check,
                "change nothing: describe every block that differs and exit 1 if any does (0: all current; "
                "2: a malformed marker, named with file and line)");
  cmd->add_option("--root", opts->root, "the repository to work on (default: the source tree of this build)");
  cmd->add_option("--stage", opts->stage,
                  "write render-ready copies of the decks into this folder instead (markers left out; your own "
                  "results from build*/benchmarks and build*/tuning first; pictures copied into its img/)");
  cmd->add_option("--edition", opts->edition,
                  "with --stage: instructor (default: everything) or student (handed out before the deadline: the "
                  "reference code and the tables that answer the labs' questions left out)")
      ->check(CLI::IsMember({"instructor", "student"}))
      ->needs(cmd->get_option("--stage"));
  cmd->add_flag("--quiet", opts->quiet, "print only differences and errors");
  cmd->add_flag("--force", opts->force,
                "write every block that differs from what the code generates now. Without it `grader docs` shows "
                "each such block as a diff and writes nothing (exit 1): a block that differs was either left behind "
                "by a change of the code (rewrite it) or edited by hand (the edit would be lost)");
  cmd->footer(
      "Markers (whole lines, HTML comments; each block ends with <!-- convlab:end -->):\n"
      "  <!-- convlab:table NAME... -->             grader tables --format markdown --no-gpu --table NAME\n"
      "  <!-- convlab:errata [rounding|error] [NAME...] -->  the flagged published values, with the exact ones\n"
      "  <!-- convlab:include PATH -->              a Markdown file (relative to the root), or a sentence if absent\n"
      "  <!-- convlab:code PATH | FIRST | LAST -->  the lines of PATH from the one holding FIRST to the one holding LAST\n"
      "  <!-- convlab:figure bench|tune FILE | caption -->  a picture of grader bench / grader tune, or a sentence\n"
      "  <!-- convlab:diagram NAME -->              a drawing of grader figures (slides/figures/NAME.svg, redrawn too)\n"
      "In the repository a figure is a committed reference run (results/bench/*/, "
      "results/tune/*/);\nwith --stage, your own run comes first.");
  // --force rewrites the repository's blocks: a --check changes nothing and a --stage writes
  // elsewhere, so either would ignore it.
  for (const char* mode : {"--check", "--stage"}) cmd->get_option(mode)->excludes(cmd->get_option("--force"));
  cmd->callback([opts, &exit_code] {
    try {
      exit_code = run_docs(*opts);
    } catch (const std::exception& e) {
      fmt::print(stderr, "grader docs: {}\n", e.what());
      exit_code = kUsageError;
    }
  });
}

}  // namespace convlab::grader
