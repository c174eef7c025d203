// The set-up a student meets first: `./convlab --help` is the usage and nothing else (exit 0),
// an unknown command is a usage error (exit 2), and a user who may not install packages is told
// what is missing and how to get it without root, instead of being sent to sudo (exit 3).
#include <catch2/catch.hpp>

#include <filesystem>

#include "grader_test_support.hpp"
#include "system/subprocess.hpp"

namespace fs = std::filesystem;
using convlab::grader::ProcessResult;
using convlab::grader::run_process;
using convlab::grader::testing::TempDir;
using namespace std::chrono_literals;

namespace {

const fs::path kConvlab = fs::path(CONVLAB_SOURCE_DIR) / "convlab";

}  // namespace

TEST_CASE("setup: ./convlab --help prints the usage, not the script, and exits 0", "[setup]") {
  for (const char* flag : {"--help", "-h", "help"}) {
    INFO(flag);
    const ProcessResult r = run_process({"/bin/bash", kConvlab.string(), flag}, 30s);
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.output, Catch::Contains("./convlab labs"));
    CHECK_THAT(r.output, Catch::Contains("./convlab grade"));
    CHECK_THAT(r.output, !Catch::Contains("set -euo"));
    CHECK_THAT(r.output, !Catch::Contains("#"));
  }
}

TEST_CASE("setup: ./convlab with an unknown command names it, prints the usage and exits 2", "[setup]") {
  const ProcessResult r = run_process({"/bin/bash", kConvlab.string(), "frobnicate"}, 30s);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("unknown command 'frobnicate'"));
  CHECK_THAT(r.output, Catch::Contains("./convlab labs"));
}

TEST_CASE("setup: ./convlab labs without CMake, for a user who may not install, names what is missing and "
          "how to get it without root",
          "[setup]") {
  // A PATH with dirname alone: no cmake, ninja or compiler. CONVLAB_NO_INSTALL=1 stands for a
  // user without root or password-less sudo (can_install() says no either way).
  const TempDir tmp("setup-no-root");
  fs::create_directories(tmp.path() / "bin");
  fs::create_symlink("/usr/bin/dirname", tmp.path() / "bin" / "dirname");
  const ProcessResult r = run_process({"/usr/bin/env", "-i", "PATH=" + (tmp.path() / "bin").string(),
                                       "CONVLAB_NO_INSTALL=1", "HOME=" + tmp.path().string(), "/bin/bash",
                                       kConvlab.string(), "labs"},
                                      60s);
  INFO(r.output);
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.output, Catch::Contains("cannot build: missing cmake ninja-build g++"));
  CHECK_THAT(r.output, Catch::Contains("without root"));
  CHECK_THAT(r.output, Catch::Contains("Without root, on a cluster"));
  CHECK_THAT(r.output, !Catch::Contains("sudo: "));
  CHECK_THAT(r.output, !Catch::Contains("apt-get install"));
  CHECK_THAT(r.output, !Catch::Contains("unbound variable"));  // CPATH and friends unset, as here
}
