/// @file lab_registry.hpp
/// @brief The labs and their variants, in one table that the lab runners (common/src/lab_mains/),
///        the grader's lab catalog, the benchmarks and the analysis model all read: lab number,
///        folder, executables, problem, the variants' names (the names in every JSON report, the
///        grader's output and the benchmark tables), the mask widths they take and which
///        launch configuration of lab_config.hpp the lab's kernels use.
///
/// A variant solves its lab's problem with its lab's mask widths unless its row says otherwise:
/// lab 08's third step is a conv2d variant of a conv-layer lab, `{"banded_tf32x3",
/// Tolerance::fp32(), true, Problem::conv2d, MaskWidths::range(9, kMaxMaskWidth)}`. Such a lab
/// registers a function list per problem (describe_lab), is run on the cases of both problems,
/// and is timed on the performance case of each (grader/README.md). A variant may also name the
/// one GPU it runs on (lab 08's fifth step, Hopper's wgmma: compute capability 9.0).
///
/// A new lab adds one row here, its folders under labs/ and solutions/, and its registration in
/// common/src/lab_mains/labNN.cpp, which pairs these names, in this order, with its functions
/// (docs/architecture.md lists every place). CMake makes its executables from the row
/// (cmake/ConvlabLabs.cmake reads the lines `{N, "NN-name", ...`: keep a row's start so).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "convlab/compare.hpp"
#include "convlab/dataset.hpp"
#include "convlab/lab08_config.hpp"
#include "convlab/mask_widths.hpp"

namespace convlab::labs {

/// The launch configuration a lab's kernels use (what the analysis model analyses):
/// lab_config.hpp's constants for labs 01–05, lab07_config.hpp's tuned tiles for lab 07.
enum class LabConfig {
  untiled_global_mask,  ///< kUntiledBlockX × kUntiledBlockY, mask in global memory (lab 01)
  untiled,              ///< kUntiledBlockX × kUntiledBlockY, mask in constant memory (lab 02)
  tiled_output,         ///< strategy 1, kLab03TileWidth (lab 03)
  tiled_input,          ///< strategy 2, kLab04InTile (lab 04)
  tiled_cached_halo,    ///< strategy 3, kLab05TileWidth (lab 05)
  im2col,               ///< lab 06's GEMM tiles (its own files; not in the analysis model)
  register_tiling,      ///< lab 07's tuned tiles (lab07_config.hpp; not in the analysis model)
  tensor_cores,         ///< lab 08's tensor-core tiles (lab08_config.hpp)
};

/// One variant (one function) of a lab.
struct VariantEntry {
  const char* name = nullptr;              ///< "cached_halo": the name in every report
  Tolerance tolerance = Tolerance::fp32(); ///< the arithmetic it uses on purpose
  bool tensor_cores = false;  ///< runs on tensor cores: no FP32 FMA bound on its time
  /// The problem it solves when not its lab's (LabEntry::problem_of reads it).
  std::optional<Problem> problem = std::nullopt;
  /// The K it takes when not its lab's; empty: the lab's (LabEntry::mask_widths_of reads it).
  /// A variant of another problem than its lab's names its own (a conv-layer lab's widths say
  /// nothing of a conv2d kernel's).
  MaskWidths mask_widths = {};
  /// The only GPU it runs on, as major·10 + minor of its compute capability (lab 08 step 5: 90,
  /// Hopper's wgmma); 0: any GPU the lab runs on. On another GPU the runner skips its runs, as it
  /// skips a mask width a variant does not take, and the grader neither plans nor counts them
  /// (docs/design.md, Grader contract).
  int compute_capability = 0;
  /// True when it runs on a GPU of compute capability major.minor.
  [[nodiscard]] constexpr bool runs_on(int major, int minor) const {
    return compute_capability == 0 || compute_capability == 10 * major + minor;
  }
};

/// One lab.
struct LabEntry {
  int number;                 ///< 5
  const char* folder;         ///< "05-tiled-cached-halo", the folder under labs/ and solutions/
  const char* title;          ///< what the runner prints
  Problem problem;            ///< conv2d or conv_layer: what its variants solve unless they say otherwise
  MaskWidths mask_widths;     ///< the K its variants take (conv2d); every K for conv_layer
  LabConfig config;           ///< its launch configuration
  std::array<VariantEntry, 8> variants;  ///< its variants; unused slots have no name
  int variant_count;          ///< how many of `variants` are used

