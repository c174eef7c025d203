// `grader docs`: the marker syntax (docs_markers), what the blocks hold (docs_content), and the
// command on a temporary tree: --check finds a stale number, a rewrite fixes it, a malformed
// marker is exit 2 with file and line, and pictures come from the right place.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>

#include "commands/commands.hpp"
#include "convlab/analysis_tables.hpp"
#include "docgen/docs_content.hpp"
#include "docgen/docs_markers.hpp"
#include "grader_test_support.hpp"
#include "system/subprocess.hpp"

using namespace convlab::grader;
using namespace convlab::grader::docs;
using convlab::grader::testing::TempDir;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A generator that writes "generated KIND ARGS" and rejects the table "nope".
std::string fake(const Marker& m) {
  if (m.kind == MarkerKind::table && m.args.at(0) == "nope") throw BadMarker("no table named 'nope'");
  std::string out = fmt::format("generated {}", kind_name(m.kind));
  for (const auto& a : m.args) out += " " + a;
  return out + "\n";
}

ProcessResult grader(std::vector<std::string> args) {
  args.insert(args.begin(), CONVLAB_GRADER_EXE);
  return run_process(args, 120s);
}

/// The smallest tree `grader docs --root` accepts.
void make_root(const fs::path& root) {
  write(root / "CMakePresets.json", "{}\n");
  fs::create_directories(root / "slides");
}

const std::string kPng = "\x89PNG\r\n\x1a\n fake picture";

}  // namespace

TEST_CASE("docs markers: a block is found with its kind, arguments and body", "[docs]") {
  const std::string text =
      "# Title\n\n<!-- convlab:table reduction-1d -->\nold 1\nold 2\n<!-- convlab:end -->\ntail\n";
  const ParsedDocument d = parse_document(text);
  REQUIRE(d.errors.empty());
  REQUIRE(d.blocks.size() == 1);
  const Block& b = d.blocks[0];
  CHECK(b.marker.kind == MarkerKind::table);
  CHECK(b.marker.args == std::vector<std::string>{"reduction-1d"});
  CHECK(b.marker.line == 3);
  CHECK(b.body_first_line == 4);
  CHECK(b.end_line == 6);
  CHECK(b.body == std::vector<std::string>{"old 1", "old 2"});
}

TEST_CASE("docs markers: figure captions, code anchors and blanks around markers", "[docs]") {
  const std::string text =
      "  <!-- convlab:figure bench roofline.png | The roofline, measured -->  \n<!-- convlab:end -->\n"
      "<!--convlab:code solutions/x.cu | int a | return a; -->\n<!-- convlab:end -->\n";
  const ParsedDocument d = parse_document(text);
  REQUIRE(d.errors.empty());
  REQUIRE(d.blocks.size() == 2);
  CHECK(d.blocks[0].marker.kind == MarkerKind::figure);
  CHECK(d.blocks[0].marker.args == std::vector<std::string>{"bench", "roofline.png"});
  CHECK(d.blocks[0].marker.parts == std::vector<std::string>{"The roofline, measured"});
  CHECK(d.blocks[1].marker.kind == MarkerKind::code);
  CHECK(d.blocks[1].marker.parts == std::vector<std::string>{"int a", "return a;"});
}

TEST_CASE("docs markers: markers inside a code fence are text, not markers", "[docs]") {
  const std::string text =
      "```\n<!-- convlab:table reduction-1d -->\n<!-- convlab:end -->\n```\n"
      "~~~~markdown\n<!-- convlab:bogus -->\n~~~~\n";
  const ParsedDocument d = parse_document(text);
  CHECK(d.errors.empty());
  CHECK(d.blocks.empty());
}

