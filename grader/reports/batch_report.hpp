// The reports of `grader batch`: one row per student in CSV and JSON, and a summary.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "schedule/class_pipeline.hpp"
#include "session/grade_result.hpp"

namespace convlab::grader {

/// Version of the JSON report written by batch_json().
inline constexpr int kBatchJsonVersion = 1;

/// One field of a CSV row, quoted when it holds a comma, a quote or a line break (RFC 4180).
std::string csv_field(const std::string& text);

/// The CSV: student, score, max_score, status, then per lab its points, correctness and
/// performance points and reasons, then what could not be graded. `labs` fixes the columns.
std::string batch_csv(const std::vector<SubmissionResult>& students, const std::vector<LabInfo>& labs);

/// {"format": "convlab-batch", "version": 1, "run", "students": [...], "summary"}.
nlohmann::json batch_json(const std::vector<SubmissionResult>& students, const RunInfo& run);

/// The summary for the terminal: one line per student, then totals and per-lab pass rates.
std::string batch_summary(const std::vector<SubmissionResult>& students, const std::vector<LabInfo>& labs,
                          const RunInfo& run);

/// {"format": "convlab-schedule", "version": 2, "submissions": [{"submission", "build_worker",
/// "build_start_s", "build_end_s", "gpu", "gpu_worker", "gpu_start_s", "gpu_end_s", "checks_s",
/// "timing_s", "waited_s"}]}: where and when each submission of a batch was built and graded
/// (seconds since the batch started), and how its time on the GPU went: its labs' checks in a
/// shared turn, their timing in a turn alone, and the wait for those turns.
nlohmann::json schedule_json(const std::vector<ScheduleRecord>& schedule);

/// "graded", "partly graded" (something could not be graded) or "could not grade".
std::string student_status(const SubmissionResult& s);

}  // namespace convlab::grader
