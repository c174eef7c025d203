#include "docgen/docs_markers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <regex>

namespace convlab::grader::docs {

namespace {

constexpr const char* kEndMarker = "<!-- convlab:end -->";

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : s) {
    if (c == ' ' || c == '\t') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

/// What a line that looks like a marker turned out to be.
struct MarkerLine {
  bool is_end = false;
  std::optional<Marker> marker;  ///< an opening marker, when well formed
  std::optional<std::string> error;
};

/// Whether the (trimmed) line is meant as a convlab marker: `<!--` then `convlab:`.
bool looks_like_marker(const std::string& t) {
  if (t.rfind("<!--", 0) != 0) return false;
  return trim(t.substr(4)).rfind("convlab:", 0) == 0;
}

MarkerLine parse_marker_line(const std::string& t, int line) {
  MarkerLine out;
  if (t.size() < 7 || t.compare(t.size() - 3, 3, "-->") != 0) {
    out.error = fmt::format("marker '{}' does not end with '-->' on the same line", t);
    return out;
  }
  std::string inner = trim(t.substr(4, t.size() - 7));
  inner = inner.substr(std::string("convlab:").size());
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const auto bar = inner.find('|', start);
    fields.push_back(trim(inner.substr(start, bar == std::string::npos ? std::string::npos : bar - start)));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  std::vector<std::string> words = split_words(fields.front());
  const std::vector<std::string> parts(fields.begin() + 1, fields.end());
  if (words.empty()) {
    out.error = fmt::format("marker '{}' names no kind (table, include, figure, errata, code, diagram or end)", t);
    return out;
  }
  const std::string kind = words.front();
  words.erase(words.begin());
  auto fail = [&](const std::string& why) {
    out.error = fmt::format("marker '{}': {}", t, why);
    return out;
  };
  if (kind == "end") {
    out.is_end = true;
    if (!words.empty() || !parts.empty()) return fail("'end' takes no arguments");
    return out;
  }
  Marker m;
  m.args = words;
  m.parts = parts;
  m.text = t;
  m.line = line;
  if (kind == "table") {
    m.kind = MarkerKind::table;
    if (words.empty()) return fail("name the table: <!-- convlab:table NAME --> (grader tables --list)");
    // One optional part marks a table that answers a lab's questions: the student edition of
    // the slides leaves it out until the deadline.
    const bool answers = parts.size() == 1 && std::regex_match(parts[0], std::regex(R"(answers lab \d\d)"));
    if (!parts.empty() && !answers) {
      return fail("'table' takes table names and, for one that answers a lab's questions, '| answers lab NN'");
    }
  } else if (kind == "include") {
    m.kind = MarkerKind::include;
    if (words.size() != 1 || !parts.empty()) {
      return fail("'include' takes one path, relative to the repository root: <!-- convlab:include PATH -->");
    }
  } else if (kind == "figure") {
    m.kind = MarkerKind::figure;
    if (words.size() != 2 || parts.size() > 1) {
      return fail("write <!-- convlab:figure bench|tune FILE | caption -->");
    }
    if (words[0] != "bench" && words[0] != "tune") {
      return fail(fmt::format("unknown picture source '{}': 'bench' (grader bench) or 'tune' (grader tune)", words[0]));
    }
  } else if (kind == "errata") {
    m.kind = MarkerKind::errata;
    if (!parts.empty()) return fail("'errata' takes 'rounding' or 'error' and table names only, no '|'");
  } else if (kind == "code") {
    m.kind = MarkerKind::code;
    if (words.size() != 1 || parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
      return fail("write <!-- convlab:code PATH | text of the first line | text of the last line -->");
    }
  } else if (kind == "diagram") {
    m.kind = MarkerKind::diagram;
    if (words.size() != 1 || !parts.empty()) return fail("write <!-- convlab:diagram NAME --> (grader figures --list)");
  } else {
    out.error = fmt::format("unknown marker 'convlab:{}' in '{}' (the kinds are table, include, figure, "
                            "errata, code, diagram and end)", kind, t);
    return out;
  }
  out.marker = std::move(m);
  return out;
}

/// A fence opener or closer: the fence character and its run length, or nothing.
std::optional<std::pair<char, std::size_t>> fence_of(const std::string& line) {
  std::size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (i >= line.size() || (line[i] != '`' && line[i] != '~')) return std::nullopt;
  const char c = line[i];
  std::size_t n = 0;
  while (i + n < line.size() && line[i + n] == c) ++n;
  if (n < 3) return std::nullopt;
  return std::make_pair(c, n);
}

}  // namespace

const char* kind_name(MarkerKind kind) {
  switch (kind) {
    case MarkerKind::table: return "table";
    case MarkerKind::include: return "include";
    case MarkerKind::figure: return "figure";
    case MarkerKind::errata: return "errata";
    case MarkerKind::code: return "code";
    case MarkerKind::diagram: return "diagram";
  }
  return "?";
}

ParsedDocument parse_document(const std::string& text) {
  ParsedDocument doc;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto nl = text.find('\n', start);
    if (nl == std::string::npos) {
      doc.lines.push_back(text.substr(start));
      doc.final_newline = false;
      break;
    }
    doc.lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }

