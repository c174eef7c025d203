// The harness on a real GPU: the checking macro, guard bands, NaN poison, timing, ceilings.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "convlab/cuda_check.cuh"
#include "convlab/device_buffer.cuh"
#include "convlab/device_info.hpp"
#include "convlab/event_timer.cuh"
#include "convlab/library_check.hpp"

using namespace convlab;

namespace {

// A cuFFT call that fails without touching the library (the check needs only cufft.h).
cufftResult plan_that_fails() { return CUFFT_INVALID_PLAN; }

__global__ void write_at(float* p, long offset, float v) { p[offset] = v; }

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

}  // namespace

TEST_CASE("gpu: CUDA_CHECK names the call, the file and the line", "[gpu][harness]") {
  void* p = nullptr;
  const int line = __LINE__ + 2;
  try {
    CUDA_CHECK(cudaMalloc(&p, std::size_t{1} << 62));
    FAIL("no exception");
  } catch (const CudaError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("cudaMalloc(&p, std::size_t{1} << 62)"));
    CHECK_THAT(what, Catch::Contains("gpu_test_harness.cu:" + std::to_string(line)));
    CHECK_THAT(what, Catch::Contains("cudaErrorMemoryAllocation"));
    CHECK_FALSE(e.sticky());
  }
  cudaGetLastError();
}

TEST_CASE("gpu: a CUDA library's check names the library, the call, the file and line and its error", "[gpu][harness]") {
  const int line = __LINE__ + 2;
  try {
    CUFFT_CHECK(plan_that_fails());
    FAIL("no exception");
  } catch (const LibraryError& e) {
    const std::string what = e.what();
    CHECK(std::string(e.library()) == "cuFFT");
    CHECK(e.code() == static_cast<int>(CUFFT_INVALID_PLAN));
    CHECK_THAT(what, Catch::StartsWith("cuFFT error: plan_that_fails() failed at "));
    CHECK_THAT(what, Catch::Contains("gpu_test_harness.cu:" + std::to_string(line)));
    CHECK_THAT(what, Catch::EndsWith(": CUFFT_INVALID_PLAN (1)"));
  }
  CHECK_NOTHROW(CUFFT_CHECK(CUFFT_SUCCESS));
}

TEST_CASE("gpu: guard bands catch writes just outside a buffer", "[gpu][harness]") {
  DeviceBuffer<float> buf(1000);
  CHECK(buf.check_guards().clean());
  write_at<<<1, 1>>>(buf.data(), 999, 1.0f);  // last element: inside
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(buf.check_guards().clean());
  write_at<<<1, 1>>>(buf.data(), 1000, 1.0f);  // one past the end
  write_at<<<1, 1>>>(buf.data(), -3, 1.0f);    // three before the start
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  const GuardReport g = buf.check_guards();
  CHECK(g.after == 1);
  CHECK(g.before == 1);
  CHECK(g.first == -3);
  CHECK_THAT(g.describe("P"), Catch::Contains("out-of-bounds write"));
}

TEST_CASE("gpu: the NaN poison fills every element with the poison bits", "[gpu][harness]") {
  DeviceBuffer<float> buf(257);
  buf.fill_bytes(0xFF);
  std::vector<float> host(257);
  buf.download(host.data());
  for (float v : host) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    CHECK(bits == 0xFFFFFFFFu);
  }
  CHECK(buf.check_guards().clean());  // the poison stays inside
}

TEST_CASE("gpu: event timing sees a kernel's duration, and the median is of the runs", "[gpu][harness]") {
  const auto dev = query_device();
  REQUIRE(dev);
  const long long cycles = static_cast<long long>(dev->sm_clock_khz) * 2;  // ≈ 2 ms at the base clock
  EventTimer t;
  t.start();
  spin<<<1, 1>>>(cycles);
  CUDA_CHECK(cudaGetLastError());
  const float ms = t.stop();
  CHECK(ms > 0.5f);
  CHECK(ms < 50.f);
  const TimingStats s = time_kernel([&] { spin<<<1, 1>>>(cycles / 4); }, {1, 7, true, 10});
  CHECK(s.runs == 7);
  CHECK(s.min_ms <= s.median_ms);
  CHECK(s.median_ms <= s.max_ms);
}

