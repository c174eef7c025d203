#include "convlab/file_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace convlab {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

}  // namespace

InputFile::InputFile(const std::filesystem::path& path, std::uint64_t max_bytes) : path_(path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever; the
  // fstat below refuses it before anything is read.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) {
    const int err = errno;
    throw LoadError(fmt::format("{}: cannot open: {}", path.string(), std::strerror(err)));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    ::close(fd_);
    throw LoadError(fmt::format("{}: cannot stat: {}", path.string(), std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    const char* kind = kind_of(st.st_mode);
    throw LoadError(fmt::format("{}: is {}, not a file", path.string(), kind));
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
  if (size_ > max_bytes) {
    ::close(fd_);
    throw LoadError(fmt::format("{}: is {} bytes, above the limit of {} bytes", path.string(), size_, max_bytes));
  }
  // Back to blocking reads for a regular file (O_NONBLOCK has no effect on them, but be plain).
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t InputFile::read(void* buffer, std::size_t n) {
  std::size_t done = 0;
  auto* out = static_cast<char*>(buffer);
  while (done < n) {
    const ssize_t got = ::read(fd_, out + done, n - done);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      throw LoadError(fmt::format("{}: cannot read: {}", path_.string(), std::strerror(err)));
    }
    done += static_cast<std::size_t>(got);
  }
  return done;
}

std::string read_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
  InputFile f(path, max_bytes);
  std::string bytes(static_cast<std::size_t>(f.size()), '\0');
  bytes.resize(f.read(bytes.data(), bytes.size()));
  // A file that grew since it was opened: read no more than was promised.
  return bytes;
}

}  // namespace convlab
