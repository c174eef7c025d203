// Lab 07's run-time compilations done at build time (convlab/autotune/precompile.hpp): the set
// the launcher would compile is covered exactly, the cubins are what the launcher's lookup finds,
// and the grader carries them beside the executable into the lab's sandbox. NVRTC needs no GPU,
// so all of it runs on CI (CUDA configurations only).
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>

#include "convlab/autotune/jit.hpp"
#include "convlab/autotune/kernel_source.hpp"
#include "convlab/autotune/precompile.hpp"
#include "convlab/file_reader.hpp"
#include "run/runner_call.hpp"
#include "build/lab_compile.hpp"
#include "grader_test_support.hpp"
#include "system/exit_codes.hpp"
#include "system/subprocess.hpp"

namespace fs = std::filesystem;
using namespace convlab::lab07;
using convlab::grader::testing::TempDir;
using convlab::grader::testing::write_test_file;

namespace {

const fs::path kSolutionKernel = fs::path(CONVLAB_SOURCE_DIR) / "solutions" / "07-register-tiling" / kKernelFileName;

std::set<std::string> names_of(const std::vector<KernelVariant>& vs) {
  std::set<std::string> out;
  for (const KernelVariant& v : vs) out.insert(kernel_name(v));
  return out;
}

}  // namespace

TEST_CASE("lab07 precompile: every configuration a variant runs without a tuning file is compiled in or precompiled",
          "[lab07][precompile]") {
  const std::vector<int> widths = supported_mask_widths().widths();
  const std::set<std::string> pre = names_of(launcher_jit_instantiations(widths, {}));
  int precompiled = 0;
  for (const int k : widths) {
    // The launcher's roles (register_tiling.cu: run(a, step, role)); "" is register_tiled.
    for (const char* role : {"", "loaded", "shfl", "constant", "shared"}) {
      const TileConfig c = *role ? force_path(*default_config(k), role) : *default_config(k);
      for (const bool vec : {true, false}) {
        INFO("K=" << k << " role '" << role << "' vec " << vec);
        const bool in = compiled_in(c);
        const bool ahead = pre.count(kernel_name({c, vec, false})) > 0;
        CHECK(in != ahead);  // one or the other, never both: nothing is compiled twice
        precompiled += ahead ? 1 : 0;
      }
    }
  }
  CHECK(precompiled > 0);
  // And nothing beyond what the variants ask for.
  CHECK(pre.size() <= static_cast<std::size_t>(precompiled));
}

TEST_CASE("lab07 precompile: a configuration that needs an unwritten step is left out", "[lab07][precompile]") {
  const std::vector<int> widths = supported_mask_widths().widths();
  for (const KernelVariant& v : launcher_jit_instantiations(widths, {3})) CHECK(v.config.filter != FilterPath::shfl);
  for (const KernelVariant& v : launcher_jit_instantiations(widths, {5})) CHECK(v.config.input != InputPath::shared);
  CHECK(launcher_jit_instantiations(widths, {2}).empty());  // every kernel calls step 2
  // The handed-out skeleton has steps 1–5 unwritten: nothing to compile.
  const KernelSource stub = read_kernel_source(fs::path(CONVLAB_SOURCE_DIR) / "labs" / "07-register-tiling" / kKernelFileName, "labs");
  CHECK(launcher_jit_instantiations(widths, unwritten_steps(stub.text)).empty());
  CHECK_THROWS_WITH(launcher_jit_instantiations({8}, {}), "lab 07 does not take mask width 8");
}