TEST_CASE("gpu: a held run's time leaves out the host's work before its kernels start", "[gpu][harness]") {
  // 3 ms of host work before a kernel of a few microseconds: a library's per-call set-up, made long.
  const auto slow_to_queue = [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    spin<<<1, 1>>>(1000);
  };
  TimingOptions held;
  held.warmup = 1, held.repeats = 5;
  const TimingStats h = time_kernel(slow_to_queue, held);
  CHECK(h.held);
  CHECK(h.runs == 5);
  CHECK(h.median_ms < 1.0);
  TimingOptions unheld = held;
  unheld.hold = false;
  const TimingStats u = time_kernel(slow_to_queue, unheld);
  CHECK_FALSE(u.held);
  CHECK(u.median_ms > 2.5);  // the start event ran while the host slept
}

TEST_CASE("gpu: a run that waits for the device is timed unheld, and says so", "[gpu][harness]") {
  const auto waits = [] {
    spin<<<1, 1>>>(1000);
    CUDA_CHECK(cudaDeviceSynchronize());  // would wait on the hold: it gives up after kTimeoutNs
  };
  TimingOptions options;
  options.warmup = 1, options.repeats = 4;
  const auto t0 = std::chrono::steady_clock::now();
  const TimingStats s = time_kernel(waits, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK_FALSE(s.held);
  CHECK(s.runs == 4);
  CHECK(s.median_ms < 100.0);  // none of its samples is the hold's wait
  CHECK(seconds < 5 * LaunchHold::kTimeoutNs * 1e-9);  // one give-up, not one a run
  // The hold is usable again after giving up.
  const TimingStats again = time_kernel([] { spin<<<1, 1>>>(1000); }, options);
  CHECK(again.held);
}

TEST_CASE("gpu: a run that throws releases its hold, and the next timing is held", "[gpu][harness]") {
  TimingOptions options;
  options.warmup = 0, options.repeats = 3;
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(time_kernel([] { throw std::runtime_error("a method that fails"); }, options), std::runtime_error);
  CUDA_CHECK(cudaDeviceSynchronize());  // returns once the released hold has ended, not after kTimeoutNs
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(seconds < 0.5 * LaunchHold::kTimeoutNs * 1e-9);
  const TimingStats next = time_kernel([] { spin<<<1, 1>>>(1000); }, options);
  CHECK(next.held);
}

TEST_CASE("gpu: measured ceilings are plausible for a data-centre GPU", "[gpu][harness]") {
  const Ceilings c = measure_ceilings();
  INFO("copy " << c.copy_bytes_per_s / 1e9 << " GB/s, FMA " << c.fma_flops_per_s / 1e12 << " TFLOP/s");
  CHECK(c.copy_bytes_per_s > 100e9);
  CHECK(c.copy_bytes_per_s < 20e12);
  CHECK(c.fma_flops_per_s > 1e12);
  CHECK(c.fma_flops_per_s < 500e12);
  const auto device = query_device();
  REQUIRE(device);
  if (device->cc_major < 8) {
    CHECK(c.tf32_mma_flops_per_s == 0);
    CHECK(c.tf32_mma_k4_flops_per_s == 0);
    return;
  }
  INFO("TF32 mma.sync m16n8k8 " << c.tf32_mma_flops_per_s / 1e12 << " TFLOP/s, m16n8k4 "
                                << c.tf32_mma_k4_flops_per_s / 1e12);
  // Tensor cores pass the CUDA cores' FMAs; an m16n8k4 does half an m16n8k8's work in at least
  // half its time (an H200: two thirds), so its flops a second are at most the k8's.
  CHECK(c.tf32_mma_flops_per_s > 2 * c.fma_flops_per_s);
  CHECK(c.tf32_mma_k4_flops_per_s > 0.25 * c.tf32_mma_flops_per_s);
  CHECK(c.tf32_mma_k4_flops_per_s <= 1.05 * c.tf32_mma_flops_per_s);
}
