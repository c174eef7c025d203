// Labs compiled for real with the project's CMake and nvcc (no GPU needed: nothing runs), each in
// a compile folder of its own, through the shared compile store: byte-identical lab folders
// compile once, a changed byte compiles again, a lab that does not compile is named with its own
// message, whatever an earlier compile left in a compile folder is gone before the next one,
// lab 07's graded instantiations are compiled beside it, and every compile links one harness,
// built once.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>

#include "build/lab_compile.hpp"
#include "build/lab_folders.hpp"
#include "convlab/autotune/kernel_source.hpp"
#include "convlab/autotune/precompile.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/limits.hpp"
#include "grader_test_support.hpp"
#include "run/reasons.hpp"
#include "store/compile_store.hpp"
#include "system/sandbox.hpp"

namespace fs = std::filesystem;
using namespace convlab::grader;
using convlab::grader::testing::TempDir;
using convlab::grader::testing::write_test_file;

namespace {

// A submission folder holding the reference solutions of `labs`.
fs::path solved_submission(const fs::path& dir, const std::vector<LabInfo>& labs) {
  for (const LabInfo& lab : labs) {
    fs::create_directories(dir / lab.folder);
    fs::copy(fs::path(CONVLAB_SOURCE_DIR) / "solutions" / lab.folder, dir / lab.folder, fs::copy_options::recursive);
  }
  return dir;
}

std::string read(const fs::path& p) { return convlab::read_file(p, convlab::kMaxTextFileBytes); }

int files_in(const fs::path& dir) {
  int n = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) ++n;
  return n;
}

}  // namespace

