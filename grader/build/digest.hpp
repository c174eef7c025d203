// SHA-256 digests of what a compile reads, for the keys of the shared compile store
// (store/compile_store.hpp). A key names a compile's inputs exactly, and a student controls some
// of them, so the digest must resist a crafted collision: SHA-256, computed by coreutils'
// `sha256sum` (present on every Linux the grader runs on, the GPU nodes included) rather than a
// hash of the grader's own making or a new library the lab-only build would then need.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace convlab::grader {

/// The SHA-256 of each file, in the order given, as 64 lower-case hex digits.
/// @throws std::runtime_error when sha256sum is missing or cannot read a file
std::vector<std::string> sha256_of_files(const std::vector<std::filesystem::path>& files);

/// The SHA-256 of `bytes`, written first to a file of its own in `scratch_dir` (a folder of the
/// grader's that no sandbox shows). @throws std::runtime_error as sha256_of_files
std::string sha256_of_bytes(const std::string& bytes, const std::filesystem::path& scratch_dir);

}  // namespace convlab::grader
