/// @file precompile.hpp
/// @brief Lab 07's run-time compilations moved to build time. Without a tuning file (the
///        grader's sandbox shows a lab none) the launcher compiles, at first use, every variant's
///        configuration that is not compiled in: the default moved onto the variant's path
///        (force_path), with and without vector loads. For the 26 public cases that is about
///        25 s of NVRTC in every lab 07 process, spent while the grader holds a GPU. The build
///        compiles the same instantiations ahead, on every core, into a folder beside the
///        executable (`bin/lab07.jit-cache/`, the tool `lab07_precompile`), where the launcher
///        looks first (TunedDispatch): a grading run then compiles nothing.
///
/// The cubins are keyed like the run-time cache (jit.hpp: source text, instantiation, NVRTC
/// version, options), so an edited kernel simply misses and compiles at run time as before.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "convlab/autotune/kernel_source.hpp"
#include "convlab/lab07_config.hpp"

namespace convlab::lab07 {

/// A compute capability (9, 0) for sm_90.
using ComputeCapability = std::pair<int, int>;

/// The instantiations a launcher reading no tuning file compiles at run time for these mask
/// widths: for each variant's role ("", "loaded", "shfl", "constant", "shared") the default
/// configuration moved onto that path, vector and scalar, leaving out those compiled into the
/// launcher (compiled_in) and those whose steps are still unwritten (the launcher does not run
/// them). Each instantiation once.
std::vector<KernelVariant> launcher_jit_instantiations(const std::vector<int>& widths,
                                                       const std::vector<int>& unwritten_steps);

/// A conv2d case as lab 07's launcher sees it: the mask width and the image width (the vector
/// path needs width % VW == 0; the harness's buffers are always aligned for it).
struct GradedShape {
  int mask_width = 0;
  int width = 0;
};

/// Exactly the instantiations a launcher reading no tuning file (the grader's sandbox shows it
/// none) compiles at run time when it runs every variant on `shapes`: for each shape's mask
/// width, each role's configuration (register_tiling.cu: run(a, step, role)), with vector loads
/// when that shape's width allows them and without when it does not; less those compiled into
/// the launcher and those whose steps are unwritten. A subset of launcher_jit_instantiations():
/// a case set whose images are all odd-width needs no vector instantiation, say. Widths lab 07
/// does not take are passed over (those cases fail in the lab, compiling nothing).
std::vector<KernelVariant> graded_instantiations(const std::vector<GradedShape>& shapes,
                                                 const std::vector<int>& unwritten_steps);

/// "5:2048,3:263" -> two shapes (mask width:image width). @throws std::invalid_argument naming the bad item
std::vector<GradedShape> parse_graded_shapes(const std::string& text);

/// The real targets of a CMAKE_CUDA_ARCHITECTURES list: "80-real;86-real;90" -> (8,0) (8,6)
/// (9,0); "90a" -> (9,0). Names that are no target ("native", "all", "all-major") give none.
/// @throws std::invalid_argument for an item that is neither.
std::vector<ComputeCapability> real_architectures(const std::string& cmake_list);

/// What a precompilation did.
struct PrecompileReport {
  int compiled = 0;                  ///< cubins in the folder (instantiations × targets)
  int reused = 0;                    ///< of those, found there from the last build (same source)
  std::vector<std::string> failures; ///< "K=5 …: NVRTC's first line": they compile (and fail) at run time instead
  double seconds = 0;                ///< wall time
};

/// Compiles `variants` of `source` for every target into `out` on `threads` threads, keeping
/// what `out` already holds of them (an unchanged kernel rebuilt compiles nothing) and removing
/// everything else there. A failing instantiation is reported, not thrown: the lab reports it
/// when it runs.
/// @throws std::runtime_error when `out` cannot be made.
PrecompileReport precompile(const KernelSource& source, const std::vector<KernelVariant>& variants,
                            const std::vector<ComputeCapability>& targets, const std::filesystem::path& out,
                            int threads);

}  // namespace convlab::lab07
