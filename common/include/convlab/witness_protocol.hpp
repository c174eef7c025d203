/// @file witness_protocol.hpp
/// @brief The lines a lab runner and the grader exchange around each timed phase (`--witness`).
///
/// The grader cannot trust a time that the child process measured: the submission's code runs
/// in that process. So it keeps its own clock around each phase, and opens and closes the
/// window itself:
///
///     runner → grader   convlab-witness ready CASE VARIANT
///     grader → runner   go SEED              the clock starts; SEED picks the inputs (fresh_inputs.hpp)
///     runner → grader   convlab-witness computed CALLS
///     grader → runner   sample NONCE         NONCE names the output elements to hand over
///     runner → grader   convlab-witness done
///
/// The clock stops at "done", after the runner has written the named outputs of every timed call
/// (`<case>__<variant>__samples.npy` in `--output`, CALLS × kSamplesPerCall floats). No work can
/// start before SEED is known, and none can be left for later: the outputs that prove it are
/// inside the window. The grader compares its window with the reference solution's in the same
/// grading run (grader/performance/time_checks.hpp).
#pragma once

#include <string>

namespace convlab::witness {

/// The prefix of every line the runner sends; other output is ignored by the grader.
inline constexpr const char* kPrefix = "convlab-witness ";
/// Runner: a phase is about to start; waits for kGo.
inline constexpr const char* kReady = "ready";
/// Runner: every timed call finished on the device; waits for kSample.
inline constexpr const char* kComputed = "computed";
/// Runner: the samples are written.
inline constexpr const char* kDone = "done";
/// Grader: start, with the seed of the inputs.
inline constexpr const char* kGo = "go";
/// Grader: which outputs to hand over.
inline constexpr const char* kSample = "sample";

/// The file that holds the samples of a phase.
inline std::string samples_file_name(const std::string& case_name, const std::string& variant) {
  return case_name + "__" + variant + "__samples.npy";
}

}  // namespace convlab::witness
