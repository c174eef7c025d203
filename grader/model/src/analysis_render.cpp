// The lecture tables as text, Markdown and JSON (analysis_tables.hpp).
//
// Text and Markdown share one column layout: key columns, then for each value column a
// "(published)" and an "(exact)" column (only the one that has data, if a column has only
// one kind), then a "flag" column holding the one-line reason of every flagged value.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

#include "convlab/analysis_tables.hpp"
#include "convlab/markdown.hpp"

namespace convlab::analysis {

namespace {

struct Column {
  std::string header;
  bool numeric = false;  // right-aligned
  std::function<std::string(const TableRow&)> cell;
};

std::string flag_text(const LectureTable& t, const TableRow& row) {
  std::string out;
  for (std::size_t j = 0; j < row.values.size(); ++j) {
    const Value& v = row.values[j];
    if (!v.flagged()) continue;
    if (!out.empty()) out += "; ";
    out += fmt::format("⚑ {}: ", verdict_name(v.verdict));
    if (t.value_headers.size() > 1) out += t.value_headers[j] + ": ";
    out += v.reason;
  }
  return out;
}

std::vector<Column> layout(const LectureTable& t) {
  std::vector<Column> cols;
  for (std::size_t i = 0; i < t.key_headers.size(); ++i) {
    cols.push_back({t.key_headers[i], false, [i](const TableRow& r) { return r.keys.at(i); }});
  }
  for (std::size_t j = 0; j < t.value_headers.size(); ++j) {
    const bool any_published = std::any_of(t.rows.begin(), t.rows.end(), [j](const TableRow& r) {
      return r.values.at(j).published.has_value();
    });
    const bool any_exact = std::any_of(t.rows.begin(), t.rows.end(), [j](const TableRow& r) {
      return r.values.at(j).exact.has_value();
    });
    const std::string& h = t.value_headers[j];
    if (any_published) {
      cols.push_back({any_exact ? h + " (published)" : h, true, [j](const TableRow& r) {
                        const Value& v = r.values.at(j);
                        return v.published ? v.published->text : std::string("—");
                      }});
    }
    if (any_exact) {
      cols.push_back({any_published ? h + " (exact)" : h, true,
                      [j](const TableRow& r) { return r.values.at(j).exact_text(); }});
    }
  }
  const bool any_flag = std::any_of(t.rows.begin(), t.rows.end(), [](const TableRow& r) {
    return std::any_of(r.values.begin(), r.values.end(), [](const Value& v) { return v.flagged(); });
  });
  if (any_flag) {
    cols.push_back({"flag", false, [&t](const TableRow& r) { return flag_text(t, r); }});
  }
  return cols;
}

/// Display width of UTF-8 text: one column per code point (no wide characters are used).
std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char ch) {
    return (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
  }));
}

std::string pad(const std::string& s, std::size_t w, bool right) {
  const std::string fill(w > width(s) ? w - width(s) : 0, ' ');
  return right ? fill + s : s + fill;
}

std::string gpu_status(const GpuColumns& gpu) {
  if (!gpu.gpu) return fmt::format("absent ({})", gpu.absent_reason);
  return fmt::format("{}: copy bandwidth {:.1f} GB/s, FMA rate {:.1f} GFLOP/s (measured now)",
                     gpu.gpu->name, gpu.gpu->bytes_per_s / 1e9, gpu.gpu->flops_per_s / 1e9);
}

struct Tally {
  std::map<Verdict, int> by_verdict;
  int flagged = 0;
};

Tally tally(const std::vector<LectureTable>& tables) {
  Tally t;
  for (const auto& table : tables) {
    for (const auto& row : table.rows) {
      for (const auto& v : row.values) {
        ++t.by_verdict[v.verdict];
        t.flagged += v.flagged();
      }
    }
  }
  return t;
}

}  // namespace

