#include "build/host_code_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "build/host_code_rules.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// One external symbol of `nm -P -g -p`: "name type [value size]".
struct Symbol {
  std::string name;
  char type = '?';
};

std::vector<Symbol> symbols_of(const std::string& nm_output) {
  std::vector<Symbol> out;
  for (const std::string& line : lines_of(nm_output)) {
    std::istringstream words(line);
    Symbol s;
    std::string type;
    if (!(words >> s.name >> type) || type.size() != 1 || s.name.back() == ':') continue;  // an archive member's header
    s.type = type[0];
    out.push_back(std::move(s));
  }
  return out;
}

void add(HostCodeReport& r, const fs::path& object, const std::string& symbol, const std::string& why) {
  const bool seen = std::any_of(r.findings.begin(), r.findings.end(), [&](const HostCodeFinding& f) {
    return f.object == object.filename().string() && f.symbol == symbol;
  });
  if (!seen) r.findings.push_back({object.filename().string(), symbol, why});
}

// `atexit` calls outside nvcc's registration function, and raw `syscall` instructions, from the
// disassembly with relocations (objdump -d -r).
void check_disassembly(HostCodeReport& r, const fs::path& object, const std::string& listing) {
  static const std::regex function(R"(^[0-9a-f]+ <([^>]+)>:$)");
  static const std::regex exit_hook(R"(R_X86_64_\w+\s+(atexit|on_exit|at_quick_exit)\b)");
  static const std::regex raw_call(R"(\t(syscall|sysenter|int\s+\$0x80)\b)");
  std::string current;
  std::smatch m;
  for (const std::string& line : lines_of(listing)) {
    if (std::regex_match(line, m, function)) {
      current = m[1];
    } else if (std::regex_search(line, m, exit_hook) && !is_nvcc_registration(current)) {
      add(r, object, m[1], "exit hooks: code that runs after the harness has reported");
    } else if (std::regex_search(line, raw_call)) {
      add(r, object, "a raw system call instruction", "raw system calls");
    }
  }
}

}  // namespace

std::string HostCodeReport::describe(std::size_t max_lines) const {
  std::string out;
  if (!error.empty()) out += error + "\n";
  for (std::size_t i = 0; i < findings.size() && i < max_lines; ++i) {
    out += fmt::format("{} uses {} ({})\n", findings[i].object, findings[i].symbol, findings[i].why);
  }
  if (findings.size() > max_lines) out += fmt::format("... and {} more\n", findings.size() - max_lines);
  return out;
}

std::vector<fs::path> lab_objects(const fs::path& build_dir, const std::string& target) {
  std::vector<fs::path> objects;
  const fs::path dir = build_dir / "CMakeFiles" / (target + ".dir");
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::none, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path& p = it->path();
    if (!it->is_regular_file(ec) || p.extension() != ".o") continue;
    objects.push_back(p);
  }
  std::sort(objects.begin(), objects.end());
  return objects;
}

std::set<std::string> harness_symbols(const fs::path& harness_dir, const ToolRunner& run) {
  std::set<std::string> defined;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(harness_dir, fs::directory_options::none, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() != ".a") continue;
    std::string error;
    for (const Symbol& s : symbols_of(run({"nm", "-P", "-g", "-p", "--defined-only", it->path().string()}, &error))) {
      defined.insert(s.name);
    }
  }
  return defined;
}

HostCodeReport check_host_code(const std::vector<fs::path>& objects, const std::set<std::string>& harness_defines,
                               const ToolRunner& run) {
  HostCodeReport r;
  for (const fs::path& object : objects) {
    std::string error;
    const std::vector<Symbol> raw = symbols_of(run({"nm", "-P", "-g", "-p", object.string()}, &error));
    // Demangled by c++filt, a name an argument and a line: never by the grader's own process,
    // since the names are the submission's.
    std::vector<std::string> filt = {"c++filt"};
    for (const Symbol& s : raw) filt.push_back(s.name);
    const std::vector<std::string> readable = raw.empty() ? std::vector<std::string>{} : lines_of(run(filt, &error));
    const std::string listing = run({"objdump", "-d", "-r", "--no-show-raw-insn", object.string()}, &error);
    if (!error.empty() || raw.size() != readable.size()) {
      r.error = fmt::format("the compiled {} could not be read ({})", object.filename().string(),
                            error.empty() ? "c++filt gave another number of names" : error);
      return r;
    }
    for (std::size_t i = 0; i < raw.size(); ++i) {
      const Symbol& s = raw[i];
      const std::string& shown = readable[i];
      if (s.type == 'U' || s.type == 'w' || s.type == 'v') {
        if (s.name == "atexit") continue;  // judged by its caller, below
        if (auto why = refused_call(s.name, shown)) add(r, object, shown, *why);
      } else {
        const bool strong = std::string("TDBRC").find(s.type) != std::string::npos;
        const bool function = std::string("TWi").find(s.type) != std::string::npos;
        if (auto why = refused_definition(s.name, shown, strong, function, harness_defines.count(s.name) > 0)) {
          add(r, object, "a definition of " + shown, *why);
        }
      }
    }
    check_disassembly(r, object, listing);
  }
  return r;
}

}  // namespace convlab::grader
