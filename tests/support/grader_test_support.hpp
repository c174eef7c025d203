// Helpers of the grader's CPU tests: temporary folders, a small case set, a rubric with a small
// performance case, and fake lab runners (tests/support/fake_lab.cpp behind a one-line script).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "session/case_set.hpp"
#include "session/gpu_environment.hpp"
#include "build/lab_folders.hpp"
#include "grade/lab_grader.hpp"
#include "session/rubric.hpp"

namespace convlab::grader::testing {

/// A fresh temporary folder, removed with its contents when the object goes.
class TempDir {
 public:
  explicit TempDir(const std::string& name);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Writes `bytes` to `path` as they are (its folder created, an old file replaced): a test's
/// input file, hostile or not.
void write_test_file(const std::filesystem::path& path, const std::string& bytes);

/// Four small conv2d cases under `root` (one with an even mask, which the fake skips by
/// default): k1_1x1, k3_7x9, k5_16x16 and k2_5x5.
CaseSet small_case_set(const std::filesystem::path& root);

/// The smallest bench.json `grader bench --plot-only` draws from: GPU `device_name`, measured
/// ceilings, and a one-row block-size sweep (it draws sweep.png).
nlohmann::json sweep_bench_json(const std::string& device_name);

/// The default rubric with a small performance case (20×24, K=3), so tests stay fast.
Rubric test_rubric();

/// A copy of the fake lab runner (one file, like a lab executable) that runs with `fake_args`
/// (space-separated) added to its command line.
std::filesystem::path fake_lab(const std::filesystem::path& dir, const std::string& name, const std::string& fake_args);

/// Settings for tests: 2 s per case, a 1 s grace period, no progress lines.
GradeSettings test_settings();

/// A grading environment over `cases` whose labs all have `reference` as their reference
/// solution (and list their variants from it), its GPU on `host` (by default a host of its own).
std::unique_ptr<GradingEnvironment> make_env(CaseSet cases, const std::filesystem::path& work,
                                             std::optional<std::filesystem::path> reference,
                                             GradeSettings settings = test_settings(), Rubric rubric = test_rubric(),
                                             std::shared_ptr<HostTurns> host = std::make_shared<HostTurns>());

/// Lab 01 as the catalog describes it (tests never build it).
LabInfo lab01();

/// An executable for a lab at `exe`.
LabExecutable executable(const std::filesystem::path& exe);

/// A fake lab graded as lab 01 on the small case set, against a fake reference solution.
struct GradedFake {
  LabResult lab;
  Rubric rubric = test_rubric();
};

/// Grades a fake lab run with `args` against a fake reference run with `reference_args`, in `tmp`.
GradedFake grade_fake_lab(const TempDir& tmp, const std::string& args, GradeSettings settings = test_settings(),
                          const std::string& reference_args = "--fake-time-ms 1");

}  // namespace convlab::grader::testing
