// The grader's view of labs and submissions: the lab catalog, --labs, missing files, the
// staging of a submission's files, and the compiler's first errors.
#include <catch2/catch.hpp>

#include <fstream>

#include "grader_test_support.hpp"
#include "build/lab_folders.hpp"
#include "build/submission_build.hpp"

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

TEST_CASE("build: staging copies exactly the submission's files, rewriting only changed ones", "[grader][build]") {
  TempDir tmp("build-sync");
  const fs::path src = tmp.path() / "src", dest = tmp.path() / "dest";
  fs::create_directories(src / "sub");
  fs::create_directories(src / "build");
  std::ofstream(src / "a.cu") << "a";
  std::ofstream(src / "sub" / "b.cuh") << "b";
  std::ofstream(src / "build" / "junk.o") << "junk";
  std::ofstream(src / ".hidden") << "h";
  fs::create_directories(dest);
  std::ofstream(dest / "stale.cu") << "old";
  sync_folder(src, dest);
  CHECK(fs::exists(dest / "a.cu"));
  CHECK(fs::exists(dest / "sub" / "b.cuh"));
  CHECK_FALSE(fs::exists(dest / "build"));
  CHECK_FALSE(fs::exists(dest / ".hidden"));
  CHECK_FALSE(fs::exists(dest / "stale.cu"));
  // Unchanged bytes keep their time stamp, so the build does not recompile them.
  const auto before = fs::last_write_time(dest / "a.cu");
  fs::last_write_time(dest / "a.cu", before - std::chrono::hours(1));
  const auto old = fs::last_write_time(dest / "a.cu");
  sync_folder(src, dest);
  CHECK(fs::last_write_time(dest / "a.cu") == old);
  std::ofstream(src / "a.cu") << "changed";
  sync_folder(src, dest);
  CHECK(fs::last_write_time(dest / "a.cu") != old);
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
