#include "convlab/autotune/kernel_source.hpp"

#include "convlab/file_reader.hpp"
#include "convlab/limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace convlab::lab07 {

std::uint64_t fnv1a(const std::string& s, std::uint64_t h) {
  for (const unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

KernelSource read_kernel_source(const std::filesystem::path& path, const std::string& origin) {
  KernelSource k;
  try {
    k.text = read_file(path, kMaxTextFileBytes);
  } catch (const LoadError& e) {
    throw std::runtime_error(fmt::format("cannot read the lab 07 kernel source: {}", e.what()));
  }
  k.origin = origin;
  k.path = path;
  k.hash = fmt::format("{:016x}", fnv1a(k.text));
  return k;
}

KernelSourceId id_of(const KernelSource& k) { return {k.origin, k.path.string(), k.hash}; }

nlohmann::json to_json(const KernelSourceId& id) {
  return {{"origin", id.origin}, {"path", id.path}, {"hash", id.hash}};
}

std::string describe(const KernelSourceId& id) {
  return fmt::format("{} ({}, hash {})", id.path, id.origin, id.hash);
}

std::vector<int> unwritten_steps(const std::string& kernel_text) {
  std::vector<int> steps;
  const std::regex flag(R"(constexpr\s+bool\s+kStep(\d+)Written\s*=\s*false\s*;)");
  for (auto it = std::sregex_iterator(kernel_text.begin(), kernel_text.end(), flag); it != std::sregex_iterator(); ++it) {
    steps.push_back(std::stoi((*it)[1]));
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

}  // namespace convlab::lab07
