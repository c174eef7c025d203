/// @file ptxas_report.hpp
/// @brief ptxas's resource report (registers, stack, spills, shared memory) read from its log,
///        for the autotuner's spill check.
#pragma once

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>


namespace convlab::lab07 {

// ---------------------------------------------------------------------------------------------
// ptxas's resource report ("-Xptxas -v"), for the spill check.

/// What ptxas reported for one function.
struct ResourceUsage {
  bool found = false;     ///< the function appeared in the report
  int registers = 0;
  int stack_bytes = 0;    ///< stack frame (local memory), 0 for a kernel that keeps all in registers
  int spill_stores = 0;   ///< bytes
  int spill_loads = 0;    ///< bytes
  int shared_bytes = 0;   ///< static shared memory
  [[nodiscard]] bool spills() const { return spill_stores > 0 || spill_loads > 0; }
};

/// Reads the entry of `function` (its mangled name) from a ptxas -v log, e.g.
///   ptxas info    : Function properties for _Z3fooPf
///   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
///   ptxas info    : Used 30 registers, used 0 barriers, 4096 bytes smem
/// An empty `function` takes the first function in the log.
inline ResourceUsage parse_ptxas_report(const std::string& log, const std::string& function) {
  ResourceUsage u;
  std::vector<std::string> lines;
  {
    std::string line;
    for (const char ch : log) {
      if (ch == '\n') { lines.push_back(line); line.clear(); }
      else if (ch != '\r') line += ch;
    }
    if (!line.empty()) lines.push_back(line);
  }
  static const std::regex props(R"(Function properties for (\S+))");
  static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  static const std::regex compiling(R"(Compiling entry function '([^']+)')");
  std::string target = function;
  bool in_function = false;
  for (const std::string& line : lines) {
    std::smatch m;
    if (std::regex_search(line, m, props) || std::regex_search(line, m, compiling)) {
      if (target.empty()) target = m[1].str();
      const bool match = m[1].str() == target;
      if (in_function && !match) break;  // the next function begins
      in_function = match;
      if (match) u.found = true;
      continue;
    }
    if (!in_function) continue;
    if (std::regex_search(line, m, frame)) {
      u.stack_bytes = std::stoi(m[1].str());
      u.spill_stores = std::stoi(m[2].str());
      u.spill_loads = std::stoi(m[3].str());
    } else if (std::regex_search(line, m, used)) {
      u.registers = std::stoi(m[1].str());
      if (std::regex_search(line, m, smem)) u.shared_bytes = std::stoi(m[1].str());
    }
  }
  return u;
}

}  // namespace convlab::lab07
