// The grader's verdict on one run: the output file compared with the expectation by
// compare.hpp's rule (the same one the runner applies when it checks). What the runner itself
// saw (guard bands, writes into the inputs, "not implemented", CUDA errors) arrives as tags in
// its report (RunnerEntry::reasons), never read from its messages.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "session/case_set.hpp"
#include "convlab/compare.hpp"
#include "convlab/error_map.hpp"

namespace convlab::grader {

/// The verdict on one output.
struct Judgement {
  bool pass = false;
  std::vector<std::string> reasons;  ///< reason tags (reasons.hpp); empty when it passed
  std::string message;               ///< one line
  std::string details;               ///< the first mismatches, one per line
};

/// Reads `output` (a float32 .npy) and compares it with `e` under `tol`.
Judgement judge_output(const std::filesystem::path& output, const Expectation& e, Tolerance tol);

/// Draws the error map of a failing output into `dir` (error_map.hpp), or says why not.
/// @param output the run's .npy
/// @param guard_offsets the output buffer's changed guard elements, as the runner reported them
/// @return the PNG written, or nullopt with the reason in `why` (no output, unreadable, wrong shape)
std::optional<std::filesystem::path> draw_error_map(const std::filesystem::path& dir, const ErrorMapRun& run,
                                                    const std::filesystem::path& output, const Expectation& e,
                                                    Tolerance tol, const std::vector<std::ptrdiff_t>& guard_offsets,
                                                    std::string& why);

/// True when `message` says the GPU cannot run the code at all (no kernel image for this
/// architecture, a driver too old): the lab cannot be graded here, which is not its fault.
bool unsupported_device(const std::string& message);

/// Adds `tag` to `tags` unless present.
void add_reason(std::vector<std::string>& tags, const std::string& tag);

}  // namespace convlab::grader
