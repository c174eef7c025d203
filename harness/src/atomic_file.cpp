#include "convlab/atomic_file.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace convlab {
namespace fs = std::filesystem;

void write_file_atomically(const fs::path& path, std::string_view content) {
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::is_directory(dir)) {
    throw std::runtime_error(fmt::format("cannot write {}: no folder {}", path.string(), dir.string()));
  }
  // Same folder, so the rename stays within one file system (rename(2) is atomic there).
  const fs::path tmp = dir / fmt::format(".{}.tmp.{}", path.filename().string(), getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      const std::string why = std::strerror(errno);
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), why));
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), ec.message()));
  }
}

std::string read_whole_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", path.string()));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace convlab
