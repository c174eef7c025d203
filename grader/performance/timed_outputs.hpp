// The check of every timed call's output: the samples a runner handed over at the end of a
// witnessed phase (convlab/witness_protocol.hpp), recomputed here from the phase's seed and
// nonce (convlab/fresh_inputs.hpp) and judged by the one comparison rule (convlab/compare.hpp).
// A kernel that skipped, reused or deferred the work of any timed call fails here.
#pragma once

#include <cstdint>
#include <filesystem>

#include "convlab/compare.hpp"
#include "convlab/dataset.hpp"
#include "correctness/judge.hpp"

namespace convlab::grader {

/// What a phase's samples must be.
struct TimedOutputsSpec {
  CaseInfo info;          ///< the performance case: its problem and shape
  std::uint64_t seed = 0;   ///< the inputs ("go")
  std::uint64_t nonce = 0;  ///< the positions ("sample")
  int warmup = 0;           ///< untimed calls before the timed ones (they come first in the order)
  int calls = 0;            ///< timed calls
  Tolerance tolerance = Tolerance::fp32();
};

/// A phase's samples kept to be judged later, outside the turn alone on the GPU that timed them:
/// recomputing them costs about a core-second per conv-layer variant (100 calls × 8192 outputs ×
/// C·K² terms), which a turn alone should not hold the GPU for.
struct PendingSamples {
  std::filesystem::path file;  ///< the runner's samples, moved out of its output folder
  TimedOutputsSpec spec;
};

/// Judges `samples` (a float32 .npy of [calls][fresh::kSamplesPerCall], written by the runner).
/// A missing or malformed file fails, with the reason "no output".
Judgement judge_timed_outputs(const std::filesystem::path& samples, const TimedOutputsSpec& spec);

}  // namespace convlab::grader