TEST_CASE("docs markers: malformed markers are reported with their line", "[docs]") {
  SECTION("an unclosed block") {
    const ParsedDocument d = parse_document("a\n<!-- convlab:table reduction-1d -->\nbody\n");
    REQUIRE(d.errors.size() == 1);
    CHECK(d.errors[0].line == 2);
    CHECK_THAT(d.errors[0].message, Catch::Contains("unclosed block"));
  }
  SECTION("a block opened inside another") {
    const ParsedDocument d =
        parse_document("<!-- convlab:table a -->\n<!-- convlab:table b -->\n<!-- convlab:end -->\n");
    REQUIRE(d.errors.size() == 1);
    CHECK(d.errors[0].line == 1);
    CHECK_THAT(d.errors[0].message, Catch::Contains("at line 2"));
  }
  SECTION("an end without an opening") {
    const ParsedDocument d = parse_document("text\n\n<!-- convlab:end -->\n");
    REQUIRE(d.errors.size() == 1);
    CHECK(d.errors[0].line == 3);
    CHECK_THAT(d.errors[0].message, Catch::Contains("without an opening marker"));
  }
  SECTION("an unknown kind") {
    const ParsedDocument d = parse_document("\n<!-- convlab:tabel reduction-1d -->\n<!-- convlab:end -->\n");
    REQUIRE_FALSE(d.errors.empty());
    CHECK(d.errors[0].line == 2);
    CHECK_THAT(d.errors[0].message, Catch::Contains("unknown marker 'convlab:tabel'"));
  }
  SECTION("wrong arguments") {
    CHECK(parse_document("<!-- convlab:table -->\n<!-- convlab:end -->\n").errors.size() == 1);
    CHECK(parse_document("<!-- convlab:figure cuda x.png -->\n<!-- convlab:end -->\n").errors.size() == 1);
    CHECK(parse_document("<!-- convlab:include a b -->\n<!-- convlab:end -->\n").errors.size() == 1);
    CHECK(parse_document("<!-- convlab:code a.cu | only one -->\n<!-- convlab:end -->\n").errors.size() == 1);
    CHECK(parse_document("<!-- convlab:table x\n").errors.size() == 1);  // no '-->'
  }
}

TEST_CASE("docs markers: regenerating writes the body between blank lines, and is idempotent", "[docs]") {
  const std::string text = "before\n<!-- convlab:table reduction-1d -->\nstale\n<!-- convlab:end -->\nafter";
  const ProcessedDocument p = process_document(text, fake);
  REQUIRE(p.errors.empty());
  CHECK(p.changed());
  CHECK(p.text ==
        "before\n<!-- convlab:table reduction-1d -->\n\ngenerated table reduction-1d\n\n<!-- convlab:end -->\nafter");
  const ProcessedDocument again = process_document(p.text, fake);
  CHECK_FALSE(again.changed());
  CHECK(again.text == p.text);

  WriteOptions strip;
  strip.strip_markers = true;
  CHECK(process_document(text, fake, strip).text == "before\n\ngenerated table reduction-1d\n\nafter");
}

TEST_CASE("docs markers: a generator's refusal is an error at the marker's line", "[docs]") {
  const ProcessedDocument p = process_document("x\n\n<!-- convlab:table nope -->\n<!-- convlab:end -->\n", fake);
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0].line == 3);
  CHECK_THAT(p.errors[0].message, Catch::Contains("no table named 'nope'"));
}

TEST_CASE("docs markers: a stale block is described with file, line, marker and hunks", "[docs]") {
  const std::string text =
      "# t\n<!-- convlab:table reduction-1d -->\n\n| a | b |\n| 1 | 4.9 |\n| 2 | 3 |\n\n<!-- convlab:end -->\n";
  const Generator gen = [](const Marker&) { return std::string("| a | b |\n| 1 | 4.8 |\n| 2 | 3 |\n"); };
  const ProcessedDocument p = process_document(text, gen);
  REQUIRE(p.blocks.size() == 1);
  REQUIRE_FALSE(p.blocks[0].current());
  const std::string d = describe_difference("slides/x.md", p.blocks[0]);
  CHECK_THAT(d, Catch::StartsWith("slides/x.md:2: '<!-- convlab:table reduction-1d -->' differs"));
  CHECK_THAT(d, Catch::Contains("--- slides/x.md (lines 3-7, in the file)"));
  CHECK_THAT(d, Catch::Contains("@@ -3,5 +3,5 @@"));
  CHECK_THAT(d, Catch::Contains("\n-| 1 | 4.9 |\n+| 1 | 4.8 |\n"));
  CHECK_THAT(d, Catch::Contains("\n | 2 | 3 |\n"));
}

