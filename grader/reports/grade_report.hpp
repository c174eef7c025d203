// Reports of a grading run: the terminal table, the versioned JSON report
// ({"format": "convlab-grade", "version": 1}) and Gradescope's results.json.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "session/grade_result.hpp"

namespace convlab::grader {

/// Version of the JSON report written by grade_json().
inline constexpr int kGradeJsonVersion = 1;

/// The terminal report: a summary table of the labs, then each lab's details (failures with
/// their first mismatches, times per variant, predicted and measured counters).
std::string grade_text(const SubmissionResult& s, const RunInfo& run);

/// One submission as JSON (the "submission" object of both the grade and batch reports).
nlohmann::json submission_json(const SubmissionResult& s);

/// The versioned JSON report of `grader grade --json FILE`.
nlohmann::json grade_json(const SubmissionResult& s, const RunInfo& run);

/// Gradescope's results.json: {"score", "output", "tests": [{"name", "score", "max_score",
/// "status", "output"}]}, two tests per lab (correctness, performance).
nlohmann::json gradescope_json(const SubmissionResult& s, const RunInfo& run);

/// The run's circumstances as JSON.
nlohmann::json run_info_json(const RunInfo& run);

/// "1.23 ms", "456 µs": a time for people.
std::string format_ms(double ms);
/// "183.1 MB", "1.2 GB": a byte count for people.
std::string format_bytes(double bytes);

}  // namespace convlab::grader
