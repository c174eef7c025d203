/// @file device_buffer.cuh
/// @brief DeviceBuffer<T>: an RAII device allocation with guard bands that catch writes just
///        outside it.
///
/// Layout in device memory (elements): `[guard | data (size) | guard]`. Guards are filled with
/// kGuardByte; check_guards() reports any guard element that changed, so an off-by-one row or
/// a missing bounds check in a kernel is caught even when it does not crash.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "convlab/cuda_check.cuh"

namespace convlab {

/// Byte written into guard bands (0xA5A5A5A5 as a float is -2.9e-16: not a value kernels make).
inline constexpr unsigned char kGuardByte = 0xA5;
/// Default guard width on each side, in elements (16 KiB of floats: several image rows).
inline constexpr std::size_t kDefaultGuardElements = 4096;

/// What check_guards() found.
struct GuardReport {
  std::size_t before = 0;        ///< guard elements overwritten before the data
  std::size_t after = 0;         ///< guard elements overwritten after the data
  std::ptrdiff_t first = 0;      ///< element offset of the first one, relative to data() (negative: before)
  std::vector<std::ptrdiff_t> offsets;  ///< every changed guard element's offset, as `first` (for error maps)
  /// True when no guard element changed.
  [[nodiscard]] bool clean() const { return before == 0 && after == 0; }
  /// "3 elements written before the buffer (first at offset -1) and 0 after".
  [[nodiscard]] std::string describe(const std::string& buffer_name) const;
};

/// Device memory for `size` elements of T between two guard bands.
template <class T>
class DeviceBuffer {
 public:
  /// Allocates `size` elements between two guard bands of `guard` elements each.
  explicit DeviceBuffer(std::size_t size, std::size_t guard = kDefaultGuardElements)
      : size_(size), guard_(guard) {
    CUDA_CHECK(cudaMalloc(&base_, bytes_total()));
    CUDA_CHECK(cudaMemset(base_, kGuardByte, bytes_total()));
  }
  ~DeviceBuffer() { cudaFree(base_); }  // no check: destructors must not throw
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  /// Takes over another buffer's allocation.
  DeviceBuffer(DeviceBuffer&& o) noexcept : base_(o.base_), size_(o.size_), guard_(o.guard_) {
    o.base_ = nullptr;
  }

  /// The first data element (past the front guard).
  [[nodiscard]] T* data() { return base_ + guard_; }
  /// The first data element (past the front guard).
  [[nodiscard]] const T* data() const { return base_ + guard_; }
  /// Data elements (guards excluded).
  [[nodiscard]] std::size_t size() const { return size_; }
  /// Data bytes (guards excluded).
  [[nodiscard]] std::size_t bytes() const { return size_ * sizeof(T); }

  /// Copies `size()` elements from the host.
  void upload(const T* host) {
    CUDA_CHECK(cudaMemcpy(data(), host, bytes(), cudaMemcpyHostToDevice));
  }
  /// Copies `size()` elements to the host.
  void download(T* host) const {
    CUDA_CHECK(cudaMemcpy(host, data(), bytes(), cudaMemcpyDeviceToHost));
  }
  /// Sets every byte of the data (not the guards), e.g. 0xFF for the NaN poison.
  void fill_bytes(unsigned char byte) { CUDA_CHECK(cudaMemset(data(), byte, bytes())); }

  /// Compares both guard bands with kGuardByte.
  [[nodiscard]] GuardReport check_guards() const {
    std::vector<unsigned char> host(guard_ * sizeof(T));
    GuardReport report;
    bool seen = false;
    auto scan = [&](const T* from, bool before) {
      CUDA_CHECK(cudaMemcpy(host.data(), from, host.size(), cudaMemcpyDeviceToHost));
      for (std::size_t e = 0; e < guard_; ++e) {
        bool changed = false;
        for (std::size_t b = 0; b < sizeof(T); ++b) changed |= host[e * sizeof(T) + b] != kGuardByte;
        if (!changed) continue;
        (before ? report.before : report.after)++;
        const std::ptrdiff_t off = before ? static_cast<std::ptrdiff_t>(e) - static_cast<std::ptrdiff_t>(guard_)
                                          : static_cast<std::ptrdiff_t>(size_ + e);
        report.offsets.push_back(off);
        if (!seen) { report.first = off; seen = true; }
      }
    };
    scan(base_, true);
    scan(base_ + guard_ + size_, false);
    return report;
  }

 private:
  [[nodiscard]] std::size_t bytes_total() const { return (size_ + 2 * guard_) * sizeof(T); }
  T* base_ = nullptr;
  std::size_t size_;
  std::size_t guard_;
};

}  // namespace convlab
