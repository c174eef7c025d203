/// @file kernel_source.hpp
/// @brief Which lab 07 kernel a tuning belongs to: the text of a register_tiling_kernel.cuh,
///        where it came from (the student's labs/ or the reference solutions/) and its hash.
///
/// The autotuner records the kernel it tuned in the tuning file; a launcher uses a tuning file
/// only when the hash is that of its own kernel source, so the lab never runs a configuration
/// tuned on someone else's kernel (or on an older version of its own). Pure C++, no CUDA.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace convlab::lab07 {

/// The kernel template's file name, in labs/07-register-tiling/ and solutions/07-register-tiling/.
inline constexpr const char* kKernelFileName = "register_tiling_kernel.cuh";

/// Suffix of the copy of the kernel source the build puts beside a lab 07 executable
/// (`build/bin/lab07.kernel.cuh`): a grader's sandbox shows a lab its executable and that copy,
/// never the source tree.
inline constexpr const char* kKernelCopySuffix = ".kernel.cuh";

/// Suffix of the folder of cubins the build compiled ahead from that copy
/// (`build/bin/lab07.jit-cache/`, convlab/autotune/precompile.hpp), read-only to the launcher.
inline constexpr const char* kPrecompiledSuffix = ".jit-cache";

/// 64-bit FNV-1a of `s` (cache keys, kernel hashes).
std::uint64_t fnv1a(const std::string& s, std::uint64_t h = 1469598103934665603ull);

/// A kernel source, read.
struct KernelSource {
  std::string origin;          ///< "labs", "solutions", or "file" (a --kernel given by path)
  std::filesystem::path path;  ///< the file it was read from
  std::string text;            ///< its contents
  std::string hash;            ///< fnv1a(text) as 16 hex digits
};

/// What a tuning file records of the kernel it tuned: origin, path and hash (no text).
struct KernelSourceId {
  std::string origin;
  std::string path;
  std::string hash;
};

/// Reads `path`. @throws std::runtime_error naming the file when it cannot be read.
KernelSource read_kernel_source(const std::filesystem::path& path, const std::string& origin);

/// The id of a kernel source, for a tuning file.
KernelSourceId id_of(const KernelSource& k);

/// {"origin": ..., "path": ..., "hash": ...}.
nlohmann::json to_json(const KernelSourceId& id);

/// "labs/07-register-tiling/register_tiling_kernel.cuh (labs, hash 1f2e...)".
std::string describe(const KernelSourceId& id);

/// Steps of the kernel source still marked unwritten (`constexpr bool kStepNWritten = false;`),
/// in increasing order: a student's kernel with steps 2–4 unwritten cannot be tuned, and the
/// launcher runs no configuration that needs one.
std::vector<int> unwritten_steps(const std::string& kernel_text);

}  // namespace convlab::lab07