TEST_CASE("lab07 precompile: the graded shapes give exactly the instantiations their runs compile", "[lab07][precompile]") {
  const std::vector<int> widths = supported_mask_widths().widths();
  // Every width, each with an image width that takes every vector path and one that takes none:
  // the same set as every instantiation a launcher can ask for.
  std::vector<GradedShape> both;
  for (const int k : widths) both.insert(both.end(), {{k, 2048}, {k, 2047}});
  CHECK(names_of(graded_instantiations(both, {})) == names_of(launcher_jit_instantiations(widths, {})));

  // Odd image widths only: no vector instantiation is needed.
  std::vector<GradedShape> odd;
  for (const int k : widths) odd.push_back({k, 263});
  const std::vector<KernelVariant> scalar = graded_instantiations(odd, {});
  REQUIRE_FALSE(scalar.empty());
  for (const KernelVariant& v : scalar) CHECK_FALSE((v.vec && v.config.vector_width() > 1));
  CHECK(scalar.size() < launcher_jit_instantiations(widths, {}).size());

  // Each shape's instantiations are the launcher's choice for it (register_tiling.cu's run()).
  for (const GradedShape shape : {GradedShape{5, 2048}, GradedShape{9, 101}, GradedShape{17, 64}}) {
    INFO("K=" << shape.mask_width << " width " << shape.width);
    std::set<std::string> expected;
    for (const char* role : {"", "loaded", "shfl", "constant", "shared"}) {
      const TileConfig c = *role ? force_path(*default_config(shape.mask_width), role) : *default_config(shape.mask_width);
      const bool vec = c.vector_width() > 1 && shape.width % c.vector_width() == 0;
      if (!compiled_in(c)) expected.insert(kernel_name({c, vec, false}));
    }
    CHECK(names_of(graded_instantiations({shape}, {})) == expected);
  }
  // Unwritten steps and widths lab 07 does not take compile nothing.
  CHECK(graded_instantiations({{5, 2048}}, {2}).empty());
  CHECK(graded_instantiations({{1, 96}, {8, 64}}, {}).empty());
  for (const KernelVariant& v : graded_instantiations(both, {3})) CHECK(v.config.filter != FilterPath::shfl);

  CHECK(parse_graded_shapes("5:2048,3:263").size() == 2);
  CHECK(parse_graded_shapes("5:2048,3:263")[1].width == 263);
  CHECK_THROWS_WITH(parse_graded_shapes("5x2048"), Catch::Contains("is not MASK:WIDTH"));
  CHECK_THROWS_WITH(parse_graded_shapes("5:"), Catch::Contains("is not MASK:WIDTH"));
}

TEST_CASE("lab07 tune: --compile-only refuses a kernel with unwritten steps, naming them, before compiling anything",
          "[lab07][tune]") {
  using namespace std::chrono_literals;
  auto tune = [](std::vector<std::string> args) {
    args.insert(args.begin(), {CONVLAB_GRADER_EXE, "tune", "--compile-only", "--quick", "--masks", "3"});
    return convlab::grader::run_process(args, 60s);
  };
  // The skeleton as shipped (labs/): its empty functions would compile to "4 registers, 0 spilled".
  convlab::grader::ProcessResult r = tune({});
  INFO(r.output);
  CHECK(r.exit_code == convlab::grader::kCouldNotGrade);
  CHECK_THAT(r.output, Catch::Contains("still has steps 2, 3, 4 unwritten"));
  CHECK_THAT(r.output, !Catch::Contains("registers"));
  // A copy with only step 3 unwritten names step 3 alone.
  const TempDir tmp("tune-unwritten");
  std::string text = read_kernel_source(kSolutionKernel, "file").text;
  const std::string written = "inline constexpr bool kStep3Written = true;";
  REQUIRE(text.find(written) != std::string::npos);
  text.replace(text.find(written), written.size(), "inline constexpr bool kStep3Written = false;");
  write_test_file(tmp.path() / kKernelFileName, text);
  r = tune({"--kernel", (tmp.path() / kKernelFileName).string()});
  INFO(r.output);
  CHECK(r.exit_code == convlab::grader::kCouldNotGrade);
  CHECK_THAT(r.output, Catch::Contains("still has steps 3 unwritten"));
}

TEST_CASE("lab07 precompile: CMake architecture lists give their real targets, names none, anything else an error",
          "[lab07][precompile]") {
  using V = std::vector<ComputeCapability>;
  CHECK(real_architectures("90") == V{{9, 0}});
  CHECK(real_architectures("80-real;86-real;89-real;90") == V{{8, 0}, {8, 6}, {8, 9}, {9, 0}});
  CHECK(real_architectures("90a;90-virtual;90") == V{{9, 0}});
  CHECK(real_architectures("100") == V{{10, 0}});
  CHECK(real_architectures("native").empty());
  CHECK(real_architectures("all-major").empty());
  CHECK_THROWS_WITH(real_architectures("90;sm_80"), "'sm_80' is not a CUDA architecture (e.g. 90, 80-real)");
  CHECK_THROWS_WITH(real_architectures("9"), "'9' is not a CUDA architecture (e.g. 90, 80-real)");
}

