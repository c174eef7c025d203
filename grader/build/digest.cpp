#include "build/digest.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <sstream>
#include <stdexcept>

#include "convlab/atomic_file.hpp"
#include "system/subprocess.hpp"
#include "system/tool_paths.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::vector<std::string> sha256_of_files(const std::vector<fs::path>& files) {
  if (files.empty()) return {};
  const auto tool = find_tool("sha256sum");
  if (!tool) throw std::runtime_error("sha256sum (coreutils) is not in PATH: the compile store cannot name its inputs");
  std::vector<std::string> argv = {tool->string(), "-b", "--"};
  for (const fs::path& f : files) argv.push_back(f.string());
  const ProcessResult p = run_process(argv, 300s);
  if (p.exit_code != 0) throw std::runtime_error(fmt::format("sha256sum {}: {}", p.describe(), last_lines(p.output, 3)));
  // One line per file, in order: "HASH *NAME", with a leading '\' when the name had to be escaped.
  std::vector<std::string> digests;
  std::istringstream lines(p.output);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t at = !line.empty() && line[0] == '\\' ? 1 : 0;
    const std::string hex = line.substr(at, 64);
    const bool ok = hex.size() == 64 && std::all_of(hex.begin(), hex.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0 || (c >= 'a' && c <= 'f');
    });
    if (!ok) throw std::runtime_error(fmt::format("sha256sum printed a line that is no digest: {}", line));
    digests.push_back(hex);
  }
  if (digests.size() != files.size()) {
    throw std::runtime_error(fmt::format("sha256sum gave {} digests for {} files", digests.size(), files.size()));
  }
  return digests;
}

std::string sha256_of_bytes(const std::string& bytes, const fs::path& scratch_dir) {
  static std::atomic<unsigned> counter{0};
  fs::create_directories(scratch_dir);
  const fs::path file = scratch_dir / fmt::format("digest-{}-{}", getpid(), counter++);
  write_file_atomically(file, bytes);
  try {
    std::string digest = sha256_of_files({file}).front();
    fs::remove(file);
    return digest;
  } catch (...) {
    std::error_code ec;
    fs::remove(file, ec);
    throw;
  }
}

}  // namespace convlab::grader
