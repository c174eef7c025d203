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
  /// Records the stop event without waiting (elapsed_ms waits).
  void mark_stop(cudaStream_t stream = nullptr);
  /// Waits for the stop event and returns the milliseconds between the two events.
  float elapsed_ms();

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
  bool hold = true;        ///< queue each timed run behind a LaunchHold (its host work not timed)
};

/// Result of time_kernel().
struct TimingStats {
  double median_ms = 0;           ///< median of the timed runs
  double min_ms = 0;              ///< fastest run
  double max_ms = 0;              ///< slowest run
  int runs = 0;                   ///< timed runs made
  std::vector<double> samples_ms; ///< every timed run, in order
  bool held = false;              ///< every run was queued behind a LaunchHold (time_kernel)
};

/// Holds the default stream while the host queues a timed run, as nvbench's blocking kernel
/// does: hold() queues a one-thread kernel that spins until release() (or until kTimeout), so the
/// run's kernels, queued behind it, start back to back however long the host takes to queue them
/// (a library's per-call set-up, several launches), and the events time the device's work alone.
/// A run that waits for the device while it is queued (a synchronisation inside it) would wait
/// for the hold: the hold then gives up at kTimeout and timed_out() says so.
class LaunchHold {
 public:
  /// The longest a hold waits for release(), in nanoseconds.
  static constexpr unsigned long long kTimeoutNs = 500'000'000;
  LaunchHold();
  ~LaunchHold();
  LaunchHold(const LaunchHold&) = delete;
  LaunchHold& operator=(const LaunchHold&) = delete;
  /// Queues the hold on the default stream.
  void hold();
  /// Lets the held stream go.
  void release();
  /// Whether a hold since the last check gave up waiting (and clears the record).
  bool timed_out();

 private:
  int* host_ = nullptr;    // pinned, mapped: [0] the release flag, [1] set by a hold that timed out
  int* device_ = nullptr;  // the same two ints as the device addresses them
};

/// The median, extremes and count of `samples_ms` (kept in order in the result).
/// @throws std::invalid_argument when there are no samples
TimingStats summarize_samples(std::vector<double> samples_ms);

/// Runs `launch` (which enqueues work on the default stream) as TimingOptions says and returns
/// the median of the timed runs. With `hold`, each run is queued behind a LaunchHold; if `launch`
/// waits for the device while it is queued, the hold times out, and the runs are made again
/// without it (`held` false). Errors inside `launch` propagate.
TimingStats time_kernel(const std::function<void()>& launch, const TimingOptions& options = {});

/// Overwrites the whole L2 cache (a memset of twice its size), so the next run starts cold.
void flush_l2_cache();

}  // namespace convlab
