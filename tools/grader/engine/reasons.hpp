// Why a lab lost points: short, fixed tags that reports, tests and expect.json files share.
// A lab's result carries every tag that applies; the message next to it says the details.
#pragma once

namespace convlab::grader::reason {

// Correctness: what the output comparison found (compare.hpp's kinds, named the same way).
inline constexpr const char* kNotImplemented = "not implemented";   ///< a stub's function
inline constexpr const char* kUnwritten = "unwritten";              ///< outputs still NaN poison
inline constexpr const char* kNotFinite = "not finite";             ///< NaN or inf computed
inline constexpr const char* kOutOfTolerance = "out of tolerance";  ///< wrong values
inline constexpr const char* kWrongShape = "wrong shape";           ///< output of the wrong size
inline constexpr const char* kNoOutput = "no output";               ///< the run wrote no output file

// Memory and process: what the runner or the operating system reported.
inline constexpr const char* kOutOfBoundsWrite = "out-of-bounds write";  ///< guard band hit
inline constexpr const char* kWroteInput = "wrote into input";           ///< input changed
inline constexpr const char* kIllegalAddress = "illegal address";        ///< cudaErrorIllegalAddress
inline constexpr const char* kCrashed = "crashed";                       ///< the process died
inline constexpr const char* kTimedOut = "timed out";                    ///< a hang, killed
inline constexpr const char* kCudaError = "CUDA error";                  ///< a non-sticky error
inline constexpr const char* kRunnerError = "runner error";              ///< unreadable report

// Building.
inline constexpr const char* kMissingFile = "missing file";
inline constexpr const char* kCompileError = "compile error";

// compute-sanitizer (--sanitize).
inline constexpr const char* kMemcheck = "memcheck";
inline constexpr const char* kRacecheck = "racecheck";

// Performance.
inline constexpr const char* kTooSlow = "too slow";  ///< slower than the rubric's full-points ratio

}  // namespace convlab::grader::reason
