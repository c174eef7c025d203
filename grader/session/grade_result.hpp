// What grading found, lab by lab: the data behind the terminal table, the JSON report and
// Gradescope's results.json. Plain structs; grading fills them, grade_report.cpp prints them.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "build/lab_folders.hpp"

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
  /// Runs of one variant: how many, how many passed, how many failed as "not implemented".
  struct VariantTally {
    int runs = 0;
    int passed = 0;
    int not_implemented = 0;
  };
  std::map<std::string, VariantTally> by_variant;  ///< by variant name
};

/// One variant on the performance case.
/// Something the grader's checks of a timed phase found (performance/time_checks.hpp).
struct TimeFlag {
  std::string reason;  ///< a reason tag (run/reasons.hpp)
  std::string note;    ///< what was measured, for people
};

/// One timed phase of one variant, as the grader knows it.
struct PhaseEvidence {
  double event_ms = 0;   ///< the child's median event time per call
  double wall_ms = 0;    ///< the child's median wall time per call
  int calls = 0;         ///< timed calls, proven by their samples
  double window_ms = 0;  ///< the grader's clock over the whole phase
};

struct VariantTiming {
  std::string variant;
  std::string case_id;                 ///< the performance case of its problem: "conv2d/perf_2048x2048_k5"
  bool correct = false;                ///< its output on the performance case passed
  std::optional<double> time_ms;       ///< median
  std::optional<double> reference_ms;  ///< the reference solution's median, same run, same GPU
  std::optional<double> gb_per_s, gflop_per_s, roofline_fraction;
  double fraction = 0;                 ///< share of the performance points
  std::string note;                    ///< why it earned less than full points
  std::vector<TimeFlag> flags;         ///< what the checks of its timed phase found (look at these)
  /// time / reference, when both exist.
  [[nodiscard]] std::optional<double> ratio() const {
    if (!time_ms || !reference_ms || *reference_ms <= 0) return std::nullopt;
    return *time_ms / *reference_ms;
  }
};

/// The performance pass.
struct PerformanceResult {
  bool attempted = false;
  /// The cases its variants were timed on, one per problem they solve: "conv2d/perf_2048x2048_k5"
  /// (lab 08: a conv-layer case and a conv2d one). Each variant names its own (VariantTiming).
  std::vector<std::string> case_ids;
  /// The cases as a reader reads them: "conv2d/perf_2048x2048_k13 and conv_layer/perf_…".
  [[nodiscard]] std::string cases_text() const {
    std::string out;
    for (std::size_t i = 0; i < case_ids.size(); ++i) {
      out += (i == 0 ? "" : i + 1 == case_ids.size() ? " and " : ", ") + case_ids[i];
    }
    return out;
  }
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
  std::string case_id;                        ///< the performance case it was profiled on
  std::string unavailable;                    ///< the whole profile failed: why
  std::vector<std::string> kernels;           ///< kernels profiled
  std::map<std::string, Measured> metrics;    ///< by ncu metric name
  /// smsp__average_thread_inst_executed_per_inst_executed.ratio per kernel (a ratio does not sum).
  std::vector<Measured> threads_per_warp_instruction;
};

/// The analysis model's prediction for one variant's kernels on the performance case: the
/// numbers its ncu profile is set beside, thread-level, exactly as the kernels are written.
struct VariantPrediction {
  std::string variant;             ///< the lab's variant; "" = every variant of the lab
  std::string config;              ///< the configuration it launches
  /// What `smsp__sass_data_bytes_mem_global_op_ld.sum` should read: 4 bytes per float each
  /// thread loads (16 per float4 load), a warp-uniform load once per warp.
  double global_load_bytes = 0;
  /// cp.async copies (lab 06 step 3): issued, zero-fill included, and the bytes they read.
  /// They are counted in `..._op_ldgsts`, never in `..._op_ld`.
  long long async_copies = 0;
  double async_copy_bytes = 0;
  double global_floats_per_fma = 0;  ///< over the whole grid (0 where not modelled)
  long long warps = 0;               ///< warps launched (0: divergence not modelled)
  long long divergent_warps = 0;     ///< warps whose lanes split at some boundary test
  long long divergent_warps_branch = -1;  ///< of which at a real branch (-1: not told apart)
  /// False where the model counts no loads for this kernel (lab 08's tensor-core steps): the
  /// three load fields above are then not predictions.
  bool loads_modelled = true;
  /// Tensor-core MMA instructions (warp-level), what `sm__inst_executed_pipe_tensor_op_hmma.sum`
  /// counts; 0 for a kernel without them.
  long long mmas = 0;
  /// `mmas` are Hopper's warpgroup MMAs counted once per warp, what
  /// `sm__inst_executed_pipe_tensor_op_gmma.sum` counts (lab 08 step 5), not mma.sync.
  bool wgmma = false;
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
  /// Per variant: what its Nsight Compute profile should read (labs 06 and 07 run different
  /// kernels per variant; labs 01–05 have one entry, variant "", for all of them).
  std::vector<VariantPrediction> variants;
  /// Lab-level lines for people: lab 07's reduction, registers and loads per FMA; lab 06's
  /// replication factor and each step's tile reuse.
  std::vector<std::string> summary;
  /// One sentence: which measured divergence metric the predicted divergent warps should match
  /// and why (branch or predication in the compiled kernel).
  std::string divergence_basis;
  /// The prediction for a variant, or the lab-wide one (variant ""), or nullptr.
  [[nodiscard]] const VariantPrediction* for_variant(const std::string& variant) const {
    for (const VariantPrediction& v : variants) {
      if (v.variant == variant) return &v;
    }
    for (const VariantPrediction& v : variants) {
      if (v.variant.empty()) return &v;
    }
    return nullptr;
  }
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
  /// Stretch variants (rubric "stretch") that pass every run: "bonus: tf32_tensor_core passes
  /// all 24 runs". They earn no points; they say what was done beyond the lab.
  std::vector<std::string> bonus;
  CorrectnessResult correctness;
  PerformanceResult performance;
  std::vector<SanitizerResult> sanitizers;
  bool sanitizer_hazard = false;       ///< a finding in `sanitizers`, noted once by the checks
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
  bool sandboxed = true;   ///< every student-controlled step ran in the sandbox
  std::string sandbox;     ///< the reports' line about it (run/lab_sandbox.hpp)
};

}  // namespace convlab::grader
