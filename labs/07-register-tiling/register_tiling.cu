// Lab 07 — register tiling: the launchers (given: the same file in labs/ and solutions/).
//
// Idea:      the kernels are in register_tiling_kernel.cuh, the file you edit, step by step.
//            This file turns a Conv2dArgs into a launch: it checks that the steps a variant
//            needs are written (kStepNWritten in the kernel file), picks the configuration of
//            the mask width (the tuning file `grader tune` wrote for *this* kernel source when
//            there is one, else the compiled-in defaults of convlab/lab07_config.hpp), and runs
//            it: compiled in (the dispatch table below: one instantiation per default
//            configuration, with and without vector loads) or compiled by NVRTC at first use
//            from the same kernel file (convlab/autotune/tuned_dispatch.hpp).
// Adds over lab 05: register blocking and the filter paths (in the kernel file); here, the
//            choice of configuration per mask width and the dispatch over eleven mask widths.
// Achieves:  with the reference kernel, on an H200 at 8192²: K ≤ 6 at or above the measured copy
//            bandwidth, K = 7 at 91% of it, K = 11..17 at 80–87% of the measured FMA rate
//            (labs/07-register-tiling/README.md).
//
// Variants (common/src/lab_mains/lab07.cpp), one per step of the README:
//   one_output       step 1  one output per thread, compile-time K, the mask from global memory
//   outputs_xy       step 2  an OX×OY patch per thread, each tap loaded once per patch row
//   shfl_filter      step 3  the mask through __shfl_sync
//   constant_filter  step 4  the mask in constant memory
//   shared_input     step 5  the input window through a shared-memory tile
//   register_tiled   step 6  the tuned choice per mask width (`grader tune`)
//
// Shapes: N, P height×width; M K×K; K in 2..7 and odd 9..17; any height and width ≥ 1.
#include <fmt/format.h>

#include <array>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <iterator>
#include <utility>

#include "convlab/autotune/jit.hpp"
#include "convlab/autotune/tuned_dispatch.hpp"
#include "convlab/lab07_config.hpp"
#include "convlab/lab_api.cuh"
#include "register_tiling_kernel.cuh"

#ifndef CONVLAB_LAB07_ORIGIN
#define CONVLAB_LAB07_ORIGIN "labs"  // set by cmake/ConvlabLabs.cmake: "labs" or "solutions"
#endif

