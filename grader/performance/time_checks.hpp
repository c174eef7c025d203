// The time a variant is scored by, decided by the grader from what it measured itself.
//
// A lab runner reports a median event time, but it runs the submission's code in its own
// process, so that number is a claim. The grader scores it only after three checks, each
// against evidence the child cannot produce alone (grader/README.md, "What a timed run cannot
// fake"):
//   1. all the work on the stream the events time: the child's wall time per call (idle device
//      to idle device) exceeds its event time by no more than the reference solution's does,
//      plus max(50 % of the time, 0.05 ms); else the wall time (less the reference's overhead)
//      is the time, flagged;
//   2. the grader's own clock: the witness window of the phase (seed sent to samples received)
//      per call, compared with the reference solution's window on the same case, estimates the
//      time as `reference time + (window − reference window) / calls`; a time under half that
//      estimate, by more than kWitnessResolutionMs over the phase, is replaced by the estimate,
//      flagged;
//   3. physics: a time under half the roofline's (the reference run's measured ceilings), after
//      check 1 or after check 2, earns no speed points at all, flagged.
// The samples of every timed output are judged before these (performance/timed_outputs.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "session/grade_result.hpp"

namespace convlab::grader {

/// Below this difference over a whole phase, the grader's clock cannot tell two runs apart
/// (process scheduling, pipes): the witness flags only larger gaps.
inline constexpr double kWitnessResolutionMs = 20.0;

/// The time to score, and what the checks found.
struct TimeVerdict {
  std::optional<double> time_ms;  ///< nullopt: no speed points
  std::vector<TimeFlag> flags;
};

/// Applies checks 1–3 to the submission's phase `sub`, with the reference solution's phase
/// `ref` on the same case in the same grading run, and `roofline_ms`, the roofline's time of the
/// case on this GPU (0: unknown, check 3 skipped).
TimeVerdict check_time(const PhaseEvidence& sub, const PhaseEvidence& ref, double roofline_ms);

}  // namespace convlab::grader