  std::optional<Block> open;
  bool open_is_malformed = false;  // the open block's marker was reported: its end only closes it
  char fence_char = 0;  // inside a code fence (outside blocks only): its character and length
  std::size_t fence_len = 0;
  for (std::size_t i = 0; i < doc.lines.size(); ++i) {
    const int line_no = static_cast<int>(i) + 1;
    const std::string& line = doc.lines[i];
    if (!open) {
      const auto f = fence_of(line);
      if (fence_char != 0) {
        if (f && f->first == fence_char && f->second >= fence_len &&
            trim(line).find_first_not_of(fence_char) == std::string::npos) {
          fence_char = 0;
        }
        continue;
      }
      if (f) {
        fence_char = f->first;
        fence_len = f->second;
        continue;
      }
    }
    const std::string t = trim(line);
    if (!looks_like_marker(t)) {
      if (open) open->body.push_back(line);
      continue;
    }
    const MarkerLine m = parse_marker_line(t, line_no);
    if (m.error) doc.errors.push_back({line_no, *m.error});
    if (m.is_end) {
      if (!open) {
        if (!m.error) doc.errors.push_back({line_no, fmt::format("{} without an opening marker before it", kEndMarker)});
        continue;
      }
      open->end_line = line_no;
      if (!open_is_malformed) doc.blocks.push_back(std::move(*open));
      open.reset();
      continue;
    }
    // An opening marker, well formed or not (a malformed one still opens a block, so that its
    // end marker is not reported a second time).
    if (open && !open_is_malformed) {
      doc.errors.push_back({open->marker.line,
                            fmt::format("unclosed block: '{}' has no {} before the next marker, '{}' at line {}",
                                        open->marker.text, kEndMarker, t, line_no)});
    }
    open = Block{};
    open_is_malformed = m.error.has_value();
    if (m.marker) open->marker = *m.marker;
    open->body_first_line = line_no + 1;
  }
  if (open && !open_is_malformed) {
    doc.errors.push_back({open->marker.line, fmt::format("unclosed block: '{}' has no {} after it",
                                                         open->marker.text, kEndMarker)});
  }
  // (An unclosed code fence is legal Markdown: it runs to the end. Nothing to report.)
  std::stable_sort(doc.errors.begin(), doc.errors.end(),
                   [](const MarkerError& a, const MarkerError& b) { return a.line < b.line; });
  return doc;
}

bool ProcessedDocument::changed() const {
  return std::any_of(blocks.begin(), blocks.end(), [](const BlockResult& b) { return !b.current(); });
}

std::vector<std::string> body_lines(const std::string& generated) {
  std::vector<std::string> lines{""};
  std::size_t start = 0;
  while (start < generated.size()) {
    const auto nl = generated.find('\n', start);
    if (nl == std::string::npos) {
      lines.push_back(generated.substr(start));
      break;
    }
    lines.push_back(generated.substr(start, nl - start));
    start = nl + 1;
  }
  // No blank lines of the generator's own at either end: exactly one blank line each side.
  while (lines.size() > 1 && trim(lines.back()).empty()) lines.pop_back();
  std::size_t lead = 1;
  while (lead < lines.size() && trim(lines[lead]).empty()) ++lead;
  lines.erase(lines.begin() + 1, lines.begin() + static_cast<std::ptrdiff_t>(lead));
  lines.push_back("");
  return lines;
}

