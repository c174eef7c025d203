#include "system/tool_paths.hpp"

#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <system_error>

namespace convlab::grader {
namespace fs = std::filesystem;

namespace {

bool is_executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

}  // namespace

fs::path source_dir() {
  if (const char* home = std::getenv("CONVLAB_HOME"); home != nullptr && *home != '\0') {
    return home;
  }
  return CONVLAB_SOURCE_DIR;
}

fs::path bin_dir() {
  std::error_code ec;
  auto self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return fs::current_path();
  return self.parent_path();
}

std::optional<fs::path> find_tool(const std::string& name) {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (!dir.empty() && is_executable(fs::path(dir) / name)) return fs::path(dir) / name;
    }
  }
  for (const fs::path& dir : {fs::path(CONVLAB_CUDA_BIN_DIR), fs::path("/usr/local/cuda/bin")}) {
    if (!dir.empty() && is_executable(dir / name)) return dir / name;
  }
  return std::nullopt;
}

std::optional<fs::path> find_gnuplot() {
  if (const char* g = std::getenv("GNUPLOT"); g != nullptr && *g != '\0') {
    return is_executable(g) ? std::optional<fs::path>(g) : std::nullopt;
  }
  return find_tool("gnuplot");
}

fs::path cmake_program() {
  const fs::path configured = CONVLAB_CMAKE_COMMAND;
  if (is_executable(configured)) return configured;
  return find_tool("cmake").value_or(fs::path("cmake"));
}

std::optional<fs::path> cuda_compiler() {
  const fs::path configured = CONVLAB_CUDA_COMPILER;
  if (!configured.empty() && is_executable(configured)) return configured;
  return find_tool("nvcc");
}

}  // namespace convlab::grader
