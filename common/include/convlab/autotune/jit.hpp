/// @file jit.hpp
/// @brief Run-time compilation of lab 07's kernel family: NVRTC turns one instantiation of
///        register_tiling_kernel.cuh into a cubin for the GPU in the machine, the driver API
///        loads and launches it. Used by the lab's and the solution's launchers (through
///        TunedDispatch, for configurations they were not compiled with) and by the autotuner
///        (`grader tune`, for every configuration it tries), each on its own kernel source.
///
/// Compiled cubins are kept in a small disk cache (key: source text, instantiation, target,
/// NVRTC version), so a configuration costs its compile time once per machine, not per process.
#pragma once

#include <cuda_runtime.h>
#include <nvrtc.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "convlab/atomic_file.hpp"
#include "convlab/ceil_div.hpp"
#include "convlab/cuda_check.cuh"
#include "convlab/library_check.hpp"
#include "convlab/lab_api.cuh"
#include "convlab/autotune/kernel_source.hpp"
#include "convlab/autotune/ptxas_report.hpp"
#include "convlab/lab07_config.hpp"

namespace convlab::lab07 {

/// A failed run-time compilation; what() holds the NVRTC log.
class JitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Environment variable naming the cubin cache folder; "off" disables the cache.
inline constexpr const char* kCacheEnv = "CONVLAB_LAB07_CACHE";

/// One compiled instantiation.
struct CompiledCubin {
  std::string name_expression;  ///< kernel_name(variant)
  std::string lowered_name;     ///< its mangled name in the cubin
  std::string mask_symbol;      ///< mangled name of c_mask
  std::vector<char> cubin;
  std::string log;              ///< NVRTC's log, with ptxas's resource report
  ResourceUsage usage;          ///< parsed from the log
  double seconds = 0;           ///< compile time (0 when it came from the cache)
  bool from_cache = false;
  std::string cache_name;       ///< its files' name in a cache folder (<name>.cubin, <name>.json)
};

/// The cache folder: $CONVLAB_LAB07_CACHE ("off": none), else `fallback`.
inline std::filesystem::path cache_dir(const std::filesystem::path& fallback) {
  if (const char* p = std::getenv(kCacheEnv); p != nullptr && *p != '\0') {
    return std::string(p) == "off" ? std::filesystem::path() : std::filesystem::path(p);
  }
  return fallback;
}

namespace detail {

inline bool read_cached(const std::filesystem::path& base, CompiledCubin& out) {
  std::ifstream meta(base.string() + ".json");
  std::ifstream bin(base.string() + ".cubin", std::ios::binary);
  if (!meta || !bin) return false;
  try {
    const nlohmann::json j = nlohmann::json::parse(meta);
    if (j.at("name_expression").get<std::string>() != out.name_expression) return false;  // hash collision
    out.lowered_name = j.at("lowered_name").get<std::string>();
    out.mask_symbol = j.at("mask_symbol").get<std::string>();
    out.log = j.at("log").get<std::string>();
  } catch (const std::exception&) {
    return false;
  }
  out.cubin.assign(std::istreambuf_iterator<char>(bin), std::istreambuf_iterator<char>());
  out.from_cache = !out.cubin.empty();
  return out.from_cache;
}

inline void write_cached(const std::filesystem::path& base, const CompiledCubin& c) {
  // Best effort: a cache that cannot be written only costs compile time.
  std::error_code ec;
  std::filesystem::create_directories(base.parent_path(), ec);
  if (ec) return;
  try {
    write_file_atomically(base.string() + ".cubin", std::string_view(c.cubin.data(), c.cubin.size()));
    write_file_atomically(base.string() + ".json",
                          nlohmann::json{{"name_expression", c.name_expression}, {"lowered_name", c.lowered_name},
                                         {"mask_symbol", c.mask_symbol}, {"log", c.log}}.dump(1));
  } catch (const std::runtime_error&) {
  }
}

}  // namespace detail

/// Compiles one instantiation of the kernel for sm_<cc_major><cc_minor>, with ptxas's resource
/// report in the log. Thread-safe (the autotuner compiles on several threads). Looks first in
/// `precompiled` (read only: the build's folder, precompile.hpp), then in `cache`, where a new
/// compilation is kept.
/// @throws JitError with NVRTC's log when the compilation fails.
inline CompiledCubin compile_variant(const std::string& source, const KernelVariant& v, int cc_major, int cc_minor,
                                     const std::filesystem::path& cache = {},
                                     const std::filesystem::path& precompiled = {}) {
  CompiledCubin out;
  out.name_expression = kernel_name(v);
  const std::string arch = fmt::format("--gpu-architecture=sm_{}{}", cc_major, cc_minor);
  const std::vector<std::string> options{arch, "-std=c++17", "-Xptxas=-v", "-lineinfo", "--fmad=true"};
  int nv_major = 0;
  int nv_minor = 0;
  NVRTC_CHECK(nvrtcVersion(&nv_major, &nv_minor));

  std::string key = source + '\0' + out.name_expression + '\0' + fmt::format("nvrtc {}.{}", nv_major, nv_minor);
  for (const std::string& o : options) key += '\0' + o;
  const std::string file = fmt::format("{:016x}", fnv1a(key));
  out.cache_name = file;
  for (const std::filesystem::path& folder : {precompiled, cache}) {
    if (!folder.empty() && detail::read_cached(folder / file, out)) {
      out.usage = parse_ptxas_report(out.log, out.lowered_name);
      return out;
    }
  }
  const std::filesystem::path cached = cache.empty() ? std::filesystem::path() : cache / file;

  const auto t0 = std::chrono::steady_clock::now();
  nvrtcProgram prog = nullptr;
  NVRTC_CHECK(nvrtcCreateProgram(&prog, source.c_str(), "register_tiling_kernel.cuh", 0, nullptr, nullptr));
  struct Guard {
    nvrtcProgram* p;
    ~Guard() { nvrtcDestroyProgram(p); }
  } guard{&prog};
  NVRTC_CHECK(nvrtcAddNameExpression(prog, out.name_expression.c_str()));
  NVRTC_CHECK(nvrtcAddNameExpression(prog, "&convlab::lab07::c_mask"));
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  const nvrtcResult rc = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  std::size_t log_size = 0;
  NVRTC_CHECK(nvrtcGetProgramLogSize(prog, &log_size));
  out.log.resize(log_size);
  if (log_size > 0) NVRTC_CHECK(nvrtcGetProgramLog(prog, out.log.data()));
  while (!out.log.empty() && out.log.back() == '\0') out.log.pop_back();
  if (rc != NVRTC_SUCCESS) {
    throw JitError(fmt::format("NVRTC could not compile {}: {}\n{}", out.name_expression, nvrtcGetErrorString(rc),
                               out.log));
  }
  const char* lowered = nullptr;
  NVRTC_CHECK(nvrtcGetLoweredName(prog, out.name_expression.c_str(), &lowered));
  out.lowered_name = lowered;
  NVRTC_CHECK(nvrtcGetLoweredName(prog, "&convlab::lab07::c_mask", &lowered));
  out.mask_symbol = lowered;
  std::size_t size = 0;
  NVRTC_CHECK(nvrtcGetCUBINSize(prog, &size));
  out.cubin.resize(size);
  NVRTC_CHECK(nvrtcGetCUBIN(prog, out.cubin.data()));
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.usage = parse_ptxas_report(out.log, out.lowered_name);
  if (!cached.empty()) detail::write_cached(cached, out);
  return out;
}

/// Launch geometry of a configuration on an image: (⌈W/(BX·OX)⌉, ⌈H/(BY·OY)⌉) blocks of BX×BY.
inline void grid_for(const TileConfig& c, int height, int width, unsigned (&grid)[2], unsigned (&block)[2]) {
  grid[0] = static_cast<unsigned>(ceil_div(width, c.block_x * c.out_x));
  grid[1] = static_cast<unsigned>(ceil_div(height, c.block_y * c.out_y));
  block[0] = static_cast<unsigned>(c.block_x);
  block[1] = static_cast<unsigned>(c.block_y);
}

/// True when the VW-wide path may run on these arguments: the width is a multiple of VW and
/// both images start on a VW·4-byte boundary (then every row does, and every chunk is whole).
inline bool vector_path_ok(const TileConfig& c, const Conv2dArgs& a) {
  const int vw = c.vector_width();
  if (vw == 1) return false;
  const auto align = static_cast<std::uintptr_t>(4 * vw);
  return a.width % vw == 0 && reinterpret_cast<std::uintptr_t>(a.N) % align == 0 &&
         reinterpret_cast<std::uintptr_t>(a.P) % align == 0;
}

/// A compiled instantiation, loaded and ready to launch.
class LoadedKernel {
 public:
  LoadedKernel(const CompiledCubin& c, const KernelVariant& v) : variant_(v), usage_(c.usage) {
    CUDA_CHECK(cudaLibraryLoadData(&library_, c.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    CUDA_CHECK(cudaLibraryGetKernel(&kernel_, library_, c.lowered_name.c_str()));
    CUDA_CHECK(cudaLibraryGetGlobal(&mask_, &mask_bytes_, library_, c.mask_symbol.c_str()));
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel_)));
    registers_ = attr.numRegs;
    local_bytes_ = static_cast<int>(attr.localSizeBytes);
    shared_bytes_ = static_cast<int>(attr.sharedSizeBytes);
  }
  ~LoadedKernel() {
    if (library_ != nullptr) cudaLibraryUnload(library_);  // no check: destructors must not throw
  }
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  /// Enqueues the kernel on the default stream (after copying the mask to constant memory when
  /// the configuration reads it there). Does not synchronize.
  void launch(const Conv2dArgs& a) const {
    const TileConfig& c = variant_.config;
    if (c.filter == FilterPath::constant) {
      const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(a.mask_width) * a.mask_width;
      if (bytes > mask_bytes_) throw std::invalid_argument("lab07: mask larger than the constant buffer");
      CUDA_CHECK(cudaMemcpyAsync(mask_, a.M, bytes, cudaMemcpyDeviceToDevice, nullptr));
    }
    unsigned grid[2];
    unsigned block[2];
    grid_for(c, a.height, a.width, grid, block);
    const float* n = a.N;
    const float* m = a.M;
    float* p = a.P;
    int h = a.height;
    int w = a.width;
    int k = a.mask_width;
    void* params[] = {&n, &m, &p, &h, &w, &k};
    CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel_), dim3(grid[0], grid[1]),
                                dim3(block[0], block[1]), params, 0, nullptr));
  }

  [[nodiscard]] const KernelVariant& variant() const { return variant_; }
  [[nodiscard]] const ResourceUsage& usage() const { return usage_; }  ///< from ptxas's report
  [[nodiscard]] int registers() const { return registers_; }            ///< of the loaded function
  [[nodiscard]] int local_bytes() const { return local_bytes_; }        ///< local memory per thread (stack, spills)
  [[nodiscard]] int shared_bytes() const { return shared_bytes_; }

 private:
  KernelVariant variant_;
  ResourceUsage usage_;
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
  void* mask_ = nullptr;
  std::size_t mask_bytes_ = 0;
  int registers_ = 0;
  int local_bytes_ = 0;
  int shared_bytes_ = 0;
};

}  // namespace convlab::lab07
