// The rubric: how many points each lab is worth and how they are earned. The default is
// grader/rubric.json; an instructor passes another with --rubric FILE.
//
// Correctness points are proportional to the runs (case × variant) that pass, or
// all-or-nothing per lab ("scoring": "all_or_nothing"); a compute-sanitizer hazard zeroes them.
// Performance points compare each variant's median time with the reference solution's, timed
// on the same GPU in the same grading run on the rubric's performance case:
// full points at time ≤ full_at_ratio × reference, none at ≥ zero_at_ratio ×, linear between;
// the lab's share is the mean over its variants. Variants a lab lists as "stretch" cost nothing
// while they are stubs and earn a bonus line when they pass (LabPoints::stretch). A lab may name
// its own performance case for a problem where the global one does not suit its variants
// (labs.08.conv2d_case: step 3 takes K ≥ 9 only).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "convlab/dataset.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/shapes.hpp"

namespace convlab::grader {

/// Most points a rubric gives one part of one lab (correctness or performance).
inline constexpr double kMaxRubricPoints = 1000;
/// Largest time ratio a rubric may name (full_at_ratio, zero_at_ratio).
inline constexpr double kMaxRubricRatio = 1000;

/// A rubric that cannot be used; what() names the file and the field, e.g.
/// "rubric grader/rubric.json: labs.03.performance: expected a number from 0 to 1000, got \"x\"".
struct RubricError : LoadError {
  using LoadError::LoadError;
};

/// Version of the rubric format this grader reads.
inline constexpr int kRubricVersion = 1;

/// The case one problem's variants are timed on: its shape and the seed of its inputs.
struct PerformanceCase {
  Problem problem = Problem::conv2d;
  Conv2dShape conv2d;     ///< the image and mask, when `problem` is conv2d
  ConvLayerShape layer;   ///< the layer, when `problem` is conv_layer
  std::uint64_t seed = 0;
  /// "perf_2048x2048_k5", "perf_b4_c32_m64_64x64_k3_s1_p1_d1": the case's name
  [[nodiscard]] std::string name() const;
  /// "conv2d/perf_2048x2048_k5": how every report names it
  [[nodiscard]] std::string id() const;
};

/// Points of one lab, and the performance cases it overrides.
struct LabPoints {
  double correctness = 0;
  double performance = 0;
  /// Stretch variants ("stretch": ["tf32_tensor_core"]): a stretch variant whose runs all report
  /// "not implemented" (still the stub) is left out of the lab's runs and speed mean, so it costs
  /// nothing; one that passes every run earns a bonus line in the reports (no extra points, so
  /// the maximum stays 10 per lab). A stretch variant that is attempted but wrong counts as any
  /// other variant.
  std::vector<std::string> stretch;
  /// The lab's own performance cases ("conv2d_case", "conv_layer_case" in its entry), which
  /// replace the rubric's global one of that problem for this lab alone; nullopt: the global one.
  std::optional<PerformanceCase> conv2d_case;
  std::optional<PerformanceCase> conv_layer_case;
  /// True when `variant` is one of this lab's stretch variants.
  [[nodiscard]] bool is_stretch(const std::string& variant) const;
};

/// A parsed, validated rubric.
struct Rubric {
  std::string source;                    ///< the file it came from
  std::string name;                      ///< the rubric's own "name"
  std::map<std::string, LabPoints> labs; ///< by lab number, "01"
  bool proportional = true;              ///< correctness: proportional (true) or all-or-nothing
  bool sanitizer_hazard_zeroes = true;   ///< a memcheck/racecheck finding zeroes correctness
  double full_at_ratio = 1.25;           ///< time/reference at or below which performance is full
  double zero_at_ratio = 4.0;            ///< time/reference at or above which performance is 0
  bool performance_requires_full_correctness = true;  ///< no speed points for a wrong lab
  Conv2dShape conv2d_case;               ///< the image every conv2d lab is timed on
  std::uint64_t conv2d_seed = 0;
  ConvLayerShape conv_layer_case;        ///< the layer lab 06 is timed on
  std::uint64_t conv_layer_seed = 0;

  /// The points of lab `number`. @throws RubricError if the rubric has none for it.
  [[nodiscard]] const LabPoints& points(const std::string& number) const;
  /// The case lab `number`'s variants of problem `p` are timed on: the lab's own, else the
  /// global one (a lab without an entry gets the global one).
  [[nodiscard]] PerformanceCase performance_case(const std::string& number, Problem p) const;
  /// Performance share of one variant for time / reference time `ratio`, in [0, 1].
  [[nodiscard]] double performance_fraction(double ratio) const;
  /// Correctness points for `passed` of `runs` runs (0 when `hazard` and the rubric says so).
  [[nodiscard]] double correctness_points(const std::string& number, int passed, int runs, bool hazard) const;
  /// Why a lab with `passed` of `runs` runs correct (and a sanitizer `hazard` or not) earns no
  /// speed points and is not timed ("no performance points: 2 of 24 correctness runs failed"),
  /// or nullopt when it is timed.
  [[nodiscard]] std::optional<std::string> performance_gate(int passed, int runs, bool hazard) const;
  /// Performance points of lab `number`: its points times the mean of its variants' shares
  /// (performance_fraction of each; none timed: 0).
  [[nodiscard]] double performance_points(const std::string& number, const std::vector<double>& fractions) const;
};

/// Parses and validates a rubric document; `source` names it in errors. @throws RubricError.
Rubric parse_rubric(const nlohmann::json& j, const std::string& source);

/// Reads and validates a rubric file. @throws RubricError (also for unreadable or bad JSON).
Rubric load_rubric(const std::filesystem::path& file);

/// The default rubric, grader/rubric.json in the source tree.
std::filesystem::path default_rubric_path();

}  // namespace convlab::grader
