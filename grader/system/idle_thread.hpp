// Host work of the grader's own that a GPU's runs must never wait for — the judging of a timed
// run's samples, which takes seconds of several cores — done on a thread of its own under
// SCHED_IDLE: it runs only on cores nothing else wants, so a timed runner's host thread never
// waits for a core between its calls (the grader's clock would count the wait:
// performance/time_checks.hpp). The processes' counterpart is at_idle_priority
// (system/subprocess.hpp), which every build step runs under.
#pragma once

#include <functional>

namespace convlab::grader {

/// Runs `work` on a new thread under SCHED_IDLE and waits for it; the threads `work` starts
/// inherit the policy, the caller's thread keeps its own (the runner processes it starts later
/// inherit the caller's). Where the policy cannot be set, `work` runs at the caller's. An
/// exception `work` throws is thrown here.
void run_at_idle_priority(const std::function<void()>& work);

}  // namespace convlab::grader