TEST_CASE("lab compile: identical bytes compile once, a changed byte again, each compile from a clean folder, "
          "against one harness",
          "[grader][build][compile]") {
  TempDir tmp("lab-compile");
  const std::vector<LabInfo> all = discover_labs(fs::path(CONVLAB_SOURCE_DIR) / "labs");
  const LabInfo lab01 = select_labs(all, "01")[0], lab02 = select_labs(all, "02")[0], lab07 = select_labs(all, "07")[0];
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
  settings.build_dir = tmp.path() / "build" / "labs";
  settings.harness = std::make_shared<HarnessBuild>(h);
  settings.cuda_architectures = "90";
  settings.lab07_shapes = "9:101";
  LabCompiler compiler(settings, all);
  CompileStore store(tmp.path() / "build" / "store");
  std::string error;
  REQUIRE(compiler.prepare(&error));
  INFO(error);
  const std::string context = compiler.context();

  auto build = [&](const std::string& student, const fs::path& folder, const LabInfo& lab) {
    const StagedLab staged = stage_lab(folder, lab);
    const fs::path out = tmp.path() / "exe" / student / lab.id();
    return store.get(store.key(context, staged), student, out,
                     [&](double* core_s) { return compiler.compile(staged, 2, out, core_s); });
  };

  const fs::path good = solved_submission(tmp.path() / "good", {lab01, lab02, lab07});
  const StoredCompile first = build("good", good, lab01);
  INFO(first.exe.could_not_grade << first.exe.build_message);
  REQUIRE(first.exe.exe);
  CHECK_FALSE(first.shared);
  CHECK(first.core_s > 0);  // what the compile cost, measured

  // The same bytes for another student: not compiled, the same executable.
  const fs::path twin = solved_submission(tmp.path() / "twin", {lab01});
  const StoredCompile second = build("twin", twin, lab01);
  REQUIRE(second.exe.exe);
  CHECK(second.shared);
  CHECK(second.compiled_for == "good");
  CHECK(store.compiles() == 1);
  CHECK(read(*second.exe.exe) == read(*first.exe.exe));

  // One byte more (a comment): compiled again.
  const fs::path changed = solved_submission(tmp.path() / "changed", {lab01});
  std::ofstream(changed / lab01.folder / "naive.cu", std::ios::app) << "\n";
  const StoredCompile third = build("changed", changed, lab01);
  REQUIRE(third.exe.exe);
  CHECK_FALSE(third.shared);
  CHECK(store.compiles() == 2);

  // A lab that does not compile: its own message, with the submission's path.
  const fs::path broken = solved_submission(tmp.path() / "broken", {lab02});
  std::ofstream(broken / lab02.folder / "constant_mask.cu", std::ios::app) << "\nthis is not C++;\n";
  const StoredCompile failed = build("broken", broken, lab02);
  CHECK_FALSE(failed.exe.exe);
  CHECK(failed.exe.build_reasons == std::vector<std::string>{reason::kCompileError});
  CHECK_THAT(failed.exe.build_message, Catch::Contains("02-constant-mask/constant_mask.cu"));
  CHECK_THAT(failed.exe.build_message, Catch::Contains("error"));
  CHECK_THAT(failed.exe.build_message, !Catch::Contains("01-naive"));

  // What a hostile compile could leave in its folder — a rewritten build.ninja, an object and an
  // executable for the next lab — is gone before the next compile there: it builds, from its own
  // bytes.
  const fs::path folder = settings.build_dir / "compile-0";
  REQUIRE(fs::is_directory(folder));
  write_test_file(folder / "build.ninja", "this is not a build file\n");
  write_test_file(folder / "bin" / "lab01", "poison");
  const fs::path poisoned = tmp.path() / "poisoned";
  solved_submission(poisoned, {lab01});
  std::ofstream(poisoned / lab01.folder / "naive.cu", std::ios::app) << "// another student\n";
  double spent = 0;
  const LabExecutable clean = compiler.compile(stage_lab(poisoned, lab01), 2, tmp.path() / "exe" / "poisoned", &spent);
  INFO(clean.build_message);
  REQUIRE(clean.exe);
  CHECK(read(*clean.exe) != "poison");
  CHECK(read(*clean.exe).size() > 1000);

  // Two compiles at once run in two folders, configured alike; lab 07 compiles only the
  // instantiations its graded shapes run, beside its launcher, and carries them and its kernel.
  auto lab07_build = std::async(std::launch::async, [&] { return build("good", good, lab07); });
  const StoredCompile lab02_built = build("good", good, lab02);
  const StoredCompile lab07_built = lab07_build.get();
  INFO(lab07_built.exe.build_message << lab07_built.exe.could_not_grade);
  REQUIRE(lab02_built.exe.exe);
  REQUIRE(lab07_built.exe.exe);
  CHECK(fs::is_directory(settings.build_dir / "compile-1"));
  const fs::path exe07 = *lab07_built.exe.exe;
  CHECK(fs::is_regular_file(exe07.string() + convlab::lab07::kKernelCopySuffix));
  const std::size_t expected = convlab::lab07::graded_instantiations({{9, 101}}, {}).size();
  REQUIRE(expected > 0);
  // Each instantiation is a cubin and its description.
  CHECK(files_in(exe07.string() + convlab::lab07::kPrecompiledSuffix) == static_cast<int>(2 * expected));

  // Another shape set, another sandbox setting: another context, so no key is shared across them.
  BuildSettings other = settings;
  other.build_dir = tmp.path() / "build" / "labs-other";
  other.lab07_shapes = "5:2048";
  LabCompiler other_compiler(other, all);
  REQUIRE(other_compiler.prepare(&error));
  CHECK(other_compiler.context() != context);
  CHECK(harness_builds == 1);
  CHECK(fs::exists(h.build_dir / "common" / "libconvlab_runner.a"));
  CHECK(fs::exists(h.build_dir / kHarnessStamp));

  // Sandboxed, as the grader compiles: the compile sees no labs/ of the project, and must not need it.
  if (const SandboxProbe probe = probe_sandbox(); probe.ok()) {
    BuildSettings boxed = settings;
    boxed.build_dir = tmp.path() / "build" / "labs-boxed";
    boxed.sandbox = SandboxSpec{};
    boxed.sandbox->bwrap = *probe.bwrap;
    LabCompiler sandboxed(boxed, all);
    REQUIRE(sandboxed.prepare(&error));
    CHECK(sandboxed.context() != context);
    // CMake's inputs newer than the build rules (a restore that wrote build.ninja before
    // CMakeCache.txt did that): the compile must not re-run CMake, which in the sandbox would find
    // no labs/ and fail every lab.
    const fs::path configured = boxed.build_dir / "compile-0.configured";
    REQUIRE(fs::exists(configured / "CMakeCache.txt"));
    fs::last_write_time(configured / "CMakeCache.txt", fs::file_time_type::clock::now() + std::chrono::hours(1));
    CHECK_THAT(read(configured / "build.ninja"), !Catch::Contains("build build.ninja:"));  // no regeneration edge
    spent = 0;
    const LabExecutable fourth = sandboxed.compile(stage_lab(good, lab01), 2, tmp.path() / "exe" / "boxed", &spent);
    INFO(fourth.could_not_grade << fourth.build_message);
    CHECK(fourth.exe);
    // The sandbox's compile is measured too: nvcc's seconds, not the few milliseconds of bwrap
    // (under bwrap's own init, wait4 saw none of the compilers' time).
    CHECK(spent > 1.0);
    // Lab 07's precompiler runs in the sandbox too (the handout's kernel: nothing to compile, but
    // the program and NVRTC must start there).
    const fs::path stub = fs::path(CONVLAB_SOURCE_DIR) / "labs";
    const LabExecutable boxed07 = sandboxed.compile(stage_lab(stub, lab07), 2, tmp.path() / "exe" / "boxed07", &spent);
    INFO(boxed07.could_not_grade << boxed07.build_message);
    REQUIRE(boxed07.exe);
    CHECK(fs::is_directory(boxed07.exe->string() + convlab::lab07::kPrecompiledSuffix));
  } else {
    WARN("sandboxed build SKIPPED: " << probe.problem << " (" << probe.fix << ")");
  }
  CHECK_FALSE(fs::exists(settings.build_dir / "compile-0" / "common" / "libconvlab_runner.a"));
}

TEST_CASE("copy_plain_tree: every file keeps its modification time, so a restored build folder is as up to date as "
          "the one it was copied from",
          "[grader][build]") {
  TempDir tmp("plain-tree");
  const fs::path from = tmp.path() / "from";
  write_test_file(from / "CMakeCache.txt", "cache\n");
  write_test_file(from / "sub" / "build.ninja", "rules\n");
  const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(2);
  const auto new_time = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(from / "CMakeCache.txt", old_time);
  fs::last_write_time(from / "sub" / "build.ninja", new_time);
  copy_plain_tree(from, tmp.path() / "to");
  CHECK(fs::last_write_time(tmp.path() / "to" / "CMakeCache.txt") == old_time);
  CHECK(fs::last_write_time(tmp.path() / "to" / "sub" / "build.ninja") == new_time);
  CHECK(read(tmp.path() / "to" / "sub" / "build.ninja") == "rules\n");
}
