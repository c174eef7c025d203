// CPU-only build: there is no GPU support compiled in, and every GPU query says so.
#include <algorithm>
#include <stdexcept>

#include "convlab/device_info.hpp"

namespace convlab {

std::string DeviceInfo::describe() const { return name; }

std::optional<DeviceInfo> query_device(std::string* why_not) {
  if (why_not) *why_not = "no GPU support: convlab was configured without CUDA (the cpu preset)";
  return std::nullopt;
}

int visible_device_count(std::string* why_not) {
  if (why_not) *why_not = "no GPU support: convlab was configured without CUDA (the cpu preset)";
  return 0;
}

Ceilings measure_ceilings() {
  throw std::runtime_error("no GPU support: convlab was configured without CUDA (the cpu preset)");
}

double roofline_seconds(double bytes, double flops, const Ceilings& c) {
  return std::max(bytes / c.copy_bytes_per_s, flops / c.fma_flops_per_s);
}

}  // namespace convlab
