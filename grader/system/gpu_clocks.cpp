#include "system/gpu_clocks.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "system/subprocess.hpp"
#include "system/tool_paths.hpp"

namespace convlab::grader {

using nlohmann::json;

std::vector<std::string> query_gpu(const std::string& fields) {
  const auto smi = find_tool("nvidia-smi");
  if (!smi) return {};
  const ProcessResult r = run_process({smi->string(), "--query-gpu=" + fields, "--format=csv,noheader,nounits", "-i", "0"},
                                      std::chrono::seconds(30));
  if (r.exit_code != 0) return {};
  std::vector<std::string> f;
  std::stringstream line(r.output.substr(0, r.output.find('\n')));
  std::string field;
  while (std::getline(line, field, ',')) {
    const auto a = field.find_first_not_of(' '), b = field.find_last_not_of(" \r");
    f.push_back(a == std::string::npos ? "" : field.substr(a, b - a + 1));
  }
  return f;
}

json nvidia_smi_clocks() {
  if (!find_tool("nvidia-smi")) return {{"unavailable", "nvidia-smi not found"}};
  const auto f = query_gpu("clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit");
  if (f.size() != 5) return {{"unavailable", "nvidia-smi did not answer the clock query"}};
  return {{"sm_mhz", f[0]}, {"sm_max_mhz", f[1]}, {"memory_mhz", f[2]}, {"memory_max_mhz", f[3]}, {"power_limit_w", f[4]}};
}

ClockSampler::ClockSampler() : thread_([this] { loop(); }) {}

ClockSampler::~ClockSampler() { stop(); }

json ClockSampler::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (sm_.empty()) return {{"unavailable", "nvidia-smi gave no samples"}};
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  return {{"samples", sm_.size()},
          {"sm_mhz_median", median(sm_)},
          {"sm_mhz_min", *std::min_element(sm_.begin(), sm_.end())},
          {"sm_mhz_max", *std::max_element(sm_.begin(), sm_.end())},
          {"memory_mhz_median", median(mem_)}};
}

void ClockSampler::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!done_) {
    lock.unlock();
    const auto f = query_gpu("clocks.sm,clocks.mem");
    lock.lock();
    if (f.size() == 2) {
      try {
        sm_.push_back(std::stod(f[0]));
        mem_.push_back(std::stod(f[1]));
      } catch (const std::exception&) {
        // a sample nvidia-smi could not give ("[N/A]") is left out
      }
    }
    wake_.wait_for(lock, std::chrono::seconds(2), [this] { return done_; });
  }
}

}  // namespace convlab::grader
