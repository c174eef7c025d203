/// @file event_timer.cuh
/// @brief CUDA-event timing: one EventTimer for a single interval, time_kernel() for the
///        warm-up / repeat / median protocol of docs/design.md, Timing.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <vector>

namespace convlab {

/// Times one interval on a stream with a pair of CUDA events.
class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  /// Records the start event on `stream`.
  void start(cudaStream_t stream = nullptr);
  /// Records the stop event, waits for it, and returns the elapsed milliseconds.
  float stop(cudaStream_t stream = nullptr);

 private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};

/// How to time a function.
struct TimingOptions {
  int warmup = 3;          ///< untimed runs first
  int repeats = 20;        ///< timed runs; the median is reported
  bool flush_l2 = true;    ///< overwrite L2 before every timed run (not timed)
  double max_seconds = 2;  ///< stop repeating early once this much GPU time is spent (≥3 runs)
};

/// Result of time_kernel().
struct TimingStats {
  double median_ms = 0;           ///< median of the timed runs
  double min_ms = 0;              ///< fastest run
  double max_ms = 0;              ///< slowest run
  int runs = 0;                   ///< timed runs made
  std::vector<double> samples_ms; ///< every timed run, in order
};

/// The median, extremes and count of `samples_ms` (kept in order in the result).
/// @throws std::invalid_argument when there are no samples
TimingStats summarize_samples(std::vector<double> samples_ms);

/// Runs `launch` (which enqueues work on the default stream) as TimingOptions says and returns
/// the median of the timed runs. Errors inside `launch` propagate.
TimingStats time_kernel(const std::function<void()>& launch, const TimingOptions& options = {});

/// Overwrites the whole L2 cache (a memset of twice its size), so the next run starts cold.
void flush_l2_cache();

}  // namespace convlab
