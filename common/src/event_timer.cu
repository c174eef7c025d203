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
  mark_stop(stream);
  return elapsed_ms();
}

void EventTimer::mark_stop(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(stop_, stream)); }

float EventTimer::elapsed_ms() {
  CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

namespace {

// flag[0]: released by the host; flag[1]: set here on giving up. Polled with a pause between
// reads: each read crosses to host memory.
__global__ void hold_until_released(const volatile int* flag, int* timed_out, unsigned long long timeout_ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (flag[0] == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
    __nanosleep(1000);
  }
}

}  // namespace

LaunchHold::LaunchHold() {
  CUDA_CHECK(cudaHostAlloc(&host_, 2 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  CUDA_CHECK(cudaHostGetDevicePointer(&device_, host_, 0));
  host_[0] = host_[1] = 0;
}

LaunchHold::~LaunchHold() { cudaFreeHost(host_); }

void LaunchHold::hold() {
  __atomic_store_n(&host_[0], 0, __ATOMIC_SEQ_CST);
  hold_until_released<<<1, 1>>>(device_, device_ + 1, kTimeoutNs);
  CUDA_CHECK(cudaGetLastError());
}

void LaunchHold::release() { __atomic_store_n(&host_[0], 1, __ATOMIC_SEQ_CST); }

bool LaunchHold::timed_out() { return __atomic_exchange_n(&host_[1], 0, __ATOMIC_SEQ_CST) != 0; }

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
  EventTimer timer;
  static LaunchHold* const held = new LaunchHold;  // for the process's life: its pinned memory is not free to make
  LaunchHold* hold = options.hold ? held : nullptr;
  if (hold) hold->timed_out();  // a give-up of an earlier call's hold (ended: the device is idle) is not this one's
  std::vector<double> samples_ms;
  double spent_ms = 0;
  for (int i = 0; i < options.repeats; ++i) {
    if (hold) hold->hold();
    try {
      if (options.flush_l2) flush_l2_cache();
      timer.start();
      launch();
      timer.mark_stop();
    } catch (...) {
      if (hold) hold->release();  // the queued work may then end, and the error propagates
      throw;
    }
    if (hold) hold->release();
    const double ms = timer.elapsed_ms();
    if (hold && hold->timed_out()) {  // launch waited on the device: time it as it runs, unheld
      hold = nullptr, samples_ms.clear(), spent_ms = 0, i = -1;
      continue;
    }
    samples_ms.push_back(ms);
    spent_ms += ms;
    if (i >= 2 && spent_ms > options.max_seconds * 1e3) break;
  }
  TimingStats stats = summarize_samples(std::move(samples_ms));
  stats.held = hold != nullptr;
  return stats;
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