namespace convlab::lab07 {

namespace {

// --- The steps a variant needs: a clear "not implemented" naming the variant's own step first,
//     then the first earlier step it builds on that is still missing.

struct Step {
  int number;
  bool written;
  const char* title;
  const char* what;  // what to write, in register_tiling_kernel.cuh
};

constexpr Step kSteps[] = {
    {1, kStep1Written, "one output per thread", "the body of one_output<K>"},
    {2, kStep2Written, "x×y outputs per thread", "loaded_tap, accumulate_row and store_patch"},
    {3, kStep3Written, "the filter through __shfl_sync", "load_shfl_taps, shfl_tap, load_shfl_mask_rows and shfl_row_tap"},
    {4, kStep4Written, "the filter in constant memory", "constant_tap and copy_mask_to_constant"},
    {5, kStep5Written, "shared→register input", "load_shared_tile"},
    {6, true, "the tuned choice per mask width", "nothing new: it runs steps 2–4 as `grader tune` chose"},
};

/// True when the variant's own step `own` and every step in `needs` are written; else reports
/// the first missing one (the runner prints "not implemented (step N (title): ...)") and
/// returns false.
bool steps_written(int own, std::initializer_list<int> needs) {
  static thread_local std::string message;
  const Step& o = kSteps[own - 1];
  if (!o.written) {
    message = fmt::format("step {} ({}): write {} in register_tiling_kernel.cuh, then set kStep{}Written = true",
                          o.number, o.title, o.what, o.number);
    not_implemented(message.c_str());
    return false;
  }
  for (const int n : needs) {
    const Step& s = kSteps[n - 1];
    if (!s.written) {
      message = fmt::format("step {} ({}) needs step {} ({}): write {} in register_tiling_kernel.cuh, then set "
                            "kStep{}Written = true",
                            o.number, o.title, s.number, s.title, s.what, s.number);
      not_implemented(message.c_str());
      return false;
    }
  }
  return true;
}

/// The steps a configuration's kernel calls beyond the variant's own: 2 always, its filter path's
/// and its input path's (a tuning file may choose any).
bool config_steps_written(int own, const TileConfig& c) {
  const std::array<int, 3> needs = steps_of(c);
  return steps_written(own, {needs[0], needs[1], needs[2]});
}

// --- Step 1: one_output<K>, one instantiation per supported mask width.

template <int K>
void launch_one_output(const Conv2dArgs& a) {
  const dim3 block(32, 8);
  const dim3 grid((a.width + 31) / 32, (a.height + 7) / 8);
  one_output<K><<<grid, block>>>(a.N, a.M, a.P, a.height, a.width);
  CUDA_CHECK(cudaGetLastError());
}

using Launcher = void (*)(const Conv2dArgs&);

constexpr std::pair<int, Launcher> kOneOutput[] = {
    {2, launch_one_output<2>},   {3, launch_one_output<3>},   {4, launch_one_output<4>},   {5, launch_one_output<5>},
    {6, launch_one_output<6>},   {7, launch_one_output<7>},   {9, launch_one_output<9>},   {11, launch_one_output<11>},
    {13, launch_one_output<13>}, {15, launch_one_output<15>}, {17, launch_one_output<17>},
};

// --- The dispatch table: every default configuration compiled in, with and without vectors.

template <std::size_t I, bool VEC>
void launch_default(const Conv2dArgs& a) {
  constexpr TileConfig c = kDefaultConfigs[I];
  constexpr int K = c.mask_width;
  constexpr int INPUT = static_cast<int>(c.input);
  constexpr int FILTER = static_cast<int>(c.filter);
  constexpr int LOOP = static_cast<int>(c.rows);
  if constexpr (FILTER == kFilterConstant) CUDA_CHECK(copy_mask_to_constant(a.M, K));
  unsigned grid[2];
  unsigned block[2];
  grid_for(c, a.height, a.width, grid, block);
  register_tiled<K, c.out_x, c.out_y, c.block_x, c.block_y, INPUT, FILTER, LOOP, VEC, false>
      <<<dim3(grid[0], grid[1]), dim3(block[0], block[1])>>>(a.N, a.M, a.P, a.height, a.width, a.mask_width);
  CUDA_CHECK(cudaGetLastError());
}

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

TunedDispatch& dispatch() {
  static TunedDispatch d(CONVLAB_LAB07_ORIGIN, __FILE__);
  return d;
}

/// Runs the configuration of `role` (TunedDispatch::config_for) for this mask width, for the
/// variant of step `own`.
void run(const Conv2dArgs& a, int own, const std::string& role) {
  const TileConfig c = dispatch().config_for(a.mask_width, role);
  if (!config_steps_written(own, c)) return;
  const bool vec = vector_path_ok(c, a);
  if (Launcher l = find_compiled(c, vec)) {
    l(a);
    return;
  }
  dispatch().launch_jit(KernelVariant{c, vec, false}, a);
}

}  // namespace

void conv2d_one_output(const Conv2dArgs& a) {
  if (!steps_written(1, {})) return;
  for (const auto& [k, launch] : kOneOutput) {
    if (k == a.mask_width) return launch(a);
  }
  throw std::invalid_argument(fmt::format("lab07: mask width {} is not supported (2..7 and odd 9..17)", a.mask_width));
}
void conv2d_outputs_xy(const Conv2dArgs& a) { run(a, 2, "loaded"); }
void conv2d_shfl_filter(const Conv2dArgs& a) { run(a, 3, "shfl"); }
void conv2d_constant_filter(const Conv2dArgs& a) { run(a, 4, "constant"); }
void conv2d_shared_input(const Conv2dArgs& a) { run(a, 5, "shared"); }
void conv2d_register_tiled(const Conv2dArgs& a) {
  if (steps_written(6, {2, 3, 4})) run(a, 6, "");
}

}  // namespace convlab::lab07