TEST_CASE("docs content: a table block is exactly what grader tables --no-gpu prints", "[docs]") {
  for (const std::string name : {"reduction-1d", "talk-break-even", "im2col-replication"}) {
    const ProcessResult r = grader({"tables", "--format", "markdown", "--no-gpu", "--table", name});
    REQUIRE(r.exit_code == 0);
    CHECK(tables_markdown({name}) == r.output);
  }
  const ProcessResult two =
      grader({"tables", "--format", "markdown", "--no-gpu", "--table", "peak-2d", "--table", "problem-1"});
  CHECK(tables_markdown({"peak-2d", "problem-1"}) == two.output);
  CHECK_THROWS_AS(tables_markdown({"reduction-3d"}), BadMarker);
}

TEST_CASE("docs content: a slide's table cites its source, hides its id and tool hints, and notes a flag once",
          "[docs]") {
  const std::string md = slide_tables_markdown({"paper-bound"});
  // The id and the command are in a comment (a presenter note), not on the slide.
  CHECK_THAT(md, Catch::StartsWith("<!-- table paper-bound of the analysis model; grader tables prints it"));
  const std::string shown = md.substr(md.find("-->") + 3);
  CHECK(shown.find("paper-bound") == std::string::npos);
  CHECK(shown.find("--no-gpu") == std::string::npos);
  CHECK(shown.find("seeds/") == std::string::npos);
  CHECK_THAT(shown, Catch::Contains("\nSource: \\[paper\\] (Iandola et al., ICIP 2013): Section 4, Tables 2-4\n"));
  // Two rows share one reason: both say "note 1", and the reason is written once, under the table.
  std::size_t n = 0;
  std::istringstream lines(shown);
  for (std::string line; std::getline(lines, line);) n += line.rfind("| ", 0) == 0 && line.find(": note 1 |") != std::string::npos;
  CHECK(n == 2);
  CHECK_THAT(shown, Catch::Contains("- ⚑ note 1: the text defines the column as convolutionTime/bandwidthBoundTime"));
  // A table whose note says why there is no GPU column: not on a slide.
  CHECK(slide_tables_markdown({"peak-2d"}).find("left out with --no-gpu") == std::string::npos);
  CHECK_THROWS_AS(slide_tables_markdown({"reduction-3d"}), BadMarker);
}

TEST_CASE("docs content: the errata list every flagged value, and only those", "[docs]") {
  convlab::analysis::GpuColumns gpu;
  gpu.absent_reason = "left out with --no-gpu";
  const auto tables = convlab::analysis::lecture_tables(gpu);
  int rounding = 0, error = 0;
  for (const auto& t : tables) {
    for (const auto& r : t.rows) {
      for (const auto& v : r.values) {
        rounding += v.verdict == convlab::analysis::Verdict::rounding;
        error += v.verdict == convlab::analysis::Verdict::error;
      }
    }
  }
  REQUIRE(rounding > 0);
  REQUIRE(error > 0);
  auto rows = [](const std::string& md) {
    int n = 0;
    std::istringstream in(md);
    for (std::string line; std::getline(in, line);) n += line.rfind("| \\[", 0) == 0 ? 1 : 0;  // a row starts with its citation: | \[talk\] (...)
    return n;
  };
  CHECK(rows(errata_markdown(tables, {})) == rounding + error);
  CHECK(rows(errata_markdown(tables, {"rounding"})) == rounding);
  CHECK(rows(errata_markdown(tables, {"error"})) == error);
  const std::string one = errata_markdown(tables, {"reduction-1d"});
  CHECK(rows(one) == 1);
  CHECK_THAT(one, Catch::Contains("| 4.9 | 4.848 |"));
  CHECK_THAT(errata_markdown(tables, {"example-1d"}), Catch::StartsWith("No published value in `example-1d`"));
  CHECK_THROWS_AS(errata_markdown(tables, {"typos"}), BadMarker);
}

