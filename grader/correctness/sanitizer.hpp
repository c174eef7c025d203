// `--sanitize`: compute-sanitizer's memcheck (out-of-bounds and misaligned accesses) and
// racecheck (shared-memory hazards: a missing __syncthreads() in a tiled kernel) on a lab's
// small cases. A finding fails the lab's correctness, quoted in the tool's own words.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "session/grade_result.hpp"
#include "system/sandbox.hpp"

namespace convlab::grader {

/// Reads compute-sanitizer's output: the findings it printed and its summary lines
/// ("ERROR SUMMARY: 3 errors", "RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)").
/// `ran` is false when no summary appears (the tool itself failed); `unavailable` then quotes it.
SanitizerResult parse_sanitizer_output(const std::string& tool, const std::string& output);

/// Runs `sanitizer --tool TOOL` on `exe` over `cases` (staged folders), the runner in its
/// grading mode (--no-check --no-time), inside `sandbox` when given (the tool with it: the
/// child is the student's); `timeout_s` is the runner's per-case timeout.
SanitizerResult run_sanitizer(const std::filesystem::path& sanitizer, const std::string& tool,
                              const std::filesystem::path& exe, const std::vector<std::filesystem::path>& cases,
                              int planned_runs, int timeout_s, const std::filesystem::path& work,
                              const std::optional<SandboxSpec>& sandbox = std::nullopt);

}  // namespace convlab::grader
