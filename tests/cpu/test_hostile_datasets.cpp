// Hostile input, late failures: one truncated input.npy in --datasets once let grade build every
// lab and end without a report, and made batch mark every student "could not grade". A case set
// is now read whole before anything is built, and a broken file stops the run as a usage error
// that names it.
#include <catch2/catch.hpp>

#include <fstream>

#include "convlab/datagen.hpp"
#include "convlab/dataset.hpp"
#include "grader_test_support.hpp"
#include "session/case_set.hpp"
#include "system/subprocess.hpp"

using namespace convlab;
using namespace convlab::grader;
using namespace convlab::grader::testing;
namespace fs = std::filesystem;

namespace {

// The small case set under `root` with its k5_16x16 input cut to `keep` bytes.
fs::path truncated_set(const fs::path& root, std::uintmax_t keep) {
  small_case_set(root);
  const fs::path victim = root / "conv2d" / "k5_16x16" / "input.npy";
  REQUIRE(fs::exists(victim));
  fs::resize_file(victim, keep);
  return victim;
}

}  // namespace

TEST_CASE("late failures: a truncated input of one case stops the loading of the set, naming the file",
          "[hostile][datasets]") {
  TempDir tmp("hostile-truncated");
  for (std::uintmax_t keep : {0ull, 10ull, 128ull, 300ull}) {
    fs::remove_all(tmp.path() / "cases");
    const fs::path victim = truncated_set(tmp.path() / "cases", keep);
    INFO("kept " << keep << " bytes");
    try {
      load_case_set(tmp.path() / "cases", "private");
      FAIL("a truncated input.npy was accepted");
    } catch (const DatasetError& e) {
      CHECK_THAT(e.what(), Catch::Contains(victim.string()));
    }
  }
}

TEST_CASE("late failures: batch with one broken dataset file stops before building, naming the file",
          "[hostile][datasets][grader]") {
  TempDir tmp("hostile-batch-datasets");
  const fs::path victim = truncated_set(tmp.path() / "cases", 100);
  const fs::path cls = tmp.path() / "class";
  for (const char* student : {"ann", "bob"}) {
    fs::create_directories(cls / student / "01-naive");
    std::ofstream(cls / student / "01-naive" / "fake.args") << "--fake-time-ms 1\n";
  }
  const ProcessResult p = run_process({CONVLAB_GRADER_TEST_MODE_EXE, "batch", cls.string(), "--labs", "01", "--datasets",
                                       (tmp.path() / "cases").string(), "--json", (tmp.path() / "batch.json").string()},
                                      std::chrono::seconds(120));
  INFO(p.output);
  CHECK(p.exit_code == 2);  // a usage error: the instructor's dataset, not the students
  CHECK_THAT(p.output, Catch::Contains(victim.string()));
  CHECK_THAT(p.output, !Catch::Contains("[1/2]"));  // no student was built or graded
  CHECK_FALSE(fs::exists(tmp.path() / "batch.json"));
}