TEST_CASE("docs content: include copies a file, or says how to produce it", "[docs]") {
  TempDir dir("docs-include");
  ContentOptions o;
  o.root = dir.path();
  ContentGenerator gen(o);
  Marker m;
  m.kind = MarkerKind::include;
  m.args = {"results/bench/nvidia-h200/bench.md"};
  const std::string missing = gen.generate(m, dir.path() / "README.md");
  CHECK_THAT(missing, Catch::StartsWith("Not produced yet: `results/bench/nvidia-h200/bench.md` does not exist."));
  CHECK_THAT(missing, Catch::Contains("`build/bin/grader bench` on a GPU writes it"));

  write(dir.path() / "results/bench/nvidia-h200/bench.md", "# Bench on NVIDIA H200\n\n| a |\n| --- |\n| 1 |\n");
  CHECK(gen.generate(m, dir.path() / "README.md") == read(dir.path() / "results/bench/nvidia-h200/bench.md"));

  m.args = {"../outside.md"};
  CHECK_THROWS_AS(gen.generate(m, dir.path() / "README.md"), BadMarker);
  m.args = {"/etc/passwd"};
  CHECK_THROWS_AS(gen.generate(m, dir.path() / "README.md"), BadMarker);
}

TEST_CASE("docs content: a code excerpt runs from the first anchor to the last, dedented", "[docs]") {
  TempDir dir("docs-code");
  write(dir.path() / "solutions/k.cu",
        "// header\nvoid f() {\n    int a = 1;\n#pragma unroll\n    for (;;) {\n      a++;\n    }\n    return;\n}\n");
  ContentOptions o;
  o.root = dir.path();
  ContentGenerator gen(o);
  Marker m;
  m.kind = MarkerKind::code;
  m.args = {"solutions/k.cu"};
  m.parts = {"int a = 1;", "a++;"};
  CHECK(gen.generate(m, dir.path() / "slides/d.md") ==
        "```cpp\n// solutions/k.cu\nint a = 1;\n#pragma unroll\nfor (;;) {\n  a++;\n```\n");
  m.parts = {"int b", "a++;"};
  CHECK_THROWS_AS(gen.generate(m, dir.path() / "slides/d.md"), BadMarker);
  m.parts = {"a++;", "int a"};  // the last anchor must come at or after the first
  CHECK_THROWS_AS(gen.generate(m, dir.path() / "slides/d.md"), BadMarker);
}

