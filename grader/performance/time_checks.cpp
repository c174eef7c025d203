#include "performance/time_checks.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "run/reasons.hpp"

namespace convlab::grader {

TimeVerdict check_time(const PhaseEvidence& sub, const PhaseEvidence& ref, double roofline_ms) {
  TimeVerdict v;
  double t = sub.event_ms;
  const auto impossible = [&](double ms) {
    if (roofline_ms <= 0 || ms >= 0.5 * roofline_ms) return false;
    v.flags.push_back({reason::kFasterThanGpu,
                       fmt::format("{:.4f} ms is under half the {:.4f} ms that this GPU's measured bandwidth and FMA "
                                   "rate allow for the case: no speed points",
                                   ms, roofline_ms)});
    return true;
  };

  // 1. Work the events did not see: on another stream, or left running past the call.
  const double ref_overhead = std::max(0.0, ref.wall_ms - ref.event_ms);
  const double hidden = (sub.wall_ms - sub.event_ms) - ref_overhead;
  if (hidden > std::max(0.5 * sub.event_ms, 0.05)) {
    t = std::max(t, sub.wall_ms - ref_overhead);
    v.flags.push_back({reason::kWorkOffStream,
                       fmt::format("events timed {:.4f} ms a call, but the device was busy {:.4f} ms (the reference: "
                                   "{:.4f} ms of overhead); scored at {:.4f} ms",
                                   sub.event_ms, sub.wall_ms, ref_overhead, t)});
  }

  // A claim that physics rules out earns nothing, whatever the grader's clock would make of it.
  if (impossible(t)) return v;

  // 2. The grader's clock.
  if (sub.calls > 0 && ref.calls > 0 && sub.window_ms > 0 && ref.window_ms > 0) {
    const double estimate = ref.event_ms + sub.window_ms / sub.calls - ref.window_ms / ref.calls;
    if (t < 0.5 * estimate && (estimate - t) * sub.calls > kWitnessResolutionMs) {
      v.flags.push_back({reason::kBelowGraderClock,
                         fmt::format("reported {:.4f} ms a call, but the grader's clock saw {:.1f} ms for {} calls "
                                     "where the reference took {:.1f} ms for {}: about {:.4f} ms a call; scored at that",
                                     t, sub.window_ms, sub.calls, ref.window_ms, ref.calls, estimate)});
      t = estimate;
    }
  }

  // 3. Physics, for the time the checks arrived at.
  if (impossible(t)) return v;
  v.time_ms = t;
  return v;
}

}  // namespace convlab::grader
