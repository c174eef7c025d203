/// @file file_reader.hpp
/// @brief The one way a loader reads a file: regular files only (a FIFO would block the reader,
///        a folder reads as a stream error), never more than a stated size, and every error
///        naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace convlab {

/// A file a loader refuses: what() names the file, the field where there is one, and why.
/// Every loader's own error (NpyError, DatasetError, TuningError, ...) derives from it.
class LoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An open regular file of known size, read from the start.
class InputFile {
 public:
  /// Opens `path`, refusing anything but a regular file and a file above `max_bytes`.
  /// @throws LoadError "PATH: is a folder, not a file", "PATH: is N bytes, above the limit of M bytes", ...
  InputFile(const std::filesystem::path& path, std::uint64_t max_bytes);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  /// The file's size when it was opened.
  [[nodiscard]] std::uint64_t size() const { return size_; }
  /// The file, as given.
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// Reads up to `n` bytes; @returns how many were read (fewer only at the end of the file).
  /// @throws LoadError naming the file on a read error
  std::size_t read(void* buffer, std::size_t n);

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

/// The whole of a regular file of at most `max_bytes`. @throws LoadError naming the file.
std::string read_file(const std::filesystem::path& path, std::uint64_t max_bytes);

}  // namespace convlab
