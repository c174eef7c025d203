// What a lab executable runs: its variants, the problem each solves, the mask widths it accepts
// and the tolerance it is checked with — read from `labNN --list --json FILE`.
//
// The grader asks a trusted executable (the project's own build of the lab or its solution:
// the list comes from common/src/lab_mains/labNN.cpp, which students do not edit), so a submission
// cannot loosen its own tolerance.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "convlab/compare.hpp"
#include "convlab/dataset.hpp"
#include "convlab/mask_widths.hpp"
#include "system/sandbox.hpp"

namespace convlab::grader {

/// One variant (function) of a lab.
struct VariantInfo {
  std::string name;                 ///< "both_restrict"
  Problem problem = Problem::conv2d;
  MaskWidths mask_widths;           ///< conv2d: the K it accepts
  int max_mask_width = 0;           ///< conv layer: the largest K it accepts
  Tolerance tolerance = Tolerance::fp32();
  bool tensor_cores = false;        ///< runs on tensor cores: bounded by bandwidth, not FP32 FMA
  /// The only GPU it runs on, major·10 + minor of its compute capability ("compute_capability":
  /// "9.0" in the list: lab 08 step 5); 0: any.
  int compute_capability = 0;
  /// Whether the runner runs this variant on `info` (it skips a mask width it does not accept).
  [[nodiscard]] bool accepts(const CaseInfo& info) const;
  /// Whether it runs on a GPU of compute capability `cc` (major·10 + minor; 0, unknown: yes).
  [[nodiscard]] bool runs_on(int cc) const { return compute_capability == 0 || cc == 0 || cc == compute_capability; }
};

/// The variants of one lab, in the order the runner runs them. Most labs' variants solve one
/// problem; lab 08's solve two (conv layers, and one image with step 3).
struct LabVariants {
  std::string lab;  ///< "lab01"
  std::vector<VariantInfo> variants;
  /// Variants the graded GPU cannot run (keep_runnable_on moved them here from `variants`): not
  /// planned, run, timed, profiled or counted, as a mask width a variant does not take.
  std::vector<VariantInfo> not_on_this_gpu;
  /// The problems its variants solve, each once, in the order of their first variant.
  [[nodiscard]] std::vector<Problem> problems() const;
  /// The names of its variants that solve `p`, as "a, b" (for messages).
  [[nodiscard]] std::string names_of(Problem p) const;
  /// Moves the variants that do not run on a GPU of compute capability `cc` (major·10 + minor; 0:
  /// unknown, none moved) to not_on_this_gpu.
  void keep_runnable_on(int cc);
};

/// Parses `{"format": "convlab-lab-list", "version": 1, ...}`. @throws std::runtime_error, also
/// for two variants of one name (each run and each timing is keyed by the name).
LabVariants parse_lab_variants(const nlohmann::json& j);

/// Refuses a listing that claims a problem the lab registry's lab `number` ("08") does not
/// solve: whatever executable wrote the list, it cannot have its lab graded on another
/// problem's cases. A lab the registry does not know is not checked.
/// @throws std::runtime_error naming the variant and the problem
void check_problems_against_registry(const LabVariants& listing, const std::string& number);

/// Runs `exe --list --json FILE` (FILE inside `work_dir`), in `sandbox` when given (a
/// student's executable lists its variants like it runs: sandboxed). @returns nullopt with the
/// reason in `error` if the executable does not run or its list is unreadable.
std::optional<LabVariants> list_lab(const std::filesystem::path& exe, const std::filesystem::path& work_dir,
                                   std::string* error, const std::optional<SandboxSpec>& sandbox = std::nullopt);

}  // namespace convlab::grader
