// The code a lab's README and the decks show a student compiles where the stub says it goes.
//
// A README marks such a block with a comment line just above its fence,
//   <!-- compiles in labs/03-tiled-output/tiled_output.cu in place of "// TODO(step 1)" -->
// and the decks' excerpts of lab 03's solution (their `convlab:code` markers) must compile in
// place of the stub's step-1 comment: a student who pastes what the lecture shows into the
// stub gets code that builds. Each block replaces the stub's line that holds the quoted text,
// and nvcc compiles the result against common/include (no GPU needed: CUDA configurations only).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "grader_test_support.hpp"
#include "system/subprocess.hpp"
#include "system/tool_paths.hpp"

namespace fs = std::filesystem;
using convlab::grader::testing::TempDir;
using convlab::grader::testing::write_test_file;
using namespace std::chrono_literals;

namespace {

const fs::path kSource = CONVLAB_SOURCE_DIR;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Snippet {
  std::string where;  // the document and line, for messages
  fs::path stub;      // relative to the repository
  std::string line;   // the stub's line it replaces holds this text
  std::string code;
};

/// The fenced block that starts at or after `from` in `text`, without the fences and without the
/// indentation of its opening fence (a block inside a list item is indented).
std::string fenced_block_after(const std::string& text, std::size_t from) {
  static const std::regex fence(R"(\n([ \t]*)```[a-z]*\n)");
  std::smatch open;
  REQUIRE(std::regex_search(text.begin() + static_cast<std::ptrdiff_t>(from), text.end(), open, fence));
  const std::string indent = open[1];
  const std::size_t body = from + static_cast<std::size_t>(open.position(0) + open.length(0));
  const std::size_t close = text.find("\n" + indent + "```", body - 1);
  REQUIRE(close != std::string::npos);
  std::stringstream lines(text.substr(body, close + 1 - body));
  std::string line, out;
  while (std::getline(lines, line)) out += (line.rfind(indent, 0) == 0 ? line.substr(indent.size()) : line) + "\n";
  return out;
}

/// Every `<!-- compiles in PATH in place of "LINE" -->` block of the labs' READMEs.
std::vector<Snippet> readme_snippets() {
  static const std::regex marker(R"re(<!-- compiles in (\S+) in place of "([^"]+)" -->)re");
  std::vector<Snippet> out;
  for (const auto& lab : fs::directory_iterator(kSource / "labs")) {
    const fs::path readme = lab.path() / "README.md";
    if (!fs::exists(readme)) continue;
    const std::string text = read(readme);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), marker); it != std::sregex_iterator(); ++it) {
      const std::size_t at = static_cast<std::size_t>(it->position(0));
      const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1;
      out.push_back({fmt::format("{}:{}", fs::relative(readme, kSource).string(), line), fs::path((*it)[1].str()),
                     (*it)[2].str(), fenced_block_after(text, at)});
    }
  }
  return out;
}

/// Every excerpt of lab 03's solution in the decks: it belongs in place of the stub's step 1.
std::vector<Snippet> deck_snippets() {
  const std::string marker = "<!-- convlab:code solutions/03-tiled-output/tiled_output.cu";
  std::vector<Snippet> out;
  for (const auto& deck : fs::directory_iterator(kSource / "slides")) {
    if (deck.path().extension() != ".md") continue;
    const std::string text = read(deck.path());
    for (std::size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1)) {
      out.push_back({fmt::format("{} (excerpt of lab 03's solution)", fs::relative(deck.path(), kSource).string()),
                     "labs/03-tiled-output/tiled_output.cu", "// TODO(step 1)", fenced_block_after(text, at)});
    }
  }
  return out;
}

/// The stub with its line holding `s.line` replaced by the snippet, compiled by nvcc.
convlab::grader::ProcessResult compile_in_stub(const Snippet& s, const fs::path& dir) {
  std::string stub = read(kSource / s.stub);
  const std::size_t hit = stub.find(s.line);
  REQUIRE(hit != std::string::npos);
  REQUIRE(stub.find(s.line, hit + 1) == std::string::npos);  // the place is unambiguous
  const std::size_t begin = stub.rfind('\n', hit) + 1;
  const std::size_t end = stub.find('\n', hit);
  stub.replace(begin, end - begin, s.code);
  const fs::path file = dir / s.stub.filename();
  write_test_file(file, stub);
  const std::optional<fs::path> nvcc = convlab::grader::cuda_compiler();
  REQUIRE(nvcc);
  return convlab::grader::run_process({nvcc->string(), "-std=c++17", "-x", "cu", "-c", file.string(), "-o",
                                       (dir / "snippet.o").string(), "-I", (kSource / "common" / "include").string()},
                                      300s);
}

}  // namespace

TEST_CASE("lab snippets: every README block marked 'compiles in' and every deck excerpt of lab 03 compiles in its stub",
          "[docs][snippets]") {
  std::vector<Snippet> all = readme_snippets();
  REQUIRE(!all.empty());  // lab 03's README has one
  const std::vector<Snippet> decks = deck_snippets();
  REQUIRE(!decks.empty());  // deck 2 shows lab 03's load loop
  all.insert(all.end(), decks.begin(), decks.end());
  const TempDir tmp("lab-snippets");
  for (const Snippet& s : all) {
    INFO(s.where << " in place of \"" << s.line << "\" of " << s.stub.string() << ":\n" << s.code);
    const convlab::grader::ProcessResult r = compile_in_stub(s, tmp.path());
    INFO(r.output);
    CHECK(r.exit_code == 0);
  }
}

TEST_CASE("lab snippets: lab 03's stub has the dense tile, so a 2-D index into it does not compile",
          "[docs][snippets]") {
  // What the README and the decks once showed against a stub that declared tile[..][..].
  const Snippet two_d{"a 2-D index", "labs/03-tiled-output/tiled_output.cu", "// TODO(step 1)",
                      "tile[ty][tx] = 0.0f;\n"};
  const TempDir tmp("lab-snippets-2d");
  const convlab::grader::ProcessResult r = compile_in_stub(two_d, tmp.path());
  CHECK(r.exit_code != 0);
}