TEST_CASE("lab07 precompile: the cubins are found by the launcher's lookup, kept when unchanged, and another "
          "kernel's are removed",
          "[lab07][precompile]") {
  TempDir tmp("lab07-precompile");
  const fs::path out = tmp.path() / "lab07.jit-cache";
  const KernelSource source = read_kernel_source(kSolutionKernel, "solutions");
  const std::vector<KernelVariant> variants = launcher_jit_instantiations({2}, {});
  REQUIRE(!variants.empty());
  write_test_file(out / "0123456789abcdef.cubin", "an older kernel's");

  const PrecompileReport first = precompile(source, variants, {{9, 0}}, out, 2);
  CHECK(first.failures.empty());
  CHECK(first.compiled == static_cast<int>(variants.size()));
  CHECK(first.reused == 0);
  CHECK_FALSE(fs::exists(out / "0123456789abcdef.cubin"));
  for (const KernelVariant& v : variants) {
    INFO(kernel_name(v));
    const CompiledCubin c = compile_variant(source.text, v, 9, 0, {}, out);  // no cache: only the folder
    CHECK(c.from_cache);
    CHECK_FALSE(c.cubin.empty());
  }
  // Another target, or an edited kernel, is not in the folder: it compiles.
  CHECK_FALSE(compile_variant(source.text, variants.front(), 8, 0, {}, out).from_cache);
  CHECK_FALSE(compile_variant(source.text + "\n// edited\n", variants.front(), 9, 0, {}, out).from_cache);

  const PrecompileReport again = precompile(source, variants, {{9, 0}}, out, 2);
  CHECK(again.reused == static_cast<int>(variants.size()));
}

TEST_CASE("lab07 precompile: the grader copies only the folder's plain files, and binds it read-only into the "
          "lab's sandbox",
          "[lab07][precompile][grader]") {
  TempDir tmp("lab07-precompile-copy");
  const fs::path built = tmp.path() / "build" / "bin" / "lab07";
  const fs::path exe = tmp.path() / "exe" / "lab07";
  write_test_file(built.string() + kPrecompiledSuffix + "/a.cubin", "cubin");
  write_test_file(tmp.path() / "secret", "the datasets");
  fs::create_symlink(tmp.path() / "secret", built.string() + kPrecompiledSuffix + "/b.cubin");
  write_test_file(exe.string() + kPrecompiledSuffix + "/stale.cubin", "the last student's");
  write_test_file(exe, "executable");

  convlab::grader::copy_precompiled(built.string() + kPrecompiledSuffix, exe.string() + kPrecompiledSuffix);
  const fs::path folder = exe.string() + kPrecompiledSuffix;
  CHECK(convlab::read_file(folder / "a.cubin", 100) == "cubin");
  CHECK_FALSE(fs::exists(fs::symlink_status(folder / "b.cubin")));
  CHECK_FALSE(fs::exists(folder / "stale.cubin"));

  convlab::grader::SandboxSpec spec;
  spec.bwrap = "/usr/bin/bwrap";
  const std::vector<std::string> argv =
      convlab::grader::lab_sandbox_argv(spec, exe, {}, tmp.path() / "work", {exe.string()});
  bool bound = false;
  for (std::size_t i = 0; i + 2 < argv.size(); ++i) {
    bound |= argv[i] == "--ro-bind" && argv[i + 1] == folder.string() && argv[i + 2] == folder.string();
  }
  CHECK(bound);

  // No folder beside the build's executable (a build without precompiling): none beside the copy.
  convlab::grader::copy_precompiled(tmp.path() / "build" / "bin" / "nothing", folder);
  CHECK_FALSE(fs::exists(folder));
}
