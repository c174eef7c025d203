#include "commands.hpp"

#include <unistd.h>

#include <cstdlib>
#include <system_error>

namespace convlab::grader {

std::filesystem::path source_dir() {
  if (const char* home = std::getenv("CONVLAB_HOME"); home != nullptr && *home != '\0') {
    return home;
  }
  return CONVLAB_SOURCE_DIR;
}

std::filesystem::path bin_dir() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::filesystem::current_path();
  return self.parent_path();
}

}  // namespace convlab::grader
