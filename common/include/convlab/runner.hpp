/// @file runner.hpp
/// @brief The lab runner: the `main` of every lab executable.
///
/// `labNN CASE_OR_DIR...` loads each case, runs every variant of the lab on device-resident
/// data, checks the output (NaN poison, guard bands, tolerance), times it, and prints one line
/// per case and variant; `--json FILE` also writes the results as JSON. Run with `--help`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convlab/compare.hpp"
#include "convlab/lab_registry.hpp"
#include "convlab/mask_widths.hpp"

namespace convlab {

struct Conv2dArgs;
struct ConvLayerArgs;

/// Exit codes of a lab runner (the grader relies on them).
enum RunnerExit : int {
  kExitAllPassed = 0,    ///< every run case passed (skipped ones aside)
  kExitSomeFailed = 1,   ///< at least one case failed its check
  kExitUsage = 2,        ///< bad flags, a case that could not be read, or a --json file that cannot be written
  kExitNoGpu = 3,        ///< no usable GPU
  kExitCrashed = 4,      ///< a sticky CUDA error (illegal address, ...): the process stopped
  kExitTimeout = 5,      ///< a case ran past --timeout
};

/// One function of a conv2d lab.
struct Conv2dVariant {
  std::string name;                 ///< e.g. "both_restrict"
  void (*run)(const Conv2dArgs&);   ///< the lab's function
  MaskWidths masks = kOddMaskWidths;         ///< mask widths it accepts; others are skipped
  Tolerance tolerance = Tolerance::fp32();   ///< the arithmetic it uses on purpose
  bool tensor_cores = false;                 ///< runs on tensor cores (lab_registry.hpp)
  int compute_capability = 0;                ///< the only GPU it runs on (lab_registry.hpp); others skip it
};

/// One function of a conv-layer lab.
struct ConvLayerVariant {
  std::string name;                          ///< e.g. "fused_gemm"
  void (*run)(const ConvLayerArgs&);         ///< the lab's function
  int max_mask_width = 17;                   ///< larger masks are skipped
  Tolerance tolerance = Tolerance::fp32();   ///< the arithmetic it uses on purpose
  bool tensor_cores = false;                 ///< runs on tensor cores (lab_registry.hpp)
  int compute_capability = 0;                ///< the only GPU it runs on (lab_registry.hpp); others skip it
};

/// A lab, as its runner sees it.
struct LabDescription {
  std::string id;     ///< "lab01"
  std::string title;  ///< "naive convolution, global memory"
  std::vector<Conv2dVariant> conv2d;          ///< its conv2d functions (labs 01–05, 07, lab 08's step 3)
  std::vector<ConvLayerVariant> conv_layer;   ///< its conv-layer functions (labs 06, 08)
};

/// The runner's main. Returns one of RunnerExit.
int run_lab(int argc, char** argv, const LabDescription& lab);

/// The lab this executable runs; defined once per lab in common/src/lab_mains/labNN.cpp
/// through describe_lab.
LabDescription this_lab();

/// The description of the registry's lab `lab` (lab_registry.hpp): its id, title, mask widths,
/// tolerances and variant names, the names paired in order with `functions`.
/// @throws std::logic_error when the number of functions differs from the registry's variants
LabDescription describe_lab(const labs::LabEntry& lab, const std::vector<void (*)(const Conv2dArgs&)>& functions);
/// The same for a conv-layer lab.
LabDescription describe_lab(const labs::LabEntry& lab, const std::vector<void (*)(const ConvLayerArgs&)>& functions);
/// The same for a lab whose variants solve both problems (lab 08): the registry's conv2d
/// variants paired in order with `conv2d`, its conv-layer variants with `conv_layer`.
/// @throws std::logic_error when either count differs from the registry's variants of that problem
LabDescription describe_lab(const labs::LabEntry& lab, const std::vector<void (*)(const Conv2dArgs&)>& conv2d,
                            const std::vector<void (*)(const ConvLayerArgs&)>& conv_layer);

/// True once a lab function called not_implemented() in this process.
bool lab_reported_not_implemented(std::string* what = nullptr);
/// Clears the not_implemented() flag (before each run).
void reset_not_implemented();

}  // namespace convlab
