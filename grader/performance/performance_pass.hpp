// The performance pass: each variant of a lab timed by its runner on the rubric's performance
// case of the problem it solves (one runner call takes a lab's cases of both problems: lab 08),
// in phases the grader witnesses (convlab/witness_protocol.hpp): every timed call on
// fresh inputs, every timed output sampled and judged here, the reported time checked against
// the grader's own clock and the GPU's roofline (time_checks.hpp), and compared with the
// reference solution's, timed the same way on the same GPU in the same grading run.
//
// A student's lab is timed in two steps: time_performance in the student's turn alone on the GPU
// (its runner processes, and the decision to time it again), judge_performance after the turn
// (the samples of every timed call recomputed and judged, the variants scored). Recomputing the
// samples is host work — about a core-second per conv-layer variant — and a turn alone holds the
// GPU from every other student of the host, so it is done with the GPU given back.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "session/grade_result.hpp"
#include "session/gpu_environment.hpp"
#include "correctness/judge.hpp"
#include "performance/timed_outputs.hpp"

namespace convlab::grader {

/// One variant, timed.
struct TimedVariant {
  Judgement judgement;       ///< its last output (the run before timing)
  std::optional<double> time_ms;  ///< the runner's median event time: a claim until checked
  std::optional<PhaseEvidence> evidence;  ///< what proves the timed phase; nullopt: unverified
  std::string unverified;    ///< why there is no evidence
  Judgement timed_outputs;   ///< the samples of every timed call, once judged
  /// The samples still to judge (run_timed with SampleJudging::later; judge_samples judges them).
  std::optional<PendingSamples> pending;
};

/// One timed run of a lab executable on a case.
struct TimedRun {
  std::string failure;  ///< non-empty when the process itself failed (crash, hang, ...)
  std::vector<std::string> reasons;
  std::map<std::string, TimedVariant> variants;  ///< variants that reported a result
  double copy_gb_per_s = 0, fma_gflop_per_s = 0;  ///< the ceilings the runner measured (0: none)
};

/// A lab's performance cases: one for each problem its variants solve.
using PerformanceCases = std::map<Problem, const GradingCase*>;

/// The performance cases of `lab`, whose variants are `listing` (GradingEnvironment::performance_case).
PerformanceCases performance_cases(const LabInfo& lab, const LabVariants& listing, GradingEnvironment& env);

/// When run_timed judges the samples of the timed calls: at once, or later (judge_samples), from
/// files it keeps in its `work` folder until then.
enum class SampleJudging { now, later };

/// Runs every variant of `exe` that accepts the case of its problem in `perf` with witnessed
/// timing, all in one runner call, and judges the outputs (the timed calls' samples `when` says).
TimedRun run_timed(const std::filesystem::path& exe, const LabVariants& listing, const PerformanceCases& perf,
                   GradingEnvironment& env, const std::filesystem::path& work,
                   SampleJudging when = SampleJudging::now);

/// Judges the samples `run` left pending, and removes their files.
void judge_samples(TimedRun& run);

/// The reference solution's times for `lab` on its performance cases: timed by run_timed on
/// first use, then kept in `env` for the rest of the run (every submission of a batch).
const ReferenceTiming& reference_timing(const LabInfo& lab, const LabVariants& listing, GradingEnvironment& env);

/// Times the reference solutions of `labs` now, those not timed yet, each lab in a turn alone on
/// the environment's GPU: a class pipeline does it while the first builds run, so that no
/// student's turn alone is spent on them, and a turn per lab lets the first students' checks
/// start between two labs' references. A lab whose variants cannot be listed is left for its
/// first student, who reports why.
void time_references_ahead(const std::vector<LabInfo>& labs, GradingEnvironment& env);

/// A lab timed in its turn alone, its timed calls' samples not judged yet (judge_performance).
struct TimedPerformance {
  PerformanceResult result;      ///< attempted and case_ids; the note when it was not timed
  std::string could_not_grade;   ///< why the lab cannot be graded ("" when it can)
  std::vector<const VariantInfo*> scored;  ///< the variants to score (of the environment's listing)
  PerformanceCases perf;
  const ReferenceTiming* reference = nullptr;  ///< kept by the environment; null: not timed
  TimedRun first;
  std::optional<TimedRun> again;               ///< the second run, when the first asked for one
  std::optional<ReferenceTiming> same_turn;    ///< the reference timed again beside `again`
  std::filesystem::path work, work_again;      ///< the runs' folders (pending samples), removed when judged
};

/// The performance step that needs the GPU alone: the lab timed, and timed again (with the
/// reference beside it) when a variant is flagged or out of the full-points band as far as its
/// times and full output show; the samples of the timed calls are judged later. Variants in
/// `left_out` (the rubric's stretch variants that are still stubs) are neither scored nor reported.
TimedPerformance time_performance(const LabInfo& lab, const std::filesystem::path& exe, const LabVariants& listing,
                                  GradingEnvironment& env, const std::set<std::string>& left_out = {});

/// The performance step that needs no GPU: the samples judged, each variant's time checked and
/// compared with the reference, scored by the rubric (of two runs, the better for each variant).
/// `timed.could_not_grade` says when the lab cannot be graded: the reference cannot be timed, or
/// no variant of some problem takes that problem's performance case.
PerformanceResult judge_performance(TimedPerformance timed, GradingEnvironment& env);

}  // namespace convlab::grader
