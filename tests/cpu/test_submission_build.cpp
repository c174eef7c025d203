// A submission built for real with the project's CMake and nvcc (no GPU needed: nothing runs):
// its labs compile together, a lab that does not compile fails alone with its own message, an
// executable left in the build folder by the previous submission never stands in for it, and
// two build folders link one harness, built once.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "build/lab_folders.hpp"
#include "run/reasons.hpp"
#include "build/submission_build.hpp"
#include "grader_test_support.hpp"
#include "system/sandbox.hpp"

namespace fs = std::filesystem;
using namespace convlab::grader;
using convlab::grader::testing::TempDir;

namespace {

// A submission folder holding the reference solutions of `labs`.
fs::path solved_submission(const fs::path& dir, const std::vector<LabInfo>& labs) {
  for (const LabInfo& lab : labs) {
    fs::create_directories(dir / lab.folder);
    fs::copy(fs::path(CONVLAB_SOURCE_DIR) / "solutions" / lab.folder, dir / lab.folder, fs::copy_options::recursive);
  }
  return dir;
}

}  // namespace

TEST_CASE("submission build: the labs compile together, and one that does not is named alone, with no earlier executable "
          "standing in for it",
          "[grader][build][compile]") {
  TempDir tmp("submission-build");
  const std::vector<LabInfo> all = discover_labs(fs::path(CONVLAB_SOURCE_DIR) / "labs");
  const std::vector<LabInfo> graded = select_labs(all, "01,02");
  HarnessSettings h;
  h.source_dir = CONVLAB_SOURCE_DIR;
  h.build_dir = tmp.path() / "build" / "harness";
  h.cuda_architectures = "90";
  h.jobs = 2;
  for (const LabInfo& lab : all) h.labs.push_back(lab.number);
  int harness_builds = 0;
  h.progress = [&](const std::string& line) { harness_builds += line.rfind("building the lab harness", 0) == 0; };
  BuildSettings settings;
  settings.source_dir = CONVLAB_SOURCE_DIR;
  settings.build_dir = tmp.path() / "build" / "worker-0";
  settings.harness = std::make_shared<HarnessBuild>(h);
  settings.cuda_architectures = "90";
  settings.jobs = 2;
  SubmissionBuilder builder(settings, all);

  const fs::path good = solved_submission(tmp.path() / "good", graded);
  builder.stage(good, graded);
  const std::vector<LabExecutable> first = builder.build_all(graded, tmp.path() / "exe-good");
  REQUIRE(first.size() == 2);
  INFO(first[0].could_not_grade << first[0].build_message << first[1].build_message);
  REQUIRE(first[0].exe);
  REQUIRE(first[1].exe);
  CHECK(fs::exists(tmp.path() / "exe-good" / "lab02"));

  // The next student: lab 01 the same bytes, lab 02 broken.
  const fs::path broken = solved_submission(tmp.path() / "broken", graded);
  std::ofstream(broken / "02-constant-mask" / "constant_mask.cu", std::ios::app) << "\nthis is not C++;\n";
  builder.stage(broken, graded);
  const std::vector<LabExecutable> second = builder.build_all(graded, tmp.path() / "exe-broken");
  REQUIRE(second.size() == 2);
  CHECK(second[0].exe);
  CHECK_FALSE(second[1].exe);
  CHECK_FALSE(fs::exists(tmp.path() / "exe-broken" / "lab02"));
  CHECK(second[1].build_reasons == std::vector<std::string>{reason::kCompileError});
  // The compiler's own words, with the submission's path, and nothing of the lab that built.
  CHECK_THAT(second[1].build_message, Catch::Contains("02-constant-mask/constant_mask.cu"));
  CHECK_THAT(second[1].build_message, Catch::Contains("error"));
  CHECK_THAT(second[1].build_message, !Catch::Contains("01-naive"));

  // A second build folder (a class's second build worker) links the same harness: it compiles
  // its labs only.
  BuildSettings other = settings;
  other.build_dir = tmp.path() / "build" / "worker-1";
  SubmissionBuilder second_worker(other, all);
  const std::vector<LabInfo> lab01 = select_labs(all, "01");
  second_worker.stage(good, lab01);
  const std::vector<LabExecutable> third = second_worker.build_all(lab01, tmp.path() / "exe-worker-1");
  REQUIRE(third.size() == 1);
  INFO(third[0].could_not_grade << third[0].build_message);
  CHECK(third[0].exe);
  CHECK(harness_builds == 1);
  CHECK(fs::exists(h.build_dir / "common" / "libconvlab_runner.a"));

  // Sandboxed, as the grader compiles: the compile sees no labs/ of the project, and must not need it.
  if (const SandboxProbe probe = probe_sandbox(); probe.ok()) {
    BuildSettings boxed = settings;
    boxed.build_dir = tmp.path() / "build" / "worker-boxed";
    boxed.sandbox = SandboxSpec{};
    boxed.sandbox->bwrap = *probe.bwrap;
    SubmissionBuilder sandboxed(boxed, all);
    sandboxed.stage(good, lab01);
    const std::vector<LabExecutable> fourth = sandboxed.build_all(lab01, tmp.path() / "exe-boxed");
    REQUIRE(fourth.size() == 1);
    INFO(fourth[0].could_not_grade << fourth[0].build_message);
    CHECK(fourth[0].exe);
  } else {
    WARN("sandboxed build SKIPPED: " << probe.problem << " (" << probe.fix << ")");
  }
  for (const char* worker : {"worker-0", "worker-1"}) {
    INFO(worker);
    CHECK_FALSE(fs::exists(tmp.path() / "build" / worker / "common" / "libconvlab_runner.a"));
  }
}