TEST_CASE("docs content: pictures come from the user's run first, then the committed reference", "[docs]") {
  TempDir dir("docs-figure");
  const fs::path root = dir.path();
  const fs::path deck = root / "slides" / "05.md";
  Marker m;
  m.kind = MarkerKind::figure;
  m.args = {"bench", "roofline.png"};
  m.parts = {"The roofline"};

  ContentOptions committed;
  committed.root = root;
  ContentOptions staged;
  staged.root = root;
  staged.figures = FigurePolicy::own_first;
  staged.stage_dir = root / "build" / "slides";

  SECTION("absent everywhere: one sentence with the command") {
    for (const ContentOptions& o : {committed, staged}) {
      ContentGenerator gen(o);
      const std::string body = gen.generate(m, deck);
      CHECK_THAT(body, Catch::StartsWith("*The roofline*. Not produced yet on this machine: run "
                                         "`build/bin/grader bench` on a GPU (it writes "
                                         "`build/benchmarks/<gpu>/roofline.png`"));
      CHECK(gen.copies().empty());
    }
  }

  write(root / "results/bench/nvidia-h200/roofline.png", kPng);
  write(root / "results/bench/nvidia-h200/bench.md", "# convlab benchmarks on NVIDIA H200 (2026-11-21)\n");

  SECTION("the committed reference, linked relative to the deck") {
    ContentGenerator gen(committed);
    const std::string body = gen.generate(m, deck);
    CHECK_THAT(body, Catch::Contains("\n![roofline](../results/bench/nvidia-h200/roofline.png)\n"));
    CHECK_THAT(body, Catch::Contains("the committed reference run of 2026-11-21."));
    CHECK_THAT(body, Catch::StartsWith("<!-- picture of grader bench from results/bench/nvidia-h200/;"));
    CHECK_THAT(body, Catch::Contains("measured on NVIDIA H200: the committed reference run"));
    Marker top = m;
    CHECK_THAT(ContentGenerator(committed).generate(top, root / "README.md"),
               Catch::Contains("\n![roofline](results/bench/nvidia-h200/roofline.png)"));
  }

  // The user's own runs, on two GPUs: the newer picture wins in a staged copy.
  write(root / "build/benchmarks/nvidia-h100-80gb-hbm3/roofline.png", kPng);
  write(root / "build/benchmarks/nvidia-h100-80gb-hbm3/bench.json", R"({"gpu": {"name": "NVIDIA H100 80GB HBM3"}})");
  write(root / "build-other/benchmarks/nvidia-a100/roofline.png", kPng);
  write(root / "build-other/benchmarks/nvidia-a100/bench.json", R"({"gpu": "NVIDIA A100"})");
  const auto now = fs::file_time_type::clock::now();
  fs::last_write_time(root / "build/benchmarks/nvidia-h100-80gb-hbm3/roofline.png", now);
  fs::last_write_time(root / "build-other/benchmarks/nvidia-a100/roofline.png", now - 1h);

  SECTION("the repository's decks ignore the user's runs") {
    ContentGenerator gen(committed);
    CHECK_THAT(gen.generate(m, deck), Catch::Contains("NVIDIA H200: the committed reference run"));
  }

  SECTION("a staged copy takes the newest of the user's runs and copies it next to the deck") {
    ContentGenerator gen(staged);
    const std::string body = gen.generate(m, staged.stage_dir.value() / "05.md");
    CHECK_THAT(body, Catch::Contains("\n![roofline](img/own-bench-nvidia-h100-80gb-hbm3-roofline.png)\n"));
    CHECK_THAT(body, Catch::Contains("measured on NVIDIA H100 80GB HBM3 by your own `grader bench` run"));
    REQUIRE(gen.copies().size() == 1);
    CHECK(gen.copies().begin()->first == root / "build/benchmarks/nvidia-h100-80gb-hbm3/roofline.png");
    CHECK(gen.copies().begin()->second == root / "build/slides/img/own-bench-nvidia-h100-80gb-hbm3-roofline.png");
  }

  SECTION("the autotuner's heat maps, from lab 07's results") {
    Marker t;
    t.kind = MarkerKind::figure;
    t.args = {"tune", "heatmap_k03.png"};
    CHECK_THAT(ContentGenerator(committed).generate(t, deck), Catch::Contains("run `build/bin/grader tune` on a GPU"));
    write(root / "results/tune/nvidia-h200/heatmap_k03.png", kPng);
    write(root / "results/tune/nvidia-h200/table.md", "# Lab 07 autotuning on NVIDIA H200\n");
    CHECK_THAT(ContentGenerator(committed).generate(t, deck),
               Catch::Contains("\n![heatmap_k03](../results/tune/nvidia-h200/heatmap_k03.png)"));
    write(root / "build/tuning/lab07-nvidia-h100-80gb-hbm3/heatmap_k03.png", kPng);
    write(root / "build/tuning/lab07-nvidia-h100-80gb-hbm3/table.md", "# Lab 07 autotuning on NVIDIA H100 80GB HBM3\n");
    ContentGenerator gen(staged);
    CHECK_THAT(gen.generate(t, staged.stage_dir.value() / "04.md"),
               Catch::Contains("measured on NVIDIA H100 80GB HBM3 by your own `grader tune` run"));
  }
}

