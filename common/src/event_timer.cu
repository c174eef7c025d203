#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "convlab/cuda_check.cuh"
#include "convlab/event_timer.cuh"

namespace convlab {

EventTimer::EventTimer() {
  CUDA_CHECK(cudaEventCreate(&start_));
  CUDA_CHECK(cudaEventCreate(&stop_));
}

EventTimer::~EventTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

void EventTimer::start(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(start_, stream)); }

float EventTimer::stop(cudaStream_t stream) {
  CUDA_CHECK(cudaEventRecord(stop_, stream));
  CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

void flush_l2_cache() {
  // Held for the life of the process: allocating per call would itself cost more than the flush.
  static void* scratch = nullptr;
  static std::size_t bytes = 0;
  if (scratch == nullptr) {
    int device = 0;
    int l2 = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    bytes = std::max<std::size_t>(2 * static_cast<std::size_t>(l2), 8u << 20);
    CUDA_CHECK(cudaMalloc(&scratch, bytes));
  }
  CUDA_CHECK(cudaMemsetAsync(scratch, 0, bytes));
}

TimingStats time_kernel(const std::function<void()>& launch, const TimingOptions& options) {
  for (int i = 0; i < options.warmup; ++i) launch();
  CUDA_CHECK(cudaDeviceSynchronize());
  TimingStats stats;
  EventTimer timer;
  double spent_ms = 0;
  for (int i = 0; i < options.repeats; ++i) {
    if (options.flush_l2) flush_l2_cache();
    timer.start();
    launch();
    const double ms = timer.stop();
    stats.samples_ms.push_back(ms);
    spent_ms += ms;
    if (i >= 2 && spent_ms > options.max_seconds * 1e3) break;
  }
  return summarize_samples(std::move(stats.samples_ms));
}

TimingStats summarize_samples(std::vector<double> samples_ms) {
  if (samples_ms.empty()) throw std::invalid_argument("no timed runs to summarize");
  TimingStats stats;
  stats.samples_ms = std::move(samples_ms);
  std::vector<double> sorted = stats.samples_ms;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  stats.runs = static_cast<int>(n);
  stats.min_ms = sorted.front();
  stats.max_ms = sorted.back();
  stats.median_ms = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  return stats;
}

}  // namespace convlab
