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

/// Version of the schedule written by schedule_json().
inline constexpr int kScheduleJsonVersion = 3;

/// {"format": "convlab-schedule", "version": 3, "measured": {...}, "submissions": [...]}: what the
/// run cost and where and when each submission was built and graded (seconds since the batch
/// started). "measured": cores, gpus, wall_s, build_core_s (harness_core_s, setup_core_s of it),
/// gpu_busy_s (per GPU), gpu_turns (per GPU, every turn it held: [{"alone", "start_s",
/// "end_s"}], the references' too), gpu_s, bound_s = max(build_core_s / cores, gpu_s / gpus),
/// first_on_gpu_s, compiles, shared (labs copied from an identical student's compile). Each
/// submission: build_start_s, build_end_s, build_core_s, "labs": [{"lab", "start_s", "end_s",
/// "cores", "core_s", "compiled", "shared_from"}], gpu, gpu_worker, gpu_start_s, gpu_end_s and
/// its time on the GPU: checks_s in shared turns, timing_s in a turn alone ("timing_by_lab":
/// [{"lab", "s"}], each lab's seconds of it), waited_s for them, waited_for_builds_s for its labs
/// still compiling (holding no turn).
/// scripts/class_speedup.sh reads these fields.
nlohmann::json schedule_json(const ClassOutcome& outcome);

/// "graded", "partly graded" (something could not be graded) or "could not grade".
std::string student_status(const SubmissionResult& s);

}  // namespace convlab::grader