TEST_CASE("grader docs: --check finds a stale table, a rewrite fixes it, malformed markers are exit 2", "[docs][cli]") {
  TempDir dir("docs-cli");
  const fs::path root = dir.path();
  make_root(root);
  const std::string current = slide_tables_markdown({"reduction-1d"});
  const std::string deck_text = "---\nmarp: true\n---\n\n# Reduction\n\n<!-- convlab:table reduction-1d -->\n\n" +
                                current + "\n<!-- convlab:end -->\n";
  write(root / "slides/01-deck.md", deck_text);
  write(root / "README.md", "# readme\n\n<!-- convlab:include results/bench/nvidia-h200/bench.md -->\n<!-- convlab:end -->\n");

  // README's block is empty: stale. Rewrite it, then everything is current.
  ProcessResult r = grader({"docs", "--check", "--root", root.string()});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("README.md:3: '<!-- convlab:include results/bench/nvidia-h200/bench.md -->'"));
  r = grader({"docs", "--force", "--root", root.string()});
  REQUIRE(r.exit_code == 0);
  r = grader({"docs", "--check", "--root", root.string()});
  CHECK(r.exit_code == 0);
  CHECK(read(root / "slides/01-deck.md") == deck_text);

  // Edit one number of the deck's table: --check names it and changes nothing; docs restores it.
  std::string edited = deck_text;
  const auto at = edited.find("| 4.848 |");
  REQUIRE(at != std::string::npos);
  edited.replace(at, 9, "| 4.847 |");
  write(root / "slides/01-deck.md", edited);
  r = grader({"docs", "--check", "--root", root.string()});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("slides/01-deck.md:7: '<!-- convlab:table reduction-1d -->' differs"));
  CHECK_THAT(r.output, Catch::Contains("-| 128 | 5 | 4.9 | 4.847 |"));
  CHECK_THAT(r.output, Catch::Contains("+| 128 | 5 | 4.9 | 4.848 |"));
  CHECK(read(root / "slides/01-deck.md") == edited);
  r = grader({"docs", "--force", "--root", root.string()});
  CHECK(r.exit_code == 0);
  CHECK(read(root / "slides/01-deck.md") == deck_text);

  // Malformed markers: exit 2, file and line, nothing written.
  write(root / "slides/02-bad.md", "# bad\n\n<!-- convlab:table reduction-1d -->\nno end\n");
  write(root / "slides/03-bad.md", "<!-- convlab:table reduction-9d -->\n<!-- convlab:end -->\n<!-- convlab:tabel x -->\n");
  write(root / "slides/01-deck.md", edited);
  r = grader({"docs", "--root", root.string()});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("slides/02-bad.md:3: unclosed block"));
  CHECK_THAT(r.output, Catch::Contains("slides/03-bad.md:1: marker '<!-- convlab:table reduction-9d -->': no table named 'reduction-9d'"));
  CHECK_THAT(r.output, Catch::Contains("slides/03-bad.md:3: unknown marker 'convlab:tabel'"));
  CHECK(read(root / "slides/01-deck.md") == edited);
  r = grader({"docs", "--check", "--root", root.string()});
  CHECK(r.exit_code == 2);

  CHECK(grader({"docs", "--root", (root / "nowhere").string()}).exit_code == 2);
}

TEST_CASE("grader docs: --stage writes render-ready decks with their pictures next to them", "[docs][cli]") {
  TempDir dir("docs-stage");
  const fs::path root = dir.path();
  make_root(root);
  write(root / "slides/README.md", "# not a deck\n");
  write(root / "slides/04-deck.md",
        "---\nmarp: true\n---\n\n<!-- convlab:figure tune heatmap_k03.png | Heat map -->\n<!-- convlab:end -->\n");
  write(root / "results/tune/nvidia-h200/heatmap_k03.png", kPng);
  write(root / "results/tune/nvidia-h200/table.md", "# Lab 07 autotuning on NVIDIA H200\n");
  const fs::path out = root / "build" / "slides";
  const ProcessResult r = grader({"docs", "--stage", out.string(), "--root", root.string()});
  REQUIRE(r.exit_code == 0);
  CHECK_FALSE(fs::exists(out / "README.md"));
  const std::string staged = read(out / "04-deck.md");
  CHECK(staged.find("convlab:") == std::string::npos);
  CHECK_THAT(staged, Catch::Contains("![heatmap_k03](img/ref-tune-nvidia-h200-heatmap_k03.png)"));
  CHECK(read(out / "img/ref-tune-nvidia-h200-heatmap_k03.png") == kPng);
  // The source deck is untouched (its block is stale: --stage never writes the sources).
  CHECK(read(root / "slides/04-deck.md").find("<!-- convlab:end -->") != std::string::npos);
  CHECK(grader({"docs", "--stage", out.string(), "--check", "--root", root.string()}).exit_code == 2);
}

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string trimmed(const std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  const auto b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

/// Lines of the reference solutions that give an answer away: code (not a comment or an
/// include) of 30 characters or more that the lab's own stub does not hold.
std::vector<std::pair<std::string, fs::path>> reference_lines(const fs::path& root) {
  std::vector<std::pair<std::string, fs::path>> out;
  for (const auto& e : fs::recursive_directory_iterator(root / "solutions")) {
    const std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".cu" && ext != ".cuh" && ext != ".cpp" && ext != ".hpp")) continue;
    std::set<std::string> stub;
    std::istringstream stub_text(slurp(root / "labs" / fs::relative(e.path(), root / "solutions")));
    for (std::string l; std::getline(stub_text, l);) stub.insert(trimmed(l));
    std::istringstream text(slurp(e.path()));
    for (std::string l; std::getline(text, l);) {
      const std::string t = trimmed(l);
      if (t.size() < 30 || stub.count(t) || t.rfind("//", 0) == 0 || t.rfind("*", 0) == 0 || t.rfind("#include", 0) == 0) {
        continue;
      }
      out.emplace_back(t, fs::relative(e.path(), root));
    }
  }
  return out;
}

