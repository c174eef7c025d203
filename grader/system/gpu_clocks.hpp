// The clocks of GPU 0 as nvidia-smi reports them, for `grader bench`: the clocks and power
// limit at one moment, and the SM and memory clocks sampled while a benchmark runs (the clocks
// its timings were taken at, not the idle ones). Without nvidia-smi each says "unavailable".
#pragma once

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace convlab::grader {

/// One nvidia-smi query of GPU 0: the given fields ("clocks.sm,clocks.mem"), as strings.
/// @returns empty when nvidia-smi is missing or fails.
std::vector<std::string> query_gpu(const std::string& fields);

/// {"sm_mhz", "sm_max_mhz", "memory_mhz", "memory_max_mhz", "power_limit_w"} now, or
/// {"unavailable": why}.
nlohmann::json nvidia_smi_clocks();

/// Samples the SM and memory clocks every two seconds on a thread of its own, from
/// construction until stop().
class ClockSampler {
 public:
  ClockSampler();
  ~ClockSampler();
  ClockSampler(const ClockSampler&) = delete;
  ClockSampler& operator=(const ClockSampler&) = delete;

  /// Ends the sampling. @returns {"samples", "sm_mhz_median", "sm_mhz_min", "sm_mhz_max",
  /// "memory_mhz_median"}, or {"unavailable": why} when no sample came.
  nlohmann::json stop();

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::vector<double> sm_, mem_;  // MHz, one per sample nvidia-smi gave
  std::thread thread_;            // last: it starts once the members above exist
};

}  // namespace convlab::grader
