// The cases a grading run uses: the public datasets, an instructor's private folder, or a fresh
// random set from a seed; and what the grader compares against (kept away from the labs).
//
// A lab's child process gets a private copy of each case's *inputs* only (stage_inputs), so it
// cannot read the expected output; the grader holds the expected output and the per-output
// error bound (Expectation) and compares with compare.hpp's one rule.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "convlab/dataset.hpp"
#include "convlab/tensor.hpp"

namespace convlab::grader {

/// One case as the grader sees it: its metadata and the folder that holds it (with or without
/// an expected.npy: without, the grader computes the reference itself).
struct GradingCase {
  CaseInfo info;
  std::filesystem::path dir;
  /// Output elements (H·W, or B·M·Ho·Wo): the size used to pick small cases.
  [[nodiscard]] std::size_t outputs() const;
};

/// The cases of one grading run.
struct CaseSet {
  std::string description;  ///< "public (datasets/)", "private (/srv/cases)", "random (seed 7, 40 cases)"
  std::filesystem::path root;
  std::vector<GradingCase> cases;  ///< sorted by path; names unique
  std::vector<std::string> skipped;  ///< folders under root that could not be read, and why
  /// The cases of one problem, in order.
  [[nodiscard]] std::vector<const GradingCase*> of_problem(Problem p) const;
};

/// Every case folder under `root` (find_cases); unreadable folders are passed over and listed
/// in `skipped`. Every file of every case is read once here (its inputs and expected output), so
/// that a broken file stops a run before anything is built.
/// @throws DatasetError if there is none, for a malformed case or file (naming it), and for two
/// cases of one name.
CaseSet load_case_set(const std::filesystem::path& root, const std::string& description);

/// Generates `count` random conv2d cases and `count` random conv-layer cases from `seed`
/// (convlab/datagen.hpp) under `out`, and loads them. Only the inputs are written: nothing a
/// lab could find on disk holds the expected outputs, which ExpectationCache computes.
CaseSet generate_random_case_set(std::uint64_t seed, int count, const std::filesystem::path& out);

/// Writes a generated case without its expected output (see generate_random_case_set).
void write_inputs_only(const std::filesystem::path& dir, Conv2dCase c);
/// Writes a generated case without its expected output.
void write_inputs_only(const std::filesystem::path& dir, ConvLayerCase c);

/// Copies a case's inputs (case.json and its input arrays; never expected.npy) to
/// `dest_root/<problem>/<name>/`, a folder that must not exist yet and must lie inside
/// `dest_root`; it deletes nothing but that folder, and that only when the copy fails.
/// @returns that folder. @throws DatasetError for a bad name or a folder staged already.
std::filesystem::path stage_inputs(const GradingCase& c, const std::filesystem::path& dest_root);

/// What a lab's output is compared with.
struct Expectation {
  Tensor<double> expected;  ///< the double reference
  Tensor<double> abs_sum;   ///< S = Σ|term| per output
  std::size_t terms = 0;    ///< n, multiply-adds per output
};

/// Expectations, computed once per case and shared by every lab and submission of a run.
class ExpectationCache {
 public:
  /// The expectation of `c`: its expected.npy if present, else the CPU reference; S always
  /// from the reference's abs-sum twin. Thread-safe.
  const Expectation& get(const GradingCase& c);

 private:
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Expectation>> cache_;
};

}  // namespace convlab::grader
