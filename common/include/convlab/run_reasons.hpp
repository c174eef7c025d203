/// @file run_reasons.hpp
/// @brief Why a run failed or a lab lost points: short, fixed tags. The lab runner writes the
///        ones it detects into its JSON report (`"reasons": [...]` of each result); the grader
///        reads those tags (never the runner's prose), adds its own, and reports, tests and
///        expect.json files use the same words.
///
/// A result carries every tag that applies; the message next to it gives the details.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "convlab/compare.hpp"

namespace convlab::reason {

// Correctness: what the output comparison found (compare.hpp's kinds, named the same way).
inline constexpr const char* kNotImplemented = "not implemented";   ///< a stub's function (runner)
inline constexpr const char* kUnwritten = "unwritten";              ///< outputs still NaN poison
inline constexpr const char* kNotFinite = "not finite";             ///< NaN or inf computed
inline constexpr const char* kOutOfTolerance = "out of tolerance";  ///< wrong values
inline constexpr const char* kWrongShape = "wrong shape";           ///< output of the wrong size
inline constexpr const char* kNoOutput = "no output";               ///< the run wrote no output file

// Memory and process: what the runner or the operating system reported.
inline constexpr const char* kOutOfBoundsWrite = "out-of-bounds write";  ///< guard band hit (runner)
inline constexpr const char* kWroteInput = "wrote into input";           ///< input changed (runner)
inline constexpr const char* kIllegalAddress = "illegal address";        ///< cudaErrorIllegalAddress (runner)
inline constexpr const char* kCrashed = "crashed";                       ///< the process died
inline constexpr const char* kTimedOut = "timed out";                    ///< a hang, killed
inline constexpr const char* kCudaError = "CUDA error";                  ///< any other CUDA error (runner)
inline constexpr const char* kRunnerError = "runner error";              ///< unreadable report

// Building.
inline constexpr const char* kMissingFile = "missing file";    ///< a file of the lab is not in the submission
inline constexpr const char* kCompileError = "compile error";  ///< the submission does not build
/// A file of the lab is a symbolic link out of the submission (or a loop, or to nothing): not read
inline constexpr const char* kLinkOutside = "link out of the submission";
/// Its host code calls what no lab needs (processes, threads, files, streams, exit hooks, ...)
/// or defines a library's symbol (grader/build/host_code_rules.cpp).
inline constexpr const char* kForbiddenHostCode = "forbidden host code";

// compute-sanitizer (--sanitize).
inline constexpr const char* kMemcheck = "memcheck";    ///< memcheck reported an error
inline constexpr const char* kRacecheck = "racecheck";  ///< racecheck reported a shared-memory race

// Performance.
inline constexpr const char* kTooSlow = "too slow";  ///< slower than the rubric's full-points ratio
// What the grader's checks of a timed phase found (grader/performance/time_checks.hpp).
inline constexpr const char* kWrongOnTimedCall = "wrong on a timed call";  ///< a sampled output of a timed call is wrong
inline constexpr const char* kUnverifiedTime = "unverified time";          ///< no witnessed phase or no samples: no time
inline constexpr const char* kWorkOffStream = "work outside the timed stream";  ///< wall time far above event time
inline constexpr const char* kBelowGraderClock = "time below the grader's clock";  ///< reported time far below the witness's
inline constexpr const char* kFasterThanGpu = "faster than the GPU allows";  ///< under half the roofline's time

/// Every tag above.
inline constexpr std::array<const char*, 25> kAll = {
    kNotImplemented,  kUnwritten,         kNotFinite,      kOutOfTolerance,  kWrongShape,        kNoOutput,
    kOutOfBoundsWrite, kWroteInput,       kIllegalAddress, kCrashed,         kTimedOut,          kCudaError,
    kRunnerError,     kMissingFile,       kCompileError,   kLinkOutside,   kForbiddenHostCode, kMemcheck,        kRacecheck,
    kTooSlow,         kWrongOnTimedCall,  kUnverifiedTime, kWorkOffStream,   kBelowGraderClock,  kFasterThanGpu};

/// True when `tag` is one of the tags above (a report's tags are checked against this list:
/// a runner report is written by a process that ran the student's code).
[[nodiscard]] constexpr bool is_known(std::string_view tag) {
  for (const char* t : kAll) {
    if (tag == t) return true;
  }
  return false;
}

/// The correctness tags of a comparison (compare.hpp): wrong shape, unwritten, not finite, out
/// of tolerance, each once; none when it passed. The runner (when it checks) and the grader's
/// judge both tag a comparison with this.
inline std::vector<std::string> of_comparison(const CompareResult& cmp) {
  std::vector<std::string> tags;
  if (!cmp.shape_error.empty()) tags.emplace_back(kWrongShape);
  if (cmp.unwritten > 0) tags.emplace_back(kUnwritten);
  if (cmp.not_finite > 0) tags.emplace_back(kNotFinite);
  if (cmp.bad > cmp.unwritten + cmp.not_finite) tags.emplace_back(kOutOfTolerance);
  return tags;
}

}  // namespace convlab::reason
