// lab07_precompile: the build step that compiles, ahead of any run, the lab 07 instantiations a
// launcher would otherwise compile with NVRTC at first use (convlab/autotune/precompile.hpp).
// CMake runs it after linking lab07 and solution07 when CONVLAB_LAB07_PRECOMPILE is on (the
// grader's submission builds, the gpu preset):
//
//   lab07_precompile --kernel bin/lab07.kernel.cuh --arch "90" --out bin/lab07.jit-cache
//
// The grader runs it itself on a submission's kernel, with --shapes: only the instantiations its
// case set and performance case make the launcher compile (graded_instantiations).
//
// It needs no GPU. A configuration NVRTC rejects is listed and left to fail at run time, where
// the lab's report names it; the build itself never fails because of it.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <string>
#include <thread>

#include "convlab/autotune/kernel_source.hpp"
#include "convlab/autotune/precompile.hpp"
#include "convlab/autotune/search_space.hpp"

int main(int argc, char** argv) {
  using namespace convlab::lab07;
  CLI::App app{"compile lab 07's run-time instantiations ahead, into a folder its launcher reads first"};
  std::string kernel, arch, out, masks = "all", origin = "labs";
  int jobs = 0;
  app.add_option("--kernel", kernel, "the kernel source the executable compiles from (its copy, bin/lab07.kernel.cuh)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--arch", arch, "the targets, as CMAKE_CUDA_ARCHITECTURES: 90, or 80-real;90")->required();
  app.add_option("--out", out, "the folder to fill, e.g. bin/lab07.jit-cache (what it holds of another kernel is removed)")
      ->required();
  std::string shapes;
  auto* masks_option = app.add_option("--masks", masks, "mask widths, e.g. 3,5 (default: all that lab 07 takes)");
  app.add_option("--shapes", shapes,
                 "only what grading these conv2d cases runs, as MASK:WIDTH pairs, e.g. 5:2048,3:263 (the grader's "
                 "submission builds)")
      ->excludes(masks_option);
  app.add_option("--origin", origin, "labs or solutions (only named in the summary)")->check(CLI::IsMember({"labs", "solutions"}));
  app.add_option("--jobs", jobs, "compile threads (default: all hardware threads)")->check(CLI::Range(1, 1024));
  CLI11_PARSE(app, argc, argv);

  try {
    const KernelSource source = read_kernel_source(kernel, origin);
    const std::vector<ComputeCapability> targets = real_architectures(arch);
    if (targets.empty()) {
      fmt::print("lab07_precompile: nothing compiled: the architectures '{}' name no GPU (lab 07 compiles at run "
                 "time instead)\n", arch);
      return 0;
    }
    const std::vector<int> unwritten = unwritten_steps(source.text);
    const std::vector<KernelVariant> variants = shapes.empty()
                                                    ? launcher_jit_instantiations(parse_mask_list(masks), unwritten)
                                                    : graded_instantiations(parse_graded_shapes(shapes), unwritten);
    const int threads = jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const PrecompileReport r = precompile(source, variants, targets, out, threads);
    std::string sms;
    for (const ComputeCapability& cc : targets) sms += fmt::format("{}sm_{}{}", sms.empty() ? "" : ",", cc.first, cc.second);
    fmt::print("lab07_precompile: {} ({}): {} instantiations for {} in {} ({} kept from the last build) in {:.1f} s "
               "on {} threads{}\n",
               kernel, origin, r.compiled, sms, out, r.reused, r.seconds, threads,
               r.failures.empty() ? "" : fmt::format(", {} failed (they fail again when the lab runs them):", r.failures.size()));
    for (const std::string& f : r.failures) fmt::print("  {}\n", f);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "lab07_precompile: error: {}\n", e.what());
    return 2;
  }
}
