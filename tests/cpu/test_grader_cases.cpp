// The cases the grader uses and what it keeps from the labs: a staged case holds inputs only,
// a fresh random set is written without expected outputs, and the grader's expectation is the
// reference either way.
#include <catch2/catch.hpp>

#include "session/case_set.hpp"
#include "convlab/reference.hpp"
#include "grader_test_support.hpp"

using namespace convlab;
using namespace convlab::grader;
using namespace convlab::grader::testing;
namespace fs = std::filesystem;

namespace {

int files_named(const fs::path& root, const std::string& name) {
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) n += e.path().filename() == name ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("cases: a staged case holds the inputs and nothing else", "[grader][cases]") {
  TempDir tmp("cases-stage");
  const CaseSet set = small_case_set(tmp.path() / "set");
  REQUIRE(fs::exists(set.cases.front().dir / "expected.npy"));
  const fs::path staged = stage_inputs(set.cases.front(), tmp.path() / "staged");
  CHECK(staged == tmp.path() / "staged" / "conv2d" / set.cases.front().info.name);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(staged)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"case.json", "input.npy", "mask.npy"});
}

TEST_CASE("cases: a fresh random set has no expected output on disk", "[grader][cases]") {
  TempDir tmp("cases-random");
  const CaseSet set = generate_random_case_set(7, 3, tmp.path());
  CHECK(set.of_problem(Problem::conv2d).size() == 3);
  CHECK(set.of_problem(Problem::conv_layer).size() == 3);
  CHECK(files_named(tmp.path(), "case.json") == 6);
  CHECK(files_named(tmp.path(), "expected.npy") == 0);
  CHECK_THAT(set.description, Catch::Contains("seed 7"));
}

TEST_CASE("cases: the expectation is the reference, from expected.npy or computed", "[grader][cases]") {
  TempDir tmp("cases-expectation");
  const CaseSet with = small_case_set(tmp.path() / "with");
  const GradingCase& c = *with.of_problem(Problem::conv2d).front();
  ExpectationCache cache;
  const Expectation& from_file = cache.get(c);
  // The same case with its expected.npy removed: computed by the reference.
  fs::copy(c.dir, tmp.path() / "without", fs::copy_options::recursive);
  fs::remove(tmp.path() / "without" / "expected.npy");
  const GradingCase bare{read_case_info(tmp.path() / "without"), tmp.path() / "without"};
  const Expectation& computed = cache.get(bare);
  CHECK(computed.expected.values() == from_file.expected.values());
  CHECK(computed.abs_sum.values() == from_file.abs_sum.values());
  CHECK(computed.terms == c.info.conv2d.terms_per_output());
  CHECK(&cache.get(c) == &from_file);  // computed once per case
}
