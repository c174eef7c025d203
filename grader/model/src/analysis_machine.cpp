// Machine balance: the lecture's bytes per flop and percentage of peak, the roofline, the
// talk's break-even mask width and load/store bounds, the paper's bandwidth bound, and the
// conv-layer lecture's im2col replication. Each is one line of arithmetic; the point of
// having them here is that the tables and the tests use the same line.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "convlab/analysis.hpp"

namespace convlab::analysis {

namespace {
constexpr double kFlopsPerFma = 2.0;
}

int max_resident_threads_per_sm(int major, int minor) {
  if (major == 2) return 1536;
  if (major == 3) return 2048;
  if (major == 8 && minor == 0) return 2048;
  if (major == 8 && (minor == 6 || minor == 9)) return 1536;
  if (major == 9 && minor == 0) return 2048;
  throw std::out_of_range("max_resident_threads_per_sm: compute capability " + std::to_string(major) + "." +
                          std::to_string(minor) + " is not listed");
}

double untiled_bytes_per_flop() {
  // One 4-byte input per multiply-add; the mask value comes from the constant cache.
  return kBytesPerFloat / kFlopsPerFma;
}

double bandwidth_limited_flops(const Machine& m, double reuse) {
  return reuse * m.bytes_per_s / untiled_bytes_per_flop();
}

double percent_of_peak(const Machine& m, double reuse) {
  return std::min(100.0, 100.0 * bandwidth_limited_flops(m, reuse) / m.flops_per_s);
}

double reuse_for_peak(const Machine& m) { return m.flops_per_s / bandwidth_limited_flops(m, 1.0); }

double roofline_flops(const Machine& m, double flops_per_byte) {
  return std::min(m.flops_per_s, flops_per_byte * m.bytes_per_s);
}

double floats_per_second(const Machine& m) { return m.bytes_per_s / kBytesPerFloat; }

double flops_per_float(const Machine& m) { return m.flops_per_s / floats_per_second(m); }

double break_even_mask_width(const Machine& m, double floats_per_output) {
  // 2·K² flops per output = flops_per_float · floats_per_output.
  return std::sqrt(flops_per_float(m) * floats_per_output / kFlopsPerFma);
}

double utilization_bound(double loads_per_fma, double fma_per_ldst) {
  return std::min(1.0, 1.0 / (loads_per_fma * fma_per_ldst));
}

double register_blocking_fma_per_load(int mask_width, int outputs) {
  // n outputs along a row need n + K - 1 inputs of each mask row and n·K FMAs.
  return static_cast<double>(outputs) * mask_width / (outputs + mask_width - 1);
}

double bandwidth_bound_seconds(long long pixels, double bytes_per_s) {
  return 2.0 * kBytesPerFloat * static_cast<double>(pixels) / bytes_per_s;
}

double percent_of_bandwidth_bound(double seconds, long long pixels, double bytes_per_s) {
  return 100.0 * bandwidth_bound_seconds(pixels, bytes_per_s) / seconds;
}

Im2colTraffic im2col_traffic(const ConvLayerShape& layer) {
  layer.validate();
  Im2colTraffic t;
  t.original_elements = static_cast<long long>(layer.input_elements());
  t.unrolled_elements = static_cast<long long>(layer.batch) * layer.channels * layer.mask_width *
                        layer.mask_width * layer.out_height() * layer.out_width();
  t.replication = static_cast<double>(t.unrolled_elements) / static_cast<double>(t.original_elements);
  t.extra_bytes = 2.0 * kBytesPerFloat * static_cast<double>(t.unrolled_elements);
  return t;
}

}  // namespace convlab::analysis
