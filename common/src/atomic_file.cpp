#include "convlab/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace convlab {
namespace fs = std::filesystem;

namespace {

fs::path folder_of(const fs::path& path) { return path.has_parent_path() ? path.parent_path() : fs::path("."); }

/// A new, empty file in `dir` named ".STEM.<16 random hex digits>.tmp", opened for writing.
/// O_EXCL|O_NOFOLLOW: whatever already has the name (a planted symlink, a file) makes open fail
/// and another name is drawn; the name comes from the OS's entropy, so it cannot be planted in
/// advance. @returns the descriptor, or -1 with errno set.
int create_temporary(const fs::path& dir, const std::string& stem, fs::path& tmp) {
  std::random_device entropy;
  for (int attempt = 0; attempt < 64; ++attempt) {
    const unsigned long long r = (static_cast<unsigned long long>(entropy()) << 32) ^ entropy();
    tmp = dir / fmt::format(".{}.{:016x}.tmp", stem, r);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;  // errno is EEXIST
}

std::string errno_text(int e) { return std::strerror(e); }

}  // namespace

void write_file_atomically(const fs::path& path, std::string_view content, Durability durability) {
  const fs::path dir = folder_of(path);
  auto fail = [&](const std::string& step, int e) {
    throw std::runtime_error(fmt::format("cannot write {}: {}: {}", path.string(), step, errno_text(e)));
  };
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw std::runtime_error(fmt::format("cannot write {}: no folder {}", path.string(), dir.string()));
  }
  // Same folder, so the rename stays within one file system (rename(2) is atomic there).
  fs::path tmp;
  const int fd = create_temporary(dir, path.filename().string(), tmp);
  if (fd < 0) {
    const int e = errno;
    fail(fmt::format("cannot create a file in {}", dir.string()), e);
  }
  auto fail_removing = [&](const std::string& step, int e) {
    ::close(fd);  // a no-op error when already closed
    ::unlink(tmp.c_str());
    fail(step, e);
  };
  for (std::size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      fail_removing("writing failed", e);
    }
    done += static_cast<std::size_t>(n);
  }
  if (durability == Durability::durable && ::fsync(fd) != 0) {
    const int e = errno;
    fail_removing("fsync failed", e);
  }
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    fail("closing failed", e);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    fail("cannot rename the temporary over it", e);
  }
  if (durability == Durability::scratch) return;
  // The rename is durable once the folder's entry is on disk. A folder that cannot be opened or
  // a file system without folder fsync (EINVAL) still has the new file in place.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    const int r = ::fsync(dfd);
    const int e = errno;
    ::close(dfd);
    if (r != 0 && e != EINVAL && e != EROFS) fail(fmt::format("fsync of the folder {} failed", dir.string()), e);
  }
}

namespace {

/// Creates and removes one temporary in `dir`; "" when that worked, else the reason.
std::string probe_folder(const fs::path& dir) {
  fs::path tmp;
  const int fd = create_temporary(dir, "convlab-write-check", tmp);
  if (fd < 0) {
    const int e = errno;
    return errno_text(e);
  }
  ::close(fd);
  ::unlink(tmp.c_str());
  return "";
}

}  // namespace

void check_writable(const fs::path& path) {
  const fs::path dir = folder_of(path);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw std::runtime_error(fmt::format("cannot write {}: no folder {}", path.string(), dir.string()));
  }
  if (fs::is_directory(path, ec)) throw std::runtime_error(fmt::format("cannot write {}: it is a folder", path.string()));
  if (const std::string why = probe_folder(dir); !why.empty()) {
    throw std::runtime_error(fmt::format("cannot write {}: cannot create a file in {}: {}", path.string(),
                                         dir.string(), why));
  }
}

void check_writable_folder(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot write into {}: {}", dir.string(), ec.message()));
  if (!fs::is_directory(dir, ec)) throw std::runtime_error(fmt::format("cannot write into {}: not a folder", dir.string()));
  if (const std::string why = probe_folder(dir); !why.empty()) {
    throw std::runtime_error(fmt::format("cannot write into {}: {}", dir.string(), why));
  }
}

}  // namespace convlab
