/// @file lab07_config.hpp
/// @brief Lab 07's configurations on the host: what a kernel of the register-tiling family is
///        (TileConfig), the compiled-in defaults and the NVRTC name of an instantiation.
///
/// Pure C++ (no CUDA), one source of truth like lab_config.hpp: the lab's launchers, the
/// autotuner (common/src/autotune/, grader/tune/), the analysis model and the CPU tests all read it. The kernel
/// itself is register_tiling_kernel.cuh in the lab's folder.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "convlab/ceil_div.hpp"
#include "convlab/device_info.hpp"
#include "convlab/mask_widths.hpp"

namespace convlab::lab07 {

/// Where a thread's input window comes from (the paper's two layouts).
enum class InputPath : int {
  global = 0,  ///< global→register: every thread loads its window through L1/L2
  shared = 1,  ///< shared→register: the block loads its tile to shared memory first
};

/// How the mask reaches the threads (the talk's two ways).
enum class FilterPath : int {
  constant = 0,  ///< __constant__ memory: constant-bank FFMA operands (a D2D copy per launch)
  shfl = 1,      ///< each lane holds ⌈K²/32⌉ taps; __shfl_sync broadcasts one per use
  loaded = 2,    ///< each tap loaded from global memory into a register, used OX times (step 2;
                 ///< the autotuner's sweep does not try it)
};

/// How the kernel walks the rows of a thread's window.
enum class RowLoop : int {
  unrolled = 0,  ///< unrolled as well: every index a constant, code size ∝ OX·OY·K²
  rolled = 1,    ///< a run-time loop, one row prefetched into a second register buffer
};

/// "global" or "shared", as in tables and file names.
inline const char* input_name(InputPath p) { return p == InputPath::global ? "global" : "shared"; }
/// "constant", "shfl" or "loaded".
inline const char* filter_name(FilterPath f) {
  return f == FilterPath::constant ? "constant" : (f == FilterPath::shfl ? "shfl" : "loaded");
}
/// "unrolled" or "rolled".
inline const char* rows_name(RowLoop r) { return r == RowLoop::unrolled ? "unrolled" : "rolled"; }

/// The mask widths lab 07 supports: 2..7 (the paper) and odd 9..17 (the talk).
inline constexpr MaskWidths supported_mask_widths() { return kRegisterTilingMaskWidths; }
/// True when lab 07 supports mask width k.
inline constexpr bool mask_supported(int k) { return kRegisterTilingMaskWidths.contains(k); }

/// Static shared memory a block may use (the kernel's tile is a static array).
inline constexpr int kStaticSharedLimit = 48 * 1024;

/// One member of the kernel family (the template arguments that matter for tuning).
struct TileConfig {
  int mask_width = 3;  ///< K
  int out_x = 4;       ///< OX, outputs per thread in x
  int out_y = 4;       ///< OY, outputs per thread in y
  int block_x = 32;    ///< BX, threads per block in x
  int block_y = 4;     ///< BY, threads per block in y
  InputPath input = InputPath::global;        ///< where the input window comes from
  FilterPath filter = FilterPath::constant;   ///< how the mask reaches the threads
  RowLoop rows = RowLoop::unrolled;           ///< how the window's rows are walked

  /// Width of the vector loads and stores when the image allows them: 4, 2 or 1 floats.
  [[nodiscard]] constexpr int vector_width() const { return out_x % 4 == 0 ? 4 : (out_x % 2 == 0 ? 2 : 1); }

  /// Shared-memory bytes of a block (0 on the global path); mirrors TileGeometry.
  [[nodiscard]] constexpr int shared_bytes(bool vec) const {
    if (input != InputPath::shared) return 0;
    const int vw = vec ? vector_width() : 1;
    const int r = (mask_width - 1) / 2;
    const int rr = mask_width - 1 - r;
    const int left = ceil_div(r, vw);
    const int chunks = left + (block_x * out_x - 1 + rr) / vw + 1;
    const int rows = block_y * out_y + mask_width - 1;
    return rows * (chunks + 1) * vw * 4;
  }

