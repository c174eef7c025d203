#include "performance/prediction.hpp"

#include <fmt/format.h>

#include "convlab/analysis_banded.hpp"
#include "convlab/analysis_im2col.hpp"
#include "convlab/analysis_register_tiling.hpp"
#include "convlab/analysis_tensor_cores.hpp"

namespace convlab::grader {

namespace {

/// Labs 01–05: the tiling model of analysis.hpp, one prediction for every variant.
PredictionResult predict_tiling(const std::string& number, const Conv2dShape& shape) {
  PredictionResult p;
  const std::optional<analysis::Config> config = lab_analysis_config(number, shape);
  if (!config) {
    p.unavailable = fmt::format("the analysis model has no configuration for lab {}", number);
    return p;
  }
  try {
    config->validate();
    const analysis::GridAnalysis g = analysis::analyze_grid(*config);
    p.config = config->describe();
    p.exact_reduction = g.exact_reduction();
    p.interior_reduction = g.interior_reduction;
    p.global_input_load_bytes = analysis::kBytesPerFloat * static_cast<double>(g.total.global_input_loads);
    p.global_mask_load_bytes = analysis::kBytesPerFloat * static_cast<double>(g.total.global_mask_loads);
    p.shared_load_bytes = analysis::kBytesPerFloat * static_cast<double>(g.total.shared_loads);
    p.warps = g.total.warps;
    p.divergent_warps_load = g.total.divergent_warps_load;
    p.divergent_warps_compute = g.total.divergent_warps_compute;
    VariantPrediction v;
    v.config = p.config;
    v.global_load_bytes = analysis::kBytesPerFloat * static_cast<double>(g.total.global_loads());
    v.warps = g.total.warps;
    v.divergent_warps = g.total.divergent_warps_any;
    p.variants.push_back(v);
  } catch (const std::exception& e) {
    p.unavailable = fmt::format("the analysis model rejects {}: {}", config->describe(), e.what());
  }
  return p;
}

/// Lab 07: each variant's configuration (the tuned one, or one path forced) on the image.
PredictionResult predict_register_tiling(const PredictionContext& ctx) {
  PredictionResult p;
  const Conv2dShape& s = ctx.conv2d;
  const lab07::TuningTable* tuned = ctx.lab07_tuning ? &*ctx.lab07_tuning : nullptr;
  try {
    for (const lab07::VariantRole& r : lab07::kVariantRoles) {
      const lab07::TileConfig c = lab07::config_for_role(tuned, s.mask_width, r.role);
      const analysis::RegisterTilingAnalysis a =
          analysis::analyze_register_tiling(c, s.height, s.width, analysis::lab07_vector_path(c, s.width));
      VariantPrediction v;
      v.variant = r.variant;
      v.config = a.describe();
      v.global_load_bytes = a.global_load_bytes();
      v.global_floats_per_fma = static_cast<double>(a.input_loads + a.mask_loads) / static_cast<double>(a.fmas);
      v.warps = a.warps;
      v.divergent_warps = a.divergent_warps;
      v.divergent_warps_branch = a.divergent_warps_branch;
      p.variants.push_back(v);
      if (r.role[0] == '\0') {  // the tuned configuration: the lab's headline
        p.config = fmt::format("{}; {}", a.describe(), ctx.lab07_tuning_source);
        p.exact_reduction = a.reduction();
        p.interior_reduction = a.interior_reduction;
        p.global_input_load_bytes = analysis::kBytesPerFloat * static_cast<double>(a.input_loads);
        p.global_mask_load_bytes = analysis::kBytesPerFloat * static_cast<double>(a.mask_loads);
        p.shared_load_bytes = analysis::kBytesPerFloat * static_cast<double>(a.shared_loads);
        p.warps = a.warps;
        p.divergent_warps_compute = a.divergent_warps;
        p.summary.push_back(fmt::format(
            "tuned configuration {}: global loads {:.4f} per output ({:.2f}× fewer than the untiled kernel's "
            "{:.2f}); a thread's patch needs {} registers ({}×{} accumulators, {} for the window row{}); "
            "{:.3f} floats ({:.3f} load instructions) per FMA in an interior thread",
            c.key(), static_cast<double>(a.input_loads) / static_cast<double>(a.outputs), a.reduction(),
            static_cast<double>(a.untiled_loads) / static_cast<double>(a.outputs), a.patch_registers, c.out_x,
            c.out_y, a.row_floats * (c.rows == lab07::RowLoop::rolled ? 2 : 1),
            c.filter == lab07::FilterPath::shfl ? ", the rest the shfl path's mask" : "", a.floats_per_fma,
            a.load_instructions_per_fma));
      }
    }
  } catch (const std::exception& e) {
    p = PredictionResult{};
    p.unavailable = fmt::format("the analysis model rejects lab 07 on {}x{} K={}: {}", s.height, s.width,
                                s.mask_width, e.what());
  }
  return p;
}

/// Lab 06: each step's kernels on the layer.
PredictionResult predict_im2col(const PredictionContext& ctx) {
  PredictionResult p;
  if (ctx.sm_count < 1) {
    p.unavailable = "lab 06's step 3 plan depends on the GPU's SM count, which is unknown here";
    return p;
  }
  try {
    const analysis::Im2colAnalysis a = analysis::analyze_lab06(ctx.layer, ctx.sm_count);
    p.config = fmt::format("{}, step 3 plan {}×{}×{} split {} on {} SMs", ctx.layer.describe(), a.plan.bm, a.plan.bn,
                           a.plan.bk, a.effective_splits, ctx.sm_count);
    p.summary.push_back(fmt::format("replication factor of X_unroll {:.4f} ({} unrolled elements for {} inputs)",
                                    a.traffic.replication, a.traffic.unrolled_elements,
                                    a.traffic.original_elements));
    for (const analysis::Im2colStep& st : a.steps) {
      VariantPrediction v;
      v.variant = st.name;
      v.config = st.gemm;
      v.global_load_bytes = analysis::kBytesPerFloat * static_cast<double>(st.load_words);  // what ncu counts
      v.async_copies = st.async_copies;
      v.async_copy_bytes = analysis::kBytesPerFloat * static_cast<double>(st.async_copies_read);
      v.global_floats_per_fma = st.global_per_fma;
      p.variants.push_back(v);
      p.summary.push_back(fmt::format(
          "{}: {}; global loads {:.3f} GB{}, {:.4f} global floats per FMA over the layer; tile reuse {:.4f} global "
          "and {:.3f} shared floats per FMA",
          st.name, st.gemm, 4e-9 * static_cast<double>(st.global_loads),
          st.async_copies ? fmt::format(" + cp.async {:.3f} GB read ({} copies issued)",
                                        4e-9 * static_cast<double>(st.async_copies_read), st.async_copies)
                          : "",
          st.global_per_fma, st.tile_global_per_fma, st.tile_shared_per_fma));
    }
  } catch (const std::exception& e) {
    p.unavailable = fmt::format("the analysis model rejects the layer {}: {}", ctx.layer.describe(), e.what());
  }
  return p;
}

/// Lab 08: each step's MMAs on the performance case of its problem (steps 1, 2 and 5 to 7 on the
/// layer, steps 3 and 4 on the image), as the solution's launchers run them; steps 5 to 7's are wgmmas
/// counted per warp, as `sm__inst_executed_pipe_tensor_op_gmma.sum` counts them. The model counts
/// MMAs, not loads, for these kernels.
PredictionResult predict_tensor_cores(const PredictionContext& ctx) {
  PredictionResult p;
  if (ctx.sm_count < 1) {
    p.unavailable = "lab 08's split-K plan depends on the GPU's SM count, which is unknown here";
    return p;
  }
  const Conv2dShape& s = ctx.conv2d;
  try {
    const analysis::TensorCoreAnalysis layer = analysis::analyze_lab08(ctx.layer, ctx.sm_count);
    const analysis::BandedAnalysis band = analysis::analyze_lab08_banded(s.height, s.width, s.mask_width);
    p.config = fmt::format("steps 1-2 and 5-6 on {}, {} SMs; steps 3-4 on {}x{} K={}", ctx.layer.describe(),
                           ctx.sm_count,
                           s.height, s.width, s.mask_width);
    auto add = [&p](const std::string& variant, const std::string& config, long long mmas, bool wgmma = false) {
      VariantPrediction v;
      v.variant = variant;
      v.config = config;
      v.loads_modelled = false;
      v.mmas = mmas;
      v.wgmma = wgmma;
      p.variants.push_back(v);
      p.summary.push_back(wgmma ? fmt::format("{}: {} wgmmas, {} counted per warp ({})", variant,
                                            mmas / (lab08::kWarpgroupThreads / 32), mmas, config)
                                : fmt::format("{}: {} MMAs ({})", variant, mmas, config));
    };
    for (const analysis::TensorCoreStep& st : layer.steps) {
      const bool wgmma = st.instruction == analysis::TensorInstruction::wgmma;
      add(st.name,
          st.on_cuda_cores ? std::string("float32 CUDA cores: the reduction is too short for 3xTF32")
                           : fmt::format("{}x{}x{} tiles{}, split {}", st.plan.bm, st.plan.bn, st.plan.bk,
                                         wgmma ? fmt::format(" of {} warpgroup{}", st.warpgroups,
                                                             st.warpgroups == 1 ? "" : "s")
                                               : "",
                                         st.effective_splits),
          st.on_cuda_cores ? 0 : st.mmas, wgmma && !st.on_cuda_cores);
    }
    add("banded_tf32x3", fmt::format("{} blocks, 3 TF32 MMAs per k-step", band.blocks), band.mmas);
    if (band.mixed_takes) {
      add("banded_tf32_bf16", fmt::format("{} blocks, a TF32 and a BF16 MMA per k-step", band.blocks), band.mixed_mmas);
    }
  } catch (const std::exception& e) {
    p.unavailable = fmt::format("the analysis model rejects lab 08's performance cases: {}", e.what());
  }
  return p;
}

}  // namespace

std::string divergence_basis(const std::string& number) {
  // Each sentence says what the compiled solution does at the tests the model counts (SASS of
  // the solutions, cuobjdump -sass, sm_90) and so which measured number the model's count is.
  if (number == "01") {
    return "the out-of-image guard compiles to a predicated EXIT (not a branch) and the per-tap ghost tests guard "
           "one load and one FMA, which the compiler predicates: no branch splits a warp (ncu's divergent branch "
           "targets read 0 on an H100 at every size of the GPU test, which checks it), and the predicted divergent "
           "warps show as a predicated-on efficiency below the active-thread one";
  }
  if (number == "02") {
    return "the ghost tests around the constant-memory taps are not all predicated: on an H100 the divergent "
           "branch targets grow with the predicted divergent warps, several per split warp (2,998 for 2,000 at "
           "1000×1500 K = 3; 10,234 for 4,096 at 2048² K = 5; 1,787 for 514 at 257×263 K = 7), so compare the "
           "predicted warps with how the branch targets grow, not with their value";
  }
  if (number == "03") {
    return "the strided load loop and the compute guard around the tap loops are real branches: ncu's divergent "
           "branch targets are of the order of the predicted divergent warps and never exceeded the load- and "
           "compute-phase sum on an H100 (1,504 of 4,503 at 1000×1500 K = 3; 4,096 of 7,868 at 2048² K = 5)";
  }
  if (number == "04") {
    return "the halo load's ghost test and the compute guard compile to predicated instructions or warp-uniform "
           "branches: no branch splits a warp (ncu's divergent branch targets read 0 on an H100 at every size of the GPU test, which checks "
           "it), and the predicted divergent warps show as a predicated-on efficiency below the active-thread one";
  }
  if (number == "05") {
    return "the per-tap test that picks the shared tile or the global (cached) halo is a real branch inside the tap "
           "loops, taken at every tap by a warp that straddles the tile's edge: ncu counts divergent branch targets "
           "per tap, not per warp (2,524,648 for 131,072 predicted divergent warps at 2048² K = 5 on an H100), so "
           "the predicted warps bound the warps that split, not the targets";
  }
  if (number == "06") {
    return "step 1's kernels have no divergent branch (0 measured) and step 3 sets cp.async's source size to 0 "
           "for padding and ragged edges instead of branching, but step 2's gather is two real branches (SASS of "
           "the solution, sm_90: one around the tap decode for kb < C·K² and col < Ho·Wo, one around the load for "
           "padding), so warps whose lanes straddle the image's edge split there: thousands of divergent branch "
           "targets on an H100 for the GPU test's layers, tens for step 3; the model does not count lab 06's "
           "divergent warps, so set the padding against the predicated-on efficiency";
  }
  if (number == "07") {
    return "on the global→register path the kernel runs a copy without tests inside the image, predicates the "
           "chunk and store tests at the edges (selects and predicated stores) and leaves the constant-filter path "
           "by an EXIT, not a branch: ncu's divergent branch targets read 0, as the model's divergent warps at a "
           "branch do, and its predicted warps show as a predicated-on efficiency below 100%; the shared→register "
           "path's cooperative loader is a real loop with an index test, which the model does not count: there "
           "ncu reads hundreds to thousands of divergent targets (measured on an H100, K = 3, 5, 7, 11)";
  }
  return "";
}

std::optional<analysis::Config> lab_analysis_config(const std::string& number, const Conv2dShape& s) {
  return analysis::config_for_lab("lab" + number, s.height, s.width, s.mask_width);
}

std::optional<Problem> predicted_problem(const std::string& number) {
  if (number == "06") return Problem::conv_layer;
  if (number == "07" || lab_analysis_config(number, {1, 1, 1})) return Problem::conv2d;
  return std::nullopt;
}

PredictionResult predict_lab(const std::string& number, const PredictionContext& context) {
  if (number == "08") return predict_tensor_cores(context);
  if (!predicted_problem(number)) {
    PredictionResult p;
    p.unavailable = fmt::format("the analysis model has no configuration for lab {}", number);
    return p;
  }
  PredictionResult p = number == "06"   ? predict_im2col(context)
                       : number == "07" ? predict_register_tiling(context)
                                        : predict_tiling(number, context.conv2d);
  p.divergence_basis = divergence_basis(number);
  return p;
}

}  // namespace convlab::grader