ProcessedDocument process_document(const std::string& text, const Generator& generate,
                                   const WriteOptions& options) {
  ParsedDocument doc = parse_document(text);
  ProcessedDocument out;
  out.errors = doc.errors;
  for (const Block& b : doc.blocks) {
    BlockResult r;
    r.block = b;
    try {
      r.expected = body_lines(generate(b.marker));
    } catch (const BadMarker& e) {
      out.errors.push_back({b.marker.line, fmt::format("marker '{}': {}", b.marker.text, e.what())});
      r.expected = b.body;
    }
    out.blocks.push_back(std::move(r));
  }
  std::stable_sort(out.errors.begin(), out.errors.end(),
                   [](const MarkerError& a, const MarkerError& b) { return a.line < b.line; });

  std::string result;
  std::size_t next_block = 0;
  auto emit = [&](const std::string& line) {
    result += line;
    result += '\n';
  };
  for (std::size_t i = 0; i < doc.lines.size(); ++i) {
    const int line_no = static_cast<int>(i) + 1;
    if (next_block < out.blocks.size() && out.blocks[next_block].block.marker.line == line_no) {
      const BlockResult& r = out.blocks[next_block];
      if (!options.strip_markers) emit(doc.lines[i]);
      for (const auto& l : r.expected) emit(l);
      if (!options.strip_markers) emit(doc.lines[static_cast<std::size_t>(r.block.end_line) - 1]);
      i = static_cast<std::size_t>(r.block.end_line) - 1;
      ++next_block;
      continue;
    }
    emit(doc.lines[i]);
  }
  if (!doc.final_newline && !result.empty()) result.pop_back();
  out.text = std::move(result);
  return out;
}

std::string describe_difference(const std::string& file, const BlockResult& result) {
  const std::vector<std::string>& a = result.block.body;
  const std::vector<std::string>& b = result.expected;
  const int first = result.block.body_first_line;
  std::string out = fmt::format("{}:{}: '{}' differs from what the code generates now\n", file,
                                result.block.marker.line, result.block.marker.text);
  out += fmt::format("--- {} (lines {}-{}, in the file)\n", file, first, result.block.end_line - 1);
  out += fmt::format("+++ {} (generated by grader docs)\n", file);

  // Longest common subsequence of lines; blocks are short, so the quadratic table is fine.
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t j = m; j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  struct Op {
    char tag;  // ' ', '-', '+'
    std::size_t ia, ib;  // positions before this op in a and b
    std::string text;
  };
  std::vector<Op> ops;
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      ops.push_back({' ', i, j, a[i]});
      ++i, ++j;
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      ops.push_back({'-', i, j, a[i]});  // removals first, as diff -u writes them
      ++i;
    } else {
      ops.push_back({'+', i, j, b[j]});
      ++j;
    }
  }
  constexpr std::size_t kContext = 2;
  std::size_t k = 0;
  while (k < ops.size()) {
    if (ops[k].tag == ' ') {
      ++k;
      continue;
    }
    // A hunk: from kContext lines before this change to kContext lines after the last change
    // that is within 2·kContext lines of the one before it.
    std::size_t begin = k >= kContext ? k - kContext : 0;
    while (begin < k && ops[begin].tag != ' ') ++begin;
    std::size_t end = k;
    std::size_t last_change = k;
    while (end < ops.size()) {
      if (ops[end].tag != ' ') last_change = end;
      if (end - last_change > 2 * kContext) break;
      ++end;
    }
    end = std::min(ops.size(), last_change + kContext + 1);
    std::size_t a_count = 0, b_count = 0;
    for (std::size_t t = begin; t < end; ++t) {
      if (ops[t].tag != '+') ++a_count;
      if (ops[t].tag != '-') ++b_count;
    }
    out += fmt::format("@@ -{},{} +{},{} @@\n", first + static_cast<int>(ops[begin].ia), a_count,
                       first + static_cast<int>(ops[begin].ib), b_count);
    for (std::size_t t = begin; t < end; ++t) out += fmt::format("{}{}\n", ops[t].tag, ops[t].text);
    k = end;
  }
  return out;
}

}  // namespace convlab::grader::docs
