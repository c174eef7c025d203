// Lab 07 — register tiling (reference solution): the launchers.
//
// Idea:      the kernel family of register_tiling_kernel.cuh (several outputs per thread in x
//            and y, the input window in registers, compile-time sizes, the mask through constant
//            memory or __shfl_sync, global→register or shared→register input), with the best
//            member chosen per mask width by the autotuner (`grader tune`).
// Adds over lab 05: register blocking and vector loads (see the kernel header); here, the
//            choice of configuration: the tuning file of this GPU when there is one
//            (build/tuning/lab07-<gpu>.json, or $CONVLAB_LAB07_TUNING), else the compiled-in
//            defaults (kDefaultConfigs, tuned on an H200). A configuration that is not compiled
//            in is compiled by NVRTC at first use and cached on disk.
// Achieves:  on an H200 at 8192²: K ≤ 6 at or above the measured copy bandwidth, K = 7 at 91%
//            of it, K = 11..17 at 80–87% of the measured FMA rate (labs/07-register-tiling/README.md).
//
// Variants (harness/src/lab_mains/lab07.cpp): register_tiled (the tuned choice), shfl_filter and
// constant_filter (the same tiles, the mask forced through one path), shared_input (the same,
// through shared memory), so that the talk's and the paper's comparisons run on any case.
//
// Shapes: N, P height×width; M K×K; K in 2..7 and odd 9..17; any height and width ≥ 1.
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <iterator>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "convlab/lab_api.cuh"
#include "convlab/autotune/tuning_file.hpp"
#include "convlab/lab07_config.hpp"
#include "convlab/autotune/jit.hpp"
#include "register_tiling_kernel.cuh"

namespace convlab::lab07 {

namespace {

// --- The compiled-in instantiations: every default configuration, with and without vectors.

template <std::size_t I, bool VEC>
void launch_default(const Conv2dArgs& a) {
  constexpr TileConfig c = kDefaultConfigs[I];
  constexpr int K = c.mask_width;
  constexpr int INPUT = static_cast<int>(c.input);
  constexpr int FILTER = static_cast<int>(c.filter);
  constexpr int LOOP = static_cast<int>(c.rows);
  if constexpr (FILTER == kFilterConstant) {
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_mask, a.M, sizeof(float) * K * K, 0, cudaMemcpyDeviceToDevice));
  }
  unsigned grid[2];
  unsigned block[2];
  grid_for(c, a.height, a.width, grid, block);
  register_tiled<K, c.out_x, c.out_y, c.block_x, c.block_y, INPUT, FILTER, LOOP, VEC, false>
      <<<dim3(grid[0], grid[1]), dim3(block[0], block[1])>>>(a.N, a.M, a.P, a.height, a.width, a.mask_width);
  CUDA_CHECK(cudaGetLastError());
}

using Launcher = void (*)(const Conv2dArgs&);

struct CompiledEntry {
  TileConfig config;
  Launcher vec;     ///< VW-wide loads (nullptr when VW is 1: the scalar one is the same kernel)
  Launcher scalar;  ///< one float at a time (any width, any alignment)
};

template <std::size_t I>
constexpr CompiledEntry compiled_entry() {
  if constexpr (kDefaultConfigs[I].vector_width() > 1) {
    return {kDefaultConfigs[I], &launch_default<I, true>, &launch_default<I, false>};
  } else {
    return {kDefaultConfigs[I], nullptr, &launch_default<I, false>};
  }
}

template <std::size_t... I>
constexpr std::array<CompiledEntry, sizeof...(I)> compiled_table(std::index_sequence<I...>) {
  return {{compiled_entry<I>()...}};
}

constexpr auto kCompiled = compiled_table(std::make_index_sequence<std::size(kDefaultConfigs)>{});

Launcher find_compiled(const TileConfig& c, bool vec) {
  for (const CompiledEntry& e : kCompiled) {
    if (e.config == c) return vec ? e.vec : e.scalar;
  }
  return nullptr;
}

// --- Which configuration: the tuning file of this GPU, else the defaults.

std::filesystem::path own_folder() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::current_path() : self.parent_path();
}

struct State {
  std::optional<TuningTable> tuned;
  std::filesystem::path cache;
  int cc_major = 0;
  int cc_minor = 0;
  std::string source;  // the kernel text, read at the first JIT compilation
  std::map<std::string, std::unique_ptr<LoadedKernel>> jit;
  std::mutex mutex;
};

void load_state(State& st) {
  int device = 0;
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  st.cc_major = prop.major;
  st.cc_minor = prop.minor;
  const std::filesystem::path bin = own_folder();
  st.cache = cache_dir(bin.parent_path() / "tuning" / "cache");
  const char* env = std::getenv(kTuningEnv);
  const std::filesystem::path file =
      env != nullptr && *env != '\0' ? std::filesystem::path(env) : default_tuning_path(bin, prop.name);
  std::string note;
  if (!std::filesystem::exists(file)) {
    note = fmt::format("no tuning file {}: compiled-in defaults (make one with `grader tune`)", file.string());
  } else {
    try {
      TuningTable t = read_tuning_file(file);
      if (t.device != prop.name) {
        note = fmt::format("{} was tuned on {}, not this {}: compiled-in defaults", file.string(), t.device, prop.name);
      } else {
        note = fmt::format("tuned configurations from {}", file.string());
        st.tuned = std::move(t);
      }
    } catch (const std::exception& e) {
      note = fmt::format("ignoring the tuning file: {}; compiled-in defaults", e.what());
    }
  }
  std::fprintf(stderr, "lab07: %s\n", note.c_str());
}

State& state() {
  static State s;
  static std::once_flag once;
  std::call_once(once, [] { load_state(s); });
  return s;
}

/// The configuration of mask width k for a variant: "" (register_tiled: the tuned choice) or a
/// role ("shfl", "constant", "shared": the comparison variants).
TileConfig config_for(int k, const std::string& role) {
  const State& st = state();
  return config_for_role(st.tuned ? &*st.tuned : nullptr, k, role);
}

const LoadedKernel& jit_kernel(const KernelVariant& v) {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  const std::string name = kernel_name(v);
  auto it = st.jit.find(name);
  if (it == st.jit.end()) {
    if (st.source.empty()) {
      st.source = read_kernel_source(kernel_source_path(std::filesystem::path(__FILE__).parent_path() /
                                                        "register_tiling_kernel.cuh"));
    }
    const CompiledCubin cubin = compile_variant(st.source, v, st.cc_major, st.cc_minor, st.cache);
    it = st.jit.emplace(name, std::make_unique<LoadedKernel>(cubin, v)).first;
  }
  return *it->second;
}

void run(const Conv2dArgs& a, const std::string& role) {
  const TileConfig c = config_for(a.mask_width, role);
  const bool vec = vector_path_ok(c, a);
  if (Launcher l = find_compiled(c, vec)) {
    l(a);
    return;
  }
  jit_kernel(KernelVariant{c, vec, false}).launch(a);
}

}  // namespace

void conv2d_register_tiled(const Conv2dArgs& a) { run(a, ""); }
void conv2d_shfl_filter(const Conv2dArgs& a) { run(a, "shfl"); }
void conv2d_constant_filter(const Conv2dArgs& a) { run(a, "constant"); }
void conv2d_shared_input(const Conv2dArgs& a) { run(a, "shared"); }

}  // namespace convlab::lab07
