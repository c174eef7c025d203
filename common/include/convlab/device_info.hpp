/// @file device_info.hpp
/// @brief What GPU is present, and the measured ceilings (copy bandwidth, FMA rate) that
///        the roofline of every report uses. Callable from CPU-only code: without CUDA,
///        query_device() explains why there is no device.
#pragma once

#include <optional>
#include <string>

namespace convlab {

/// Properties of the GPU in use.
struct DeviceInfo {
  int index = 0;                   ///< CUDA device ordinal
  std::string name;                ///< e.g. "NVIDIA H200"
  int cc_major = 0;                ///< compute capability, major
  int cc_minor = 0;                ///< compute capability, minor
  int sm_count = 0;                ///< streaming multiprocessors
  long long global_memory_bytes = 0;           ///< device memory
  long long l2_bytes = 0;                      ///< L2 cache size
  long long shared_memory_per_sm = 0;          ///< shared memory per SM
  long long shared_memory_per_block_optin = 0; ///< most shared memory one block may opt into
  int max_threads_per_sm = 0;      ///< resident threads per SM
  int sm_clock_khz = 0;            ///< SM clock the driver reports
  int memory_clock_khz = 0;        ///< memory clock the driver reports
  int memory_bus_bits = 0;         ///< memory bus width
  std::string driver;              ///< "13.0" style driver API version
  std::string runtime;             ///< runtime version
  std::string pci_bus_id;          ///< "0000:3B:00.0": which /dev/nvidiaN it is (the grader's sandbox)
  /// "NVIDIA H200 (sm_90, 132 SMs, 141 GB)".
  [[nodiscard]] std::string describe() const;
};

/// The first GPU, or nullopt with the reason in `why_not` ("no CUDA-capable device is
/// detected", "convlab was built without CUDA", ...).
std::optional<DeviceInfo> query_device(std::string* why_not = nullptr);

/// How many GPUs this process sees (CUDA_VISIBLE_DEVICES applies); 0 with the reason in
/// `why_not` when there is none.
int visible_device_count(std::string* why_not = nullptr);

/// Ceilings measured on the GPU now: the roofline's two slopes.
struct Ceilings {
  double copy_bytes_per_s = 0;  ///< device-to-device copy (the better of a float4 kernel and cudaMemcpy), bytes read + written per second
  double fma_flops_per_s = 0;   ///< fp32 FMA loop, 2 flops per FMA
  double tf32_mma_flops_per_s = 0;  ///< TF32 `mma.sync.m16n8k8` loop, 2 flops per multiply-add; 0 before compute capability 8.0
  double tf32_mma_k4_flops_per_s = 0;  ///< the same loop of `mma.sync.m16n8k4` (half the depth: lab 08's half k-step); 0 before 8.0
};

/// Measures Ceilings (about a second of GPU time). @throws std::runtime_error without a GPU.
Ceilings measure_ceilings();

/// A GPU's name as a folder name: "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3" (lower
/// case, each run of other characters one '-'; "unknown-gpu" when nothing is left). Results of
/// the autotuner and the benchmarks are filed under it.
inline std::string device_slug(const std::string& name) {
  std::string s;
  for (const char ch : name) {
    const auto u = static_cast<unsigned char>(ch);
    if ((u >= '0' && u <= '9') || (u >= 'a' && u <= 'z')) s += ch;
    else if (u >= 'A' && u <= 'Z') s += static_cast<char>(u - 'A' + 'a');
    else if (!s.empty() && s.back() != '-') s += '-';
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s.empty() ? "unknown-gpu" : s;
}

/// Roofline time in seconds: `max(bytes / BW, flops / F)`.
double roofline_seconds(double bytes, double flops, const Ceilings& c);

}  // namespace convlab
