// The step markers of labs 06 and 07: a stub (labs/07-register-tiling/register_tiling_kernel.cuh,
// labs/06-im2col/*) and its solution mark each step's code with the same pair of lines,
//     // ==== BEGIN STEP n: title ====
//     // ==== END STEP n ====
// (n a number, or a number and a letter: 3a) and are the same text outside them. splice_steps() puts the solution's code of chosen steps
// into the skeleton, as a student who finished those steps would have it; the CPU test checks the
// markers and the text around them, the GPU test builds and grades the result.
#pragma once

#include <map>
#include <set>
#include <stdexcept>
#include <string>

namespace convlab::testing {

/// One marked step: its title and the code between its two marker lines.
struct StepRegion {
  std::string title;
  std::size_t body_begin = 0;  ///< first character after the BEGIN line
  std::size_t body_end = 0;    ///< first character of the END line
};

/// The marked steps of `text`, by their id ("2", "3a"). @throws std::runtime_error naming the step
/// and the problem (an END without BEGIN, a step marked twice, a BEGIN never closed, nested steps).
std::map<std::string, StepRegion> find_steps(const std::string& text, const std::string& name);

/// `skeleton` with the code of `steps` taken from `solution`. @throws std::runtime_error when a
/// step is missing from either or its titles differ.
std::string splice_steps(const std::string& skeleton, const std::string& solution, const std::set<std::string>& steps);

/// `skeleton` with the code of every step it marks taken from `solution`.
std::string splice_all_steps(const std::string& skeleton, const std::string& solution);

/// `text` with the code of every marked step removed (the markers kept): what the skeleton and
/// the solution must agree on.
std::string without_step_bodies(const std::string& text, const std::string& name);

/// The code of a lab file: from its first `#include` or `#pragma once` line (the header comments
/// of a stub and its solution differ: one is the assignment, the other the reference's notes) up
/// to a solution's "// ---- Beyond the lab ----" part. @throws std::runtime_error naming `name`
/// when the file has neither line.
std::string code_of(const std::string& text, const std::string& name);

/// The steps' flags of a lab file: "3a" -> false for `inline constexpr bool kStep3aWritten = false;`.
std::map<std::string, bool> written_flags(const std::string& text);

}  // namespace convlab::testing
