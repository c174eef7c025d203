/// @file timed_calls.cuh
/// @brief The runner's timed phase: every call on fresh inputs into its own poisoned output,
///        timed by events and by the wall clock up to an idle device.
///
/// What it adds to time_kernel() (event_timer.cuh), and why (grader/README.md, "What a timed
/// run cannot fake"):
///   - before each call, untimed: the lab's input buffers are overwritten with one of
///     fresh::kDistinctInputs inputs, in an order drawn from the phase's seed (never the same
///     twice in a row), the call's output is poisoned, and L2 is flushed; so no call can reuse
///     the work of the one before it;
///   - each call is timed twice: by CUDA events on the default stream (what students compare
///     with the lectures' analysis) and by the host's clock from an idle device to an idle device
///     (cudaDeviceSynchronize), which also covers work the lab put on other streams;
///   - with keep_outputs, each timed call writes into its own buffer, so that afterwards the
///     outputs named by a nonce can be handed over for checking (samples()).
/// Every buffer of the phase is allocated when it is made, before the seed is known (under the
/// grader's witness: before its window opens), and freed when it is destroyed (after the window
/// closes): cudaMalloc and cudaFree go through the driver's locks, which a busy neighbour on
/// another GPU of the host can hold for a long while (on a 2 × H100 host, a class graded on both
/// GPUs saw honest labs' windows up to four times the reference's); launches and copies into buffers
/// already allocated do not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "convlab/event_timer.cuh"
#include "convlab/fresh_inputs.hpp"

namespace convlab {

/// What a timed phase needs of the run it belongs to.
struct TimedPhaseSetup {
  /// The lab's input buffers on the device, in fresh::Tensor order (N then M, or X then W), and
  /// their element counts: refilled before every call.
  std::vector<std::pair<float*, std::size_t>> inputs;
  float* output = nullptr;           ///< the run's own output buffer (used unless keep_outputs)
  std::size_t output_elements = 0;   ///< elements of one output
  std::function<void(float* output)> launch;  ///< one call of the lab's function
  int warmup = 3;                    ///< untimed calls first
  int repeats = 20;                  ///< timed calls at most
  double max_seconds = 2;            ///< stop early past this much wall time (at least 3 calls)
  bool keep_outputs = false;         ///< every timed call its own output buffer, for samples()
};

/// What a timed phase measured.
struct TimedPhase {
  TimingStats event;   ///< per call, CUDA events on the default stream
  TimingStats wall;    ///< per call, host clock from an idle device to an idle device
  int warmup = 0;      ///< untimed calls made first (they take the first entries of the order)
};

/// Runs a timed phase. Keeps the outputs (when asked) until the object is destroyed.
class FreshTimedPhase {
 public:
  /// Allocates the staged inputs, the kept outputs and the samples' buffer.
  /// @throws std::invalid_argument for no calls, or more kept outputs than fresh::kMaxKeptCalls
  /// @throws std::runtime_error if the kept outputs need more than half the GPU's free memory
  explicit FreshTimedPhase(TimedPhaseSetup setup);
  /// Frees the staged inputs and the kept outputs.
  ~FreshTimedPhase();
  FreshTimedPhase(const FreshTimedPhase&) = delete;             ///< owns device memory
  FreshTimedPhase& operator=(const FreshTimedPhase&) = delete;  ///< owns device memory

  /// Stages the inputs `seed` picks (fresh::value, fresh::call_order), makes the warm-up and the
  /// timed calls; allocates and frees nothing. Once per phase. CUDA errors propagate.
  TimedPhase run(std::uint64_t seed);
  /// fresh::kSamplesPerCall outputs of each timed call, at the positions `nonce` names
  /// (fresh::sample_position), row-major [calls][kSamplesPerCall]. Needs keep_outputs.
  std::vector<float> samples(std::uint64_t nonce) const;

 private:
  struct Buffers;
  TimedPhaseSetup setup_;
  std::unique_ptr<Buffers> buffers_;
  int timed_calls_ = 0;
};

}  // namespace convlab
