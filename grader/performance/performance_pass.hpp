// The performance pass: each variant of a lab timed by its runner on the rubric's performance
// case of the problem it solves (one runner call takes a lab's cases of both problems: lab 08),
// in phases the grader witnesses (convlab/witness_protocol.hpp): every timed call on
// fresh inputs, every timed output sampled and judged here, the reported time checked against
// the grader's own clock and the GPU's roofline (time_checks.hpp), and compared with the
// reference solution's, timed the same way on the same GPU in the same grading run.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "session/grade_result.hpp"
#include "session/gpu_environment.hpp"
#include "correctness/judge.hpp"

namespace convlab::grader {

/// One variant, timed.
struct TimedVariant {
  Judgement judgement;       ///< its last output (the run before timing)
  std::optional<double> time_ms;  ///< the runner's median event time: a claim until checked
  std::optional<PhaseEvidence> evidence;  ///< what proves the timed phase; nullopt: unverified
  std::string unverified;    ///< why there is no evidence
  Judgement timed_outputs;   ///< the samples of every timed call
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

/// Runs every variant of `exe` that accepts the case of its problem in `perf` with witnessed
/// timing, all in one runner call, and judges the outputs.
TimedRun run_timed(const std::filesystem::path& exe, const LabVariants& listing, const PerformanceCases& perf,
                   GradingEnvironment& env, const std::filesystem::path& work);

/// The reference solution's times for `lab` on its performance cases: timed by run_timed on
/// first use, then kept in `env` for the rest of the run (every submission of a batch).
const ReferenceTiming& reference_timing(const LabInfo& lab, const LabVariants& listing, GradingEnvironment& env);

/// Times the reference solutions of `labs` now, those not timed yet, each lab in a turn alone on
/// the environment's GPU: a class pipeline does it while the first builds run, so that no
/// student's turn alone is spent on them, and a turn per lab lets the first students' checks
/// start between two labs' references. A lab whose variants cannot be listed is left for its
/// first student, who reports why.
void time_references_ahead(const std::vector<LabInfo>& labs, GradingEnvironment& env);

/// The performance result of a lab whose correctness allows it: the lab timed, its time
/// checked, compared with the reference solution, each variant scored by the rubric. Sets
/// `could_not_grade` when the reference cannot be timed, or when no variant of some problem
/// takes that problem's performance case (the rubric's case suits none of them). Variants in `left_out` (the rubric's
/// stretch variants that are still stubs) are neither scored nor reported.
PerformanceResult run_performance(const LabInfo& lab, const std::filesystem::path& exe, const LabVariants& listing,
                                  GradingEnvironment& env, std::string* could_not_grade,
                                  const std::set<std::string>& left_out = {});

}  // namespace convlab::grader