std::string render_text(const std::vector<LectureTable>& tables, const GpuColumns& gpu) {
  Tally n = tally(tables);
  std::string out = fmt::format(
      "convlab: the syllabus's tables recomputed by the analysis model\n"
      "published values: {} agree, {} differ by rounding, {} are inconsistent in the source; "
      "this GPU: {}\n",
      n.by_verdict[Verdict::agrees], n.by_verdict[Verdict::rounding], n.by_verdict[Verdict::error],
      gpu_status(gpu));
  for (const LectureTable& t : tables) {
    out += fmt::format("\n== {} — {}\nsource: {}\n\n", t.name, t.title, t.source);
    const auto cols = layout(t);
    std::vector<std::size_t> w(cols.size());
    for (std::size_t c = 0; c < cols.size(); ++c) {
      w[c] = width(cols[c].header);
      for (const auto& row : t.rows) w[c] = std::max(w[c], width(cols[c].cell(row)));
    }
    auto line = [&](auto text_of) {
      std::string s;
      for (std::size_t c = 0; c < cols.size(); ++c) {
        const bool last = c + 1 == cols.size();
        std::string cell = text_of(c);
        s += last && !cols[c].numeric ? cell : pad(cell, w[c], cols[c].numeric);
        if (!last) s += "  ";
      }
      s.erase(s.find_last_not_of(' ') + 1);  // no trailing blanks after an empty flag cell
      return s + "\n";
    };
    out += line([&](std::size_t c) { return cols[c].header; });
    out += line([&](std::size_t c) { return std::string(w[c], '-'); });
    for (const auto& row : t.rows) out += line([&](std::size_t c) { return cols[c].cell(row); });
    for (const auto& note : t.notes) out += "  note: " + note + "\n";
  }
  return out;
}

std::string render_markdown(const std::vector<LectureTable>& tables, const GpuColumns& gpu) {
  (void)gpu;  // each table that uses the GPU says so in its notes
  std::string out;
  for (const LectureTable& t : tables) {
    if (!out.empty()) out += "\n";
    out += fmt::format("**{}** (`{}`)  \nSource: {}\n\n", markdown_cell(t.title), t.name,
                       markdown_cell(t.source));
    const auto cols = layout(t);
    std::string header = "|", rule = "|";
    for (const auto& c : cols) {
      header += " " + markdown_cell(c.header) + " |";
      rule += c.numeric ? " ---: |" : " :--- |";
    }
    out += header + "\n" + rule + "\n";
    for (const auto& row : t.rows) {
      std::string line = "|";
      for (const auto& c : cols) line += " " + markdown_cell(c.cell(row)) + " |";
      out += line + "\n";
    }
    if (!t.notes.empty()) out += "\n";
    for (const auto& note : t.notes) out += "- " + markdown_cell(note) + "\n";
  }
  return out;
}

nlohmann::json tables_json(const std::vector<LectureTable>& tables, const GpuColumns& gpu) {
  using nlohmann::json;
  json doc;
  doc["format"] = "convlab-tables";
  doc["version"] = kTablesJsonVersion;
  if (gpu.gpu) {
    doc["gpu"] = {{"name", gpu.gpu->name},
                  {"copy_bytes_per_s", gpu.gpu->bytes_per_s},
                  {"fma_flops_per_s", gpu.gpu->flops_per_s}};
  } else {
    doc["gpu"] = nullptr;
    doc["gpu_absent_reason"] = gpu.absent_reason;
  }
  Tally n = tally(tables);
  doc["summary"] = {{"agrees", n.by_verdict[Verdict::agrees]},
                    {"rounding", n.by_verdict[Verdict::rounding]},
                    {"error", n.by_verdict[Verdict::error]},
                    {"exact_only", n.by_verdict[Verdict::exact_only]},
                    {"published_only", n.by_verdict[Verdict::published_only]}};
  json list = json::array();
  for (const LectureTable& t : tables) {
    json rows = json::array();
    for (const TableRow& r : t.rows) {
      json values = json::array();
      for (std::size_t j = 0; j < r.values.size(); ++j) {
        const Value& v = r.values[j];
        json value = {{"header", t.value_headers.at(j)},
                      {"verdict", verdict_name(v.verdict)},
                      {"unit", v.unit},
                      {"reason", v.reason}};
        value["published"] = v.published ? json{{"text", v.published->text},
                                                {"value", v.published->value},
                                                {"tolerance", v.published->tolerance}}
                                         : json(nullptr);
        value["exact"] = v.exact ? json(*v.exact) : json(nullptr);
        value["exact_text"] = v.exact ? json(v.exact_text()) : json(nullptr);
        values.push_back(std::move(value));
      }
      rows.push_back({{"keys", r.keys}, {"values", std::move(values)}});
    }
    list.push_back({{"name", t.name},
                    {"title", t.title},
                    {"source", t.source},
                    {"key_headers", t.key_headers},
                    {"value_headers", t.value_headers},
                    {"rows", std::move(rows)},
                    {"notes", t.notes}});
  }
  doc["tables"] = std::move(list);
  return doc;
}

}  // namespace convlab::analysis