  /// Empty when the kernel can be built with these values, else why not (mirrors its
  /// static_asserts, so that the tuner never hands NVRTC a configuration that cannot compile).
  [[nodiscard]] std::string check() const {
    if (mask_width < 1 || mask_width > 17) return fmt::format("mask width {} outside 1..17", mask_width);
    if (out_x < 1 || out_x > 32 || out_y < 1 || out_y > 32) {
      return fmt::format("outputs per thread {}x{} outside 1..32", out_x, out_y);
    }
    if (block_x < 1 || block_y < 1) return "empty block";
    if (block_x > 1024 || block_y > 1024) {  // before the product, which could overflow
      return fmt::format("block {}x{} is not a whole number of warps up to 1024 threads", block_x, block_y);
    }
    const int threads = block_x * block_y;
    if (threads % 32 != 0 || threads > 1024) {
      return fmt::format("block {}x{} is not a whole number of warps up to 1024 threads", block_x, block_y);
    }
    if (shared_bytes(true) > kStaticSharedLimit || shared_bytes(false) > kStaticSharedLimit) {
      return fmt::format("shared tile of {} bytes above the {} of static shared memory",
                         std::max(shared_bytes(true), shared_bytes(false)), kStaticSharedLimit);
    }
    return "";
  }

  /// "8x4 out/thread, 32x4 threads, global->register, constant filter, rolled rows".
  [[nodiscard]] std::string describe() const {
    return fmt::format("{}x{} out/thread, {}x{} threads, {}->register, {} filter, {} rows", out_x, out_y, block_x,
                       block_y, input_name(input), filter_name(filter), rows_name(rows));
  }
  /// "k17_8x4_b32x4_global_constant_rolled": a file-name-safe key.
  [[nodiscard]] std::string key() const {
    return fmt::format("k{}_{}x{}_b{}x{}_{}_{}_{}", mask_width, out_x, out_y, block_x, block_y, input_name(input),
                       filter_name(filter), rows_name(rows));
  }
  /// Same configuration, field by field.
  friend constexpr bool operator==(const TileConfig& a, const TileConfig& b) {
    return a.mask_width == b.mask_width && a.out_x == b.out_x && a.out_y == b.out_y && a.block_x == b.block_x &&
           a.block_y == b.block_y && a.input == b.input && a.filter == b.filter && a.rows == b.rows;
  }
  /// Not the same configuration.
  friend constexpr bool operator!=(const TileConfig& a, const TileConfig& b) { return !(a == b); }
};

/// The README's steps (labs/07-register-tiling/README.md) a configuration's kernel calls: step 2
/// (the patch) always, its filter path's (3 shfl, 4 constant, 2 loaded) and its input path's
/// (5 shared, 2 global). The launcher runs a configuration only when all of them are written.
inline constexpr std::array<int, 3> steps_of(const TileConfig& c) {
  const int filter = c.filter == FilterPath::shfl ? 3 : (c.filter == FilterPath::constant ? 4 : 2);
  const int input = c.input == InputPath::shared ? 5 : 2;
  return {2, filter, input};
}

/// One instantiation: a configuration plus the two switches that are not tuned.
struct KernelVariant {
  TileConfig config;           ///< the tuned template arguments
  bool vec = true;             ///< VW-wide loads/stores (width % VW == 0, aligned pointers)
  bool runtime_inner = false;  ///< the talk's run-time innermost loop (for the comparison only)
};

/// The NVRTC name expression (and C++ name) of an instantiation,
/// "convlab::lab07::register_tiled<17, 8, 4, 32, 4, 0, 0, 1, true, false>".
inline std::string kernel_name(const KernelVariant& v) {
  const TileConfig& c = v.config;
  // With one-float loads the two values of VEC build the same kernel: name one of them.
  const bool vec = v.vec && c.vector_width() > 1;
  return fmt::format("convlab::lab07::register_tiled<{}, {}, {}, {}, {}, {}, {}, {}, {}, {}>", c.mask_width, c.out_x,
                     c.out_y, c.block_x, c.block_y, static_cast<int>(c.input), static_cast<int>(c.filter),
                     static_cast<int>(c.rows), vec ? "true" : "false", v.runtime_inner ? "true" : "false");
}

/// The configurations compiled into solution07 (one per mask width): the autotuner's choice on
/// an NVIDIA H200 (`grader tune`, see labs/07-register-tiling/README.md). Any other
/// configuration, from a tuning file, is compiled by NVRTC when first used.
inline constexpr TileConfig kDefaultConfigs[] = {
    {2, 2, 3, 128, 1, InputPath::global, FilterPath::shfl, RowLoop::unrolled},
    {3, 4, 3, 64, 2, InputPath::global, FilterPath::shfl, RowLoop::unrolled},
    {4, 4, 4, 32, 8, InputPath::global, FilterPath::shfl, RowLoop::unrolled},
    {5, 4, 6, 64, 2, InputPath::global, FilterPath::shfl, RowLoop::unrolled},
    {6, 4, 8, 32, 2, InputPath::global, FilterPath::shfl, RowLoop::unrolled},
    {7, 4, 8, 32, 2, InputPath::global, FilterPath::shfl, RowLoop::unrolled},
    {9, 12, 2, 32, 8, InputPath::global, FilterPath::constant, RowLoop::unrolled},
    {11, 12, 2, 32, 4, InputPath::global, FilterPath::constant, RowLoop::rolled},
    {13, 12, 2, 32, 2, InputPath::global, FilterPath::constant, RowLoop::rolled},
    {15, 12, 2, 32, 2, InputPath::global, FilterPath::constant, RowLoop::rolled},
    {17, 12, 2, 32, 4, InputPath::global, FilterPath::constant, RowLoop::rolled},
};

/// True when `c` is one of the configurations compiled into the launchers (kDefaultConfigs):
/// those are never compiled at run time.
constexpr bool compiled_in(const TileConfig& c) {
  for (const TileConfig& d : kDefaultConfigs) {
    if (d == c) return true;
  }
  return false;
}

/// A variant of the lab (common/src/lab_mains/lab07.cpp) and the path it forces on the tuned
/// configuration ("": none, the tuned configuration itself).
struct VariantRole {
  const char* variant;  ///< its name in the reports
  const char* role;     ///< the path it forces ("" for the tuned choice)
};
/// Every variant of lab 07: the tuned choice and the talk's and the paper's comparisons.
inline constexpr VariantRole kVariantRoles[] = {
    {"register_tiled", ""}, {"shfl_filter", "shfl"}, {"constant_filter", "constant"}, {"shared_input", "shared"}};

/// The compiled-in default for mask width k, or nullptr if k is not supported.
inline const TileConfig* default_config(int k) {
  for (const TileConfig& c : kDefaultConfigs) {
    if (c.mask_width == k) return &c;
  }
  return nullptr;
}

/// `c` moved onto the path a role names ("shfl", "constant": the filter path; "loaded": step 2's
/// loaded filter on the global input path; "global",
/// "shared": the input path), for the lab's comparison variants when the tuning file has no
/// configuration of that role. A shared tile that outgrows static shared memory is shrunk (the
/// block first, then the outputs per thread) until it fits.
inline TileConfig force_path(TileConfig c, const std::string& role) {
  if (role == "shfl") c.filter = FilterPath::shfl;
  else if (role == "constant") c.filter = FilterPath::constant;
  else if (role == "loaded") {  // step 2's kernel: global→register, each tap loaded
    c.filter = FilterPath::loaded;
    c.input = InputPath::global;
  }
  else if (role == "global") c.input = InputPath::global;
  else if (role == "shared") c.input = InputPath::shared;
  while (!c.check().empty() && c.input == InputPath::shared) {
    if (c.block_y > 1) c.block_y /= 2;
    else if (c.out_y > 1) c.out_y /= 2;
    else if (c.block_x > 32) c.block_x /= 2;
    else if (c.out_x > 1) c.out_x /= 2;
    else break;
  }
  return c;
}

}  // namespace convlab::lab07