  /// "05"
  [[nodiscard]] std::string number_text() const { return (number < 10 ? "0" : "") + std::to_string(number); }
  /// "lab05": the executable built from the lab's folder under labs/.
  [[nodiscard]] std::string executable() const { return "lab" + number_text(); }
  /// "solution05": the executable built from the lab's folder under solutions/.
  [[nodiscard]] std::string solution() const { return "solution" + number_text(); }
  /// The variant named `name`, or nullptr.
  [[nodiscard]] const VariantEntry* variant(std::string_view name) const {
    for (int i = 0; i < variant_count; ++i) {
      if (name == variants[static_cast<std::size_t>(i)].name) return &variants[static_cast<std::size_t>(i)];
    }
    return nullptr;
  }
  /// The problem `v` (one of this lab's variants) solves: its own, else the lab's.
  [[nodiscard]] constexpr Problem problem_of(const VariantEntry& v) const { return v.problem.value_or(problem); }
  /// The mask widths `v` takes: its own, else the lab's.
  [[nodiscard]] constexpr MaskWidths mask_widths_of(const VariantEntry& v) const {
    return v.mask_widths.empty() ? mask_widths : v.mask_widths;
  }
  /// The mask widths its variants of problem `p` take, together (empty: none solves `p`).
  [[nodiscard]] constexpr MaskWidths mask_widths_for(Problem p) const {
    MaskWidths all;
    for (int i = 0; i < variant_count; ++i) {
      const VariantEntry& v = variants[static_cast<std::size_t>(i)];
      if (problem_of(v) == p) all = all | mask_widths_of(v);
    }
    return all;
  }
  /// How many of its variants solve `p`.
  [[nodiscard]] constexpr int variant_count_of(Problem p) const {
    int n = 0;
    for (int i = 0; i < variant_count; ++i) n += problem_of(variants[static_cast<std::size_t>(i)]) == p ? 1 : 0;
    return n;
  }
  /// True when some variant solves `p`.
  [[nodiscard]] constexpr bool solves(Problem p) const { return variant_count_of(p) > 0; }
};

/// Every lab, by number.
inline constexpr std::array<LabEntry, 8> kLabs = {{
    {1, "01-naive", "naive convolution, everything in global memory", Problem::conv2d, kOddMaskWidths,
     LabConfig::untiled_global_mask,
     {{{"no_restrict"}, {"mask_restrict"}, {"input_restrict"}, {"both_restrict"}}}, 4},
    {2, "02-constant-mask", "constant-memory mask", Problem::conv2d, kOddMaskWidths, LabConfig::untiled,
     {{{"constant_mask"}}}, 1},
    {3, "03-tiled-output", "tiling strategy 1: block covers the output tile", Problem::conv2d,
     kOddMaskWidths, LabConfig::tiled_output, {{{"tiled_output"}}}, 1},
    {4, "04-tiled-input", "tiling strategy 2: block covers the input tile",
     Problem::conv2d, kOddMaskWidths, LabConfig::tiled_input, {{{"tiled_input"}}}, 1},
    {5, "05-tiled-cached-halo", "tiling strategy 3: core in shared memory, halo through the caches",
     Problem::conv2d, kOddMaskWidths, LabConfig::tiled_cached_halo, {{{"cached_halo"}}}, 1},
    {6, "06-im2col", "convolution layers through im2col", Problem::conv_layer, kAllMaskWidths, LabConfig::im2col,
     {{{"unroll_gemm"},
       {"fused_gemm"},
       {"register_tiles"},
       {"transposed_float4"},
       {"async_copies"},
       {"register_tiled"},
       {"tf32_tensor_core", Tolerance::tf32(), true}}},
     7},
    {7, "07-register-tiling", "register tiling", Problem::conv2d, kRegisterTilingMaskWidths,
     LabConfig::register_tiling,
     {{{"one_output"}, {"outputs_xy"}, {"shfl_filter"}, {"constant_filter"}, {"shared_input"}, {"register_tiled"}}},
     6},
    {8, "08-tensor-cores",
     "tensor cores: conv layers (steps 1-2, 5-7 on Hopper's wgmma), one image with a large mask (steps 3-4)",
     Problem::conv_layer, kAllMaskWidths,
     LabConfig::tensor_cores,
     {{{"tf32", Tolerance::tf32x1(), true},
       {"tf32x3", Tolerance::fp32(), true},
       {"banded_tf32x3", Tolerance::fp32(), true, Problem::conv2d, MaskWidths::range(lab08::kBandMinMask, kMaxMaskWidth)},
       {"banded_tf32_bf16", Tolerance::fp32(), true, Problem::conv2d,
        MaskWidths::range(lab08::kBandMixedMinMask, kMaxMaskWidth)},
       {"tf32x3_wgmma", Tolerance::fp32(), true, std::nullopt, {}, lab08::kWgmmaComputeCapability},
       {"tf32_bf16_wgmma", Tolerance::fp32(), true, std::nullopt, {}, lab08::kWgmmaComputeCapability},
       {"tf32_wgmma", Tolerance::tf32x1(), true, std::nullopt, {}, lab08::kWgmmaComputeCapability}}},
     7},
}};

/// Every mask width some lab's conv2d variant takes: what a random case set draws from, so that
/// every variant has cases (grader/session/case_set.cpp).
inline constexpr MaskWidths conv2d_mask_widths_of_all_labs() {
  MaskWidths all;
  for (const LabEntry& lab : kLabs) all = all | lab.mask_widths_for(Problem::conv2d);
  return all;
}

/// The lab numbered `number`, or nullptr.
inline const LabEntry* find_lab(int number) {
  for (const LabEntry& l : kLabs) {
    if (l.number == number) return &l;
  }
  return nullptr;
}

/// The lab whose executable is `id` ("lab05"), or nullptr.
inline const LabEntry* find_lab(std::string_view id) {
  for (const LabEntry& l : kLabs) {
    if (id == l.executable()) return &l;
  }
  return nullptr;
}

}  // namespace convlab::labs