/// How many of `lines` appear in the decks staged in `dir`, with the first few named.
std::pair<std::size_t, std::string> found_in_decks(const std::vector<std::pair<std::string, fs::path>>& lines,
                                                   const fs::path& dir) {
  std::string decks;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".md") decks += slurp(e.path());
  }
  std::size_t n = 0;
  std::string named;
  for (const auto& [line, file] : lines) {
    if (decks.find(line) == std::string::npos) continue;
    if (++n <= 3) named += fmt::format("  {}: {}\n", file.generic_string(), line);
  }
  return {n, named};
}

}  // namespace

TEST_CASE("slides: the student edition holds no reference code and no table that answers a lab's questions",
          "[docs][slides]") {
  TempDir tmp("docs-editions");
  const fs::path root = CONVLAB_SOURCE_DIR;
  const fs::path student = tmp.path() / "student", instructor = tmp.path() / "instructor";
  REQUIRE(grader({"docs", "--quiet", "--root", root.string(), "--stage", student.string(), "--edition", "student"})
              .exit_code == kGraded);
  REQUIRE(grader({"docs", "--quiet", "--root", root.string(), "--stage", instructor.string()}).exit_code == kGraded);
  const auto lines = reference_lines(root);
  REQUIRE(lines.size() > 100);

  const auto [in_student, student_named] = found_in_decks(lines, student);
  INFO("reference lines in the student edition:\n" << student_named);
  CHECK(in_student == 0);
  // The same check finds the instructor edition's excerpts: it can fail.
  const auto [in_instructor, instructor_named] = found_in_decks(lines, instructor);
  CHECK(in_instructor >= 10);

  // The lecture's two "Problem Solving" questions are labs 03 and 04's first questions.
  const std::string deck2 = "02-constant-memory-tiling.md";
  CHECK_THAT(slurp(instructor / deck2), Catch::Contains("'Problem Solving', first question"));
  CHECK_THAT(slurp(student / deck2), !Catch::Contains("'Problem Solving', first question"));
  CHECK_THAT(slurp(student / deck2), Catch::Contains("This table answers lab 03's questions"));
  CHECK_THAT(slurp(student / "01-convolution-naive.md"), Catch::Contains("`labs/01-naive/naive.cu`"));
}

TEST_CASE("grader docs: --edition needs --stage, and a table's '|' part must say which lab it answers", "[docs][cli]") {
  CHECK(grader({"docs", "--edition", "student"}).exit_code == kUsageError);
  ParsedDocument d = parse_document("<!-- convlab:table homework | answers lab 3 -->\n<!-- convlab:end -->\n");
  REQUIRE(d.errors.size() == 1);
  CHECK_THAT(d.errors[0].message, Catch::Contains("'| answers lab NN'"));
  d = parse_document("<!-- convlab:table homework | answers lab 03 -->\n<!-- convlab:end -->\n");
  CHECK(d.errors.empty());
}
