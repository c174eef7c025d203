// The grader's view of labs and submissions: the lab catalog, --labs, missing files, the
// staging of a submission's files, and the compiler's first errors.
#include <catch2/catch.hpp>

#include <fstream>

#include "grader_test_support.hpp"
#include "build/lab_folders.hpp"
#include "build/lab_compile.hpp"
#include "convlab/contained_paths.hpp"
#include "run/reasons.hpp"

using namespace convlab::grader;
using namespace convlab::grader::testing;
namespace fs = std::filesystem;

TEST_CASE("build: the catalog is the labs/ folder", "[grader][build]") {
  const std::vector<LabInfo> labs = discover_labs(fs::path(CONVLAB_SOURCE_DIR) / "labs");
  REQUIRE(labs.size() >= 7);
  CHECK(labs[0].number == "01");
  CHECK(labs[0].folder == "01-naive");
  CHECK(labs[0].id() == "lab01");
  CHECK(labs[0].files == std::vector<std::string>{"naive.cu"});
  for (const LabInfo& lab : labs) {
    INFO(lab.folder);
    CHECK_FALSE(lab.files.empty());
    CHECK(std::find(lab.files.begin(), lab.files.end(), "README.md") == lab.files.end());
    CHECK(lab.folder != "00-start");  // the start page is reading, not a lab
  }
}

TEST_CASE("build: --labs picks labs by number", "[grader][build]") {
  const std::vector<LabInfo> all = discover_labs(fs::path(CONVLAB_SOURCE_DIR) / "labs");
  const auto some = select_labs(all, "3,lab01,01");
  REQUIRE(some.size() == 2);
  CHECK(some[0].number == "01");
  CHECK(some[1].number == "03");
  CHECK(select_labs(all, "").size() == all.size());
  CHECK(select_labs(all, "all").size() == all.size());
  CHECK_THROWS_WITH(select_labs(all, "99"), Catch::Contains("there is no lab 99"));
  CHECK_THROWS_WITH(select_labs(all, "naive"), Catch::Contains("'naive' is not a lab number"));
}

TEST_CASE("build: missing files are named as in the submission", "[grader][build]") {
  TempDir tmp("build-missing");
  const LabInfo lab{"06", "06-im2col", {"fused_gemm.cu", "unroll_gemm.cu"}};
  fs::create_directories(tmp.path() / "06-im2col");
  std::ofstream(tmp.path() / "06-im2col" / "unroll_gemm.cu") << "// mine\n";
  CHECK(missing_files(tmp.path(), lab) == std::vector<std::string>{"06-im2col/fused_gemm.cu"});
}

TEST_CASE("build: a lab is read as exactly the submission's files, and written back as them", "[grader][build]") {
  TempDir tmp("build-stage");
  const LabInfo lab{"01", "01-naive", {"naive.cu"}};
  const fs::path src = tmp.path() / "student" / "01-naive";
  write_test_file(src / "naive.cu", "a");
  write_test_file(src / "sub" / "b.cuh", "b");
  write_test_file(src / "build" / "junk.o", "junk");
  write_test_file(src / ".hidden", "h");
  const StagedLab staged = stage_lab(tmp.path() / "student", lab);
  CHECK_FALSE(staged.unbuildable);
  CHECK(staged.files == LabFiles{{"naive.cu", "a"}, {"sub/b.cuh", "b"}});
  // Written into a compile folder: those files and nothing else (a stale one goes).
  const fs::path dest = tmp.path() / "dest";
  write_test_file(dest / "stale.cu", "old");
  write_lab_files(staged.files, dest);
  CHECK(convlab::files_inside(dest) == std::vector<fs::path>{"naive.cu", fs::path("sub") / "b.cuh"});
  CHECK_THROWS_WITH(write_lab_files({{"../escape.cu", "x"}}, dest), Catch::Contains("leads out of its folder"));
  CHECK_THROWS_WITH(write_lab_files({{"/etc/escape.cu", "x"}}, dest), Catch::Contains("leads out of its folder"));
  // A missing lab file: unbuildable, by its name in the submission.
  fs::remove(src / "naive.cu");
  const StagedLab missing = stage_lab(tmp.path() / "student", lab);
  REQUIRE(missing.unbuildable);
  CHECK(missing.unbuildable->build_reasons == std::vector<std::string>{reason::kMissingFile});
  CHECK_THAT(missing.unbuildable->build_message, Catch::Contains("01-naive/naive.cu"));
}

TEST_CASE("build: the compiler's first errors, with the submission's own paths", "[grader][build]") {
  const std::string log = R"([1/3] Building CUDA object CMakeFiles/lab02.dir/tmp/b/submission/02-constant-mask/constant_mask.cu.o
FAILED: CMakeFiles/lab02.dir/tmp/b/submission/02-constant-mask/constant_mask.cu.o
/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -O3 -c /tmp/b/submission/02-constant-mask/constant_mask.cu
/tmp/b/submission/02-constant-mask/constant_mask.cu(31): error: identifier "undefined_name" is undefined
      sum += undefined_name;
             ^

1 error detected in the compilation of "/tmp/b/submission/02-constant-mask/constant_mask.cu".
ninja: build stopped: subcommand failed.
)";
  const std::string errors = first_compiler_errors(log, "/tmp/b/submission/");
  CHECK_THAT(errors, Catch::StartsWith("02-constant-mask/constant_mask.cu(31): error: identifier \"undefined_name\" is undefined"));
  CHECK_THAT(errors, Catch::Contains("sum += undefined_name;"));
  CHECK_THAT(errors, Catch::Contains("^"));
  CHECK_THAT(errors, !Catch::Contains("ninja"));
  CHECK_THAT(errors, !Catch::Contains("/tmp/b"));
  // No error line at all: the log's end.
  CHECK_THAT(first_compiler_errors("something\nwent wrong\n", "/x/"), Catch::Contains("went wrong"));
}
