#include "docgen/docs_content.hpp"

#include "docgen/figures.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>

#include "convlab/contained_paths.hpp"
#include "convlab/json_file.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/limits.hpp"
#include "convlab/markdown.hpp"

namespace convlab::grader::docs {

namespace fs = std::filesystem;

namespace {

/// What `grader tables --no-gpu` says about the missing GPU columns (tables_command.cpp).
constexpr const char* kNoGpuReason = "left out with --no-gpu";

std::optional<std::string> read_text(const fs::path& p) {
  std::error_code ec;
  if (!fs::exists(p, ec)) return std::nullopt;
  try {
    return read_file(p, kMaxTextFileBytes);  // a results folder copied from elsewhere: bounded, no FIFO
  } catch (const LoadError&) {
    return std::nullopt;
  }
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

/// Subfolders of `dir` whose names start with `prefix`, sorted by name.
std::vector<fs::path> subfolders(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory(ec) && starts_with(e.path().filename().string(), prefix)) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string file_date(const fs::path& p) {
  std::error_code ec;
  const auto t = fs::last_write_time(p, ec);
  if (ec) return "";
  const auto sys = std::chrono::time_point_cast<std::chrono::system_clock::duration>(
      t - fs::file_time_type::clock::now() + std::chrono::system_clock::now());
  const std::time_t tt = std::chrono::system_clock::to_time_t(sys);
  std::tm tm{};
  localtime_r(&tt, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

/// The command that writes a picture or a results file, for the "not produced yet" sentences.
std::string producing_command(const std::string& source) {
  return source == "tune" ? "build/bin/grader tune" : "build/bin/grader bench";
}

std::string own_results_folder(const std::string& source) {
  return source == "tune" ? "build/tuning/lab07-<gpu>/" : "build/benchmarks/<gpu>/";
}

}  // namespace

std::string results_gpu_name(const fs::path& folder) {
  if (const auto text = read_text(folder / "bench.json")) {
    try {
      const auto j = parse_json(*text, (folder / "bench.json").string());
      for (const char* key : {"gpu", "device"}) {
        if (!j.contains(key)) continue;
        const auto& v = j.at(key);
        if (v.is_string() && !v.get<std::string>().empty()) return v.get<std::string>();
        if (v.is_object() && v.contains("name") && v.at("name").is_string()) return v.at("name").get<std::string>();
      }
    } catch (const std::exception&) {
      // not JSON after all (or nested past any bench.json): try the Markdown
    }
  }
  for (const char* md : {"bench.md", "table.md"}) {
    const auto text = read_text(folder / md);
    if (!text) continue;
    std::istringstream in(*text);
    std::string line;
    while (std::getline(in, line)) {
      if (!starts_with(line, "# ")) continue;
      const auto on = line.rfind(" on ");
      if (on == std::string::npos) break;
      std::string name = line.substr(on + 4);
      for (const char* tail : {" (", " — ", " - "}) {  // "NVIDIA H200 (date)", "NVIDIA H200 — date"
        if (const auto cut = name.find(tail); cut != std::string::npos) name.resize(cut);
      }
      while (!name.empty() && (name.back() == ' ' || name.back() == '\r' || name.back() == '.')) name.pop_back();
      if (!name.empty()) return name;
      break;
    }
  }
  return folder.filename().string();
}

std::string results_date(const fs::path& folder) {
  for (const char* md : {"bench.md", "table.md"}) {
    const auto text = read_text(folder / md);
    if (!text) continue;
    const std::string first = text->substr(0, text->find('\n'));
    // "# ... — 2026-11-22" or "# ... (2026-11-21)": the first YYYY-MM-DD of the heading.
    for (std::size_t i = 0; i + 10 <= first.size(); ++i) {
      const std::string d = first.substr(i, 10);
      if (std::isdigit(static_cast<unsigned char>(d[0])) && d[4] == '-' && d[7] == '-' &&
          std::all_of(d.begin(), d.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '-'; })) {
        return d;
      }
    }
  }
  return "";
}

std::optional<FoundFigure> find_figure(const fs::path& root, const std::string& source, const std::string& file,
                                       FigurePolicy policy) {
  std::error_code ec;
  if (policy == FigurePolicy::own_first) {
    // Every build folder of the tree (build/, build-cpu/, ...): the newest picture wins.
    std::optional<FoundFigure> best;
    fs::file_time_type best_time{};
    for (const fs::path& build : subfolders(root, "build")) {
      const std::vector<fs::path> folders = source == "tune" ? subfolders(build / "tuning", "lab07-")
                                                             : subfolders(build / "benchmarks", "");
      for (const fs::path& folder : folders) {
        const fs::path p = folder / file;
        if (!fs::is_regular_file(p, ec)) continue;
        try {
          (void)resolve_inside(root, p);
        } catch (const PathError&) {
          continue;  // a build folder linked from elsewhere: not the repository's, not searched
        }
        const auto t = fs::last_write_time(p, ec);
        if (best && t <= best_time) continue;
        best_time = t;
        best = FoundFigure{p, fs::relative(folder, root, ec), results_gpu_name(folder), true, file_date(p)};
      }
    }
    if (best) return best;
  }
  const fs::path committed = source == "tune" ? root / "results" / "tune" : root / "results" / "bench";
  for (const fs::path& folder : subfolders(committed, "")) {
    const fs::path p = folder / file;
    if (fs::is_regular_file(p, ec)) {
      (void)resolve_inside(root, p);  // a committed picture that is a link out of the repository is named
      return FoundFigure{p, fs::relative(folder, root, ec), results_gpu_name(folder), false, ""};
    }
  }
  return std::nullopt;
}

std::string figure_missing_sentence(const std::string& source, const std::string& file, const std::string& caption) {
  return fmt::format("*{}*. Not produced yet on this machine: run `{}` on a GPU (it writes `{}{}`; "
                     "the `slides` target then shows it here).",
                     caption, producing_command(source), own_results_folder(source), file);
}

std::string tables_markdown(const std::vector<std::string>& names) {
  const std::vector<std::string> known = analysis::lecture_table_names();
  for (const auto& n : names) {
    if (std::find(known.begin(), known.end(), n) == known.end()) {
      throw BadMarker(fmt::format("no table named '{}'; the tables are: {}", n, join(known, ", ")));
    }
  }
  analysis::GpuColumns gpu;
  gpu.absent_reason = kNoGpuReason;
  const std::vector<analysis::LectureTable> all = analysis::lecture_tables(gpu);
  std::vector<analysis::LectureTable> chosen;
  for (const auto& n : names) {
    chosen.push_back(*std::find_if(all.begin(), all.end(), [&](const analysis::LectureTable& t) { return t.name == n; }));
  }
  return analysis::render_markdown(chosen, gpu);
}

std::string slide_tables_markdown(const std::vector<std::string>& names) {
  const std::vector<std::string> known = analysis::lecture_table_names();
  for (const auto& n : names) {
    if (std::find(known.begin(), known.end(), n) == known.end()) {
      throw BadMarker(fmt::format("no table named '{}'; the tables are: {}", n, join(known, ", ")));
    }
  }
  analysis::GpuColumns gpu;
  gpu.absent_reason = kNoGpuReason;
  const std::vector<analysis::LectureTable> all = analysis::lecture_tables(gpu);
  // The Markdown of `grader tables`, one table at a time, with the parts an audience does not
  // need moved out: the id line into a comment, the source under the table, no GPU-absent note.
  const std::string absent_note = fmt::format("- no \"this GPU\" values: {}", kNoGpuReason);
  std::string out;
  for (const auto& n : names) {
    const auto t = std::find_if(all.begin(), all.end(), [&](const analysis::LectureTable& x) { return x.name == n; });
    // A flag's reason is a sentence: in the table it would make a row several lines tall, so
    // the row says "note N" and the reason, once, goes under the table.
    analysis::LectureTable slide = *t;
    std::vector<std::string> reasons;
    for (analysis::TableRow& r : slide.rows) {
      for (analysis::Value& v : r.values) {
        if (!v.flagged()) continue;
        auto at = std::find(reasons.begin(), reasons.end(), v.reason);
        if (at == reasons.end()) at = reasons.insert(reasons.end(), v.reason);
        v.reason = fmt::format("note {}", at - reasons.begin() + 1);
      }
    }
    for (std::size_t i = 0; i < reasons.size(); ++i) slide.notes.push_back(fmt::format("⚑ note {}: {}", i + 1, reasons[i]));
    const std::string md = analysis::render_markdown({slide}, gpu);
    std::istringstream in(md);
    std::string line, title, source, body;
    while (std::getline(in, line)) {
      if (title.empty() && starts_with(line, "**")) {
        title = line.substr(0, line.rfind("** (`") + 2);
      } else if (source.empty() && starts_with(line, "Source: ")) {
        source = line;
      } else if (line == absent_note) {
        continue;
      } else {
        body += line + "\n";
      }
    }
    while (!body.empty() && body.front() == '\n') body.erase(body.begin());
    while (body.size() > 1 && body[body.size() - 2] == '\n') body.pop_back();
    if (!out.empty()) out += "\n";
    // (No "--" inside the comment: HTML does not allow it there.)
    out += fmt::format("<!-- table {0} of the analysis model; grader tables prints it, with this GPU's column -->"
                       "\n\n{1}\n\n{2}\n{3}\n",
                       n, title, body, source);
  }
  return out;
}

std::string errata_markdown(const std::vector<analysis::LectureTable>& tables, const std::vector<std::string>& args) {
  bool want_rounding = false, want_error = false;
  std::vector<std::string> names;
  const std::vector<std::string> known = analysis::lecture_table_names();
  for (const auto& a : args) {
    if (a == "rounding") {
      want_rounding = true;
    } else if (a == "error") {
      want_error = true;
    } else if (std::find(known.begin(), known.end(), a) != known.end()) {
      names.push_back(a);
    } else {
      throw BadMarker(fmt::format("'{}' is neither 'rounding', 'error' nor a table name ({})", a, join(known, ", ")));
    }
  }
  if (!want_rounding && !want_error) want_rounding = want_error = true;

  std::string rows;
  std::vector<std::string> listed;  // the tables with a flagged value, for the comment
  int count = 0;
  for (const analysis::LectureTable& t : tables) {
    if (!names.empty() && std::find(names.begin(), names.end(), t.name) == names.end()) continue;
    for (const analysis::TableRow& r : t.rows) {
      for (std::size_t j = 0; j < r.values.size(); ++j) {
        const analysis::Value& v = r.values[j];
        if (!v.flagged()) continue;
        const bool rounding = v.verdict == analysis::Verdict::rounding;
        if ((rounding && !want_rounding) || (!rounding && !want_error)) continue;
        // "[lecture-tiling] (ECE408 Lecture 9, ...): 'the slide's title'" -> "[lecture-tiling] (ECE408 Lecture 9, ...)"
        const auto paren = t.source.find("): ");
        const std::string source =
            paren != std::string::npos ? t.source.substr(0, paren + 1) : t.source.substr(0, t.source.find(": "));
        if (std::find(listed.begin(), listed.end(), t.name) == listed.end()) listed.push_back(t.name);
        rows += fmt::format("| {} | {} · {} | {} | {} | {}: {} |\n", markdown_cell(source), markdown_cell(join(r.keys, ", ")),
                            markdown_cell(t.value_headers.at(j)), markdown_cell(v.published ? v.published->text : "—"),
                            markdown_cell(v.exact_text()), analysis::verdict_name(v.verdict), markdown_cell(v.reason));
        ++count;
      }
    }
  }
  const std::string scope = names.empty() ? "the syllabus's tables" : fmt::format("`{}`", join(names, "`, `"));
  const std::string what = want_rounding && want_error ? "wrong or inconsistently rounded"
                           : want_rounding            ? "inconsistently rounded"
                                                      : "wrong";
  if (count == 0) return fmt::format("No published value in {} is {}.\n", scope, what);
  std::string out = fmt::format("<!-- errata of the analysis model, from the tables {}; grader tables shows them "
                                "with their flags -->\n\n",
                                join(listed, ", "));
  out += "| source | where | published | exact | why |\n| :--- | :--- | ---: | ---: | :--- |\n" + rows;
  out += fmt::format("\n{} published value{} {} {}, recomputed by the analysis model.\n", count,
                     count == 1 ? "" : "s", count == 1 ? "is" : "are", what);
  return out;
}

ContentGenerator::ContentGenerator(ContentOptions options) : options_(std::move(options)) {}

fs::path ContentGenerator::repo_path(const std::string& path) const {
  const fs::path p(path);
  if (p.is_absolute()) throw BadMarker(fmt::format("'{}' must be relative to the repository root", path));
  for (const auto& part : p) {
    if (part == "..") throw BadMarker(fmt::format("'{}' leaves the repository ('..')", path));
  }
  try {
    return resolve_inside(options_.root, options_.root / p);  // nor through a link
  } catch (const PathError& e) {
    throw BadMarker(e.what());
  }
}

std::string ContentGenerator::generate(const Marker& m, const fs::path& document) {
  switch (m.kind) {
    case MarkerKind::table: return table(m);
    case MarkerKind::include: return include(m);
    case MarkerKind::figure: return figure(m, document);
    case MarkerKind::code: return code(m);
    case MarkerKind::diagram: return diagram(m, document);
    case MarkerKind::errata: {
      if (!tables_) {
        analysis::GpuColumns gpu;
        gpu.absent_reason = kNoGpuReason;
        tables_ = analysis::lecture_tables(gpu);
      }
      return errata_markdown(*tables_, m.args);
    }
  }
  throw BadMarker("unknown kind");
}

std::string ContentGenerator::table(const Marker& m) {
  if (options_.edition == Edition::student && !m.parts.empty()) {
    // "answers lab 03": the lab's questions are worked from the analysis model's output.
    const std::string lab = m.parts[0].substr(std::string("answers ").size());
    return fmt::format("*This table answers {}'s questions, which you work out from `grader analyze`'s output: "
                       "it is in the instructor edition of the slides.*\n",
                       lab);
  }
  return slide_tables_markdown(m.args);
}

std::string ContentGenerator::diagram(const Marker& m, const fs::path& document) {
  const std::string& name = m.args.at(0);
  std::vector<figures::Diagram> all = figures::diagrams();
  const auto d = std::find_if(all.begin(), all.end(), [&](const figures::Diagram& x) { return x.name == name; });
  if (d == all.end()) {
    std::vector<std::string> names;
    for (const auto& x : all) names.push_back(x.name);
    throw BadMarker(fmt::format("no diagram named '{}'; the diagrams are: {}", name, join(names, ", ")));
  }
  const fs::path file = (options_.stage_dir ? *options_.stage_dir : options_.root / "slides") / "figures" / (name + ".svg");
  diagram_files_[file] = d->svg;
  std::error_code ec;
  const std::string link = fs::relative(file, fs::absolute(document).parent_path(), ec).generic_string();
  return fmt::format("<!-- drawn by grader figures from the code's sizes; grader docs redraws it -->\n\n"
                     "![{}]({})\n\n*{}.*\n",
                     name, link, d->caption);
}

std::string ContentGenerator::include(const Marker& m) {
  const fs::path p = repo_path(m.args.at(0));
  if (const auto text = read_text(p); text && fs::is_regular_file(p)) return *text;
  const std::string& rel = m.args.at(0);
  const bool bench = starts_with(rel, "results/bench/") || starts_with(rel, "build/benchmarks/");
  const bool tune = rel.find("07-register-tiling/results/") != std::string::npos || starts_with(rel, "build/tuning/");
  if (bench || tune) {
    return fmt::format("Not produced yet: `{}` does not exist. `{}` on a GPU writes it (into `{}`; a reference "
                       "run is committed under `{}`).\n",
                       rel, producing_command(bench ? "bench" : "tune"), own_results_folder(bench ? "bench" : "tune"),
                       bench ? "results/bench/<gpu>/" : "results/tune/<gpu>/");
  }
  return fmt::format("Not produced yet: `{}` does not exist.\n", rel);
}

std::string ContentGenerator::figure(const Marker& m, const fs::path& document) {
  const std::string& source = m.args.at(0);
  const std::string& file = m.args.at(1);
  if (file.find('/') != std::string::npos || file.empty() || file[0] == '.') {
    throw BadMarker(fmt::format("'{}' must be a plain file name (the folder is found for you)", file));
  }
  const std::string caption = m.parts.empty() || m.parts[0].empty() ? fs::path(file).stem().string() : m.parts[0];
  std::optional<FoundFigure> found;
  try {
    found = find_figure(options_.root, source, file, options_.figures);
  } catch (const PathError& e) {
    throw BadMarker(e.what());
  }
  if (!found) return figure_missing_sentence(source, file, caption) + "\n";

  std::error_code ec;
  std::string link;
  if (options_.stage_dir) {
    const std::string name = fmt::format("{}-{}-{}-{}", found->own ? "own" : "ref", source,
                                         found->folder.filename().string(), file);
    copies_[found->file] = *options_.stage_dir / "img" / name;
    link = "img/" + name;
  } else {
    link = fs::relative(found->file, fs::absolute(document).parent_path(), ec).generic_string();
  }
  const std::string alt = fs::path(file).stem().string();  // plain words: Marp reads keywords in alt text
  const std::string date = found->own ? found->date : results_date(options_.root / found->folder);
  const std::string where =
      found->own ? fmt::format("measured on {} by your own `grader {}` run, {}", found->gpu, source, found->date)
                 : fmt::format("measured on {}: the committed reference run{}", found->gpu,
                               date.empty() ? "" : fmt::format(" of {}", date));
  return fmt::format("<!-- picture of grader {} from {}/; {} on your GPU makes your own -->\n\n![{}]({})\n\n*{}* — {}.\n",
                     source, found->folder.generic_string(), producing_command(source), alt, link, caption, where);
}

std::string ContentGenerator::code(const Marker& m) {
  const std::string& rel = m.args.at(0);
  if (options_.edition == Edition::student && starts_with(rel, "solutions/")) {
    // What the student writes, not the reference: the stub's file, which says what to write.
    const std::string stub = "labs/" + rel.substr(std::string("solutions/").size());
    return fmt::format("*The reference code of this step is in the instructor edition of the slides. You write "
                       "it in `{}`: its comments say what the step does and what to write.*\n",
                       stub);
  }
  const fs::path p = repo_path(rel);
  const auto text = read_text(p);
  if (!text || !fs::is_regular_file(p)) throw BadMarker(fmt::format("no file '{}'", rel));
  std::vector<std::string> lines;
  {
    std::istringstream in(*text);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
  }
  const std::string& first_text = m.parts.at(0);
  const std::string& last_text = m.parts.at(1);
  std::size_t first = 0;
  while (first < lines.size() && lines[first].find(first_text) == std::string::npos) ++first;
  if (first == lines.size()) throw BadMarker(fmt::format("no line of '{}' holds '{}'", rel, first_text));
  std::size_t last = first;
  while (last < lines.size() && lines[last].find(last_text) == std::string::npos) ++last;
  if (last == lines.size()) {
    throw BadMarker(fmt::format("no line of '{}' at or after line {} holds '{}'", rel, first + 1, last_text));
  }
  // Remove the indentation the excerpt shares (preprocessor lines, often at column 0, do not
  // count; they lose what they have of it).
  std::size_t indent = std::string::npos;
  for (std::size_t i = first; i <= last; ++i) {
    const auto nb = lines[i].find_first_not_of(' ');
    if (nb != std::string::npos && lines[i][nb] != '#') indent = std::min(indent, nb);
  }
  if (indent == std::string::npos) indent = 0;
  const std::string ext = p.extension().string();
  const std::string lang = ext == ".cu" || ext == ".cuh" || ext == ".cpp" || ext == ".hpp" || ext == ".h" ? "cpp"
                           : ext == ".cmake" || p.filename() == "CMakeLists.txt"                         ? "cmake"
                           : ext == ".sh"                                                                ? "bash"
                                                                                                         : "";
  std::string out = fmt::format("```{}\n", lang);
  if (lang == "cpp") out += fmt::format("// {}\n", rel);
  else if (!lang.empty()) out += fmt::format("# {}\n", rel);
  for (std::size_t i = first; i <= last; ++i) {
    const std::size_t lead = std::min(indent, std::min(lines[i].size(), lines[i].find_first_not_of(' ')));
    out += lines[i].substr(lead) + "\n";
  }
  out += "```\n";
  return out;
}

}  // namespace convlab::grader::docs
