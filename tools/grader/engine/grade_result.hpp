// What grading found, lab by lab: the data behind the terminal table, the JSON report and
// Gradescope's results.json. Plain structs; grading fills them, grade_report.cpp prints them.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/lab_catalog.hpp"

namespace convlab::grader {

/// One run: one variant of the lab on one case.
struct RunRecord {
  enum class Verdict { pass, fail, skip, not_run };
  std::string case_id;   ///< "conv2d/k5_37x53"
  std::string variant;
  Verdict verdict = Verdict::not_run;
  std::vector<std::string> reasons;  ///< reason tags (reasons.hpp)
  std::string message;               ///< one line
  std::string details;               ///< first mismatches
  std::string error_map;             ///< the run's error map (grade --error-map), when drawn
};

/// The correctness pass over the case set.
struct CorrectnessResult {
  int runs = 0;      ///< runs the lab had to make (case × variant, skipped ones excluded)
  int passed = 0;
  int failed = 0;    ///< failed, or never run because the lab hung or kept crashing
  int skipped = 0;   ///< mask widths the variant does not take
  int restarts = 0;  ///< fresh processes after a crash
  bool hung = false;
  std::vector<RunRecord> failures;  ///< every run that did not pass, in run order
};

/// One variant on the performance case.
struct VariantTiming {
  std::string variant;
  bool correct = false;                ///< its output on the performance case passed
  std::optional<double> time_ms;       ///< median
  std::optional<double> reference_ms;  ///< the reference solution's median, same run, same GPU
  std::optional<double> gb_per_s, gflop_per_s, roofline_fraction;
  double fraction = 0;                 ///< share of the performance points
  std::string note;                    ///< why it earned less than full points
  /// time / reference, when both exist.
  [[nodiscard]] std::optional<double> ratio() const {
    if (!time_ms || !reference_ms || *reference_ms <= 0) return std::nullopt;
    return *time_ms / *reference_ms;
  }
};

/// The performance pass.
struct PerformanceResult {
  bool attempted = false;
  std::string case_id;           ///< "conv2d/perf_2048x2048_k5"
  std::string note;              ///< why it was not attempted, or what went wrong
  std::vector<std::string> reasons;  ///< reason tags from the timed run (a crash, wrong outputs)
  std::vector<VariantTiming> variants;
};

/// One compute-sanitizer tool on the lab's small cases.
struct SanitizerResult {
  std::string tool;               ///< "memcheck" or "racecheck"
  bool ran = false;
  std::string unavailable;        ///< why it did not run
  int hazards = 0;                ///< errors and race reports found
  std::vector<std::string> findings;  ///< the tool's own words, first few
  int cases = 0;                  ///< small cases it ran on
};

/// A quantity measured by Nsight Compute, or why it could not be.
struct Measured {
  std::optional<double> value;
  std::string unavailable;  ///< "unavailable: ..." reason when !value
};

/// ncu counters for one variant on the performance case (summed over its kernels).
struct ProfileResult {
  std::string variant;
  std::string unavailable;                    ///< the whole profile failed: why
  std::vector<std::string> kernels;           ///< kernels profiled
  std::map<std::string, Measured> metrics;    ///< by ncu metric name
  /// smsp__average_thread_inst_executed_per_inst_executed.ratio per kernel (a ratio does not sum).
  std::vector<Measured> threads_per_warp_instruction;
};

/// The analysis model's prediction for the lab's kernel on the performance image.
struct PredictionResult {
  std::string unavailable;     ///< no model for this lab: why
  std::string case_id;         ///< the image it is about: the performance case
  std::string config;          ///< the configuration analysed
  double exact_reduction = 0;  ///< whole-image bandwidth reduction against the untiled kernel
  double interior_reduction = 0;
  double global_input_load_bytes = 0;  ///< thread-level, as ncu's global-load bytes count them
  double global_mask_load_bytes = 0;   ///< lab 01 only, counted per thread (ncu counts a
                                       ///< warp-uniform load once per warp instruction)
  double shared_load_bytes = 0;
  long long warps = 0;
  long long divergent_warps_load = 0;
  long long divergent_warps_compute = 0;
};

/// Everything about one lab.
struct LabResult {
  LabInfo lab;
  bool could_not_grade = false;        ///< grading itself failed (not the lab's fault)
  std::string could_not_grade_reason;
  bool built = true;
  std::string build_message;           ///< compiler errors, missing files
  std::vector<std::string> reasons;    ///< every reason tag that applies
  std::vector<std::string> notes;      ///< things a reader should know (stale binary, ...)
  CorrectnessResult correctness;
  PerformanceResult performance;
  std::vector<SanitizerResult> sanitizers;
  std::optional<PredictionResult> prediction;
  std::vector<ProfileResult> profile;
  double correctness_points = 0, correctness_max = 0;
  double performance_points = 0, performance_max = 0;

  [[nodiscard]] double points() const { return correctness_points + performance_points; }
  [[nodiscard]] double max_points() const { return correctness_max + performance_max; }
  /// One line: the first problem, or "all runs passed".
  [[nodiscard]] std::string headline() const;
};

/// One submission (the labs/ folder, the solutions, or a student's folder).
struct SubmissionResult {
  std::string name;               ///< "labs/", "solutions/", or the student's folder name
  std::string kind;               ///< "labs", "solutions" or "submission"
  std::filesystem::path path;
  std::vector<LabResult> labs;
  std::vector<std::string> could_not_grade;  ///< what the grader could not do, one line each

  [[nodiscard]] double score() const;
  [[nodiscard]] double max_score() const;
};

/// The circumstances of a grading run, printed with every report.
struct RunInfo {
  std::string convlab_version;
  std::string started;     ///< ISO 8601, UTC
  std::string device;      ///< "NVIDIA H200 (sm_90, 132 SMs, 141 GB)"
  std::string datasets;    ///< CaseSet::description
  std::string rubric;      ///< rubric file
  std::string rubric_name;
  std::vector<std::string> options;  ///< the command line
};

}  // namespace convlab::grader
