// Lab 08's analysis, rendered: text for `grader analyze --lab lab08`, and the same fields as JSON.
#include "convlab/analysis_lab08_report.hpp"

#include <fmt/format.h>

namespace convlab::analysis {
namespace {

std::string in_parentheses(const std::string& s) { return s.empty() ? "" : " (" + s + ")"; }

bool have(const TensorCoreCeilings& c) {
  return c.copy_bytes_per_s > 0 && c.fma_flops_per_s > 0 && c.tf32_mma_flops_per_s > 0;
}

// What a bound of MMAs some of which are at half depth (`half` of them) says when the ceilings
// lack the m16n8k4 rate.
std::string without_k4_rate(long long half, const TensorCoreCeilings& c) {
  if (half == 0 || c.tf32_mma_k4_flops_per_s > 0) return "";
  return "\n                            (no m16n8k4 rate in those ceilings: the half k-steps' flops at m16n8k8's rate, "
         "a bound that is too low)";
}

// A wgmma step's instruction shapes: "m64n128k8" (steps 5 and 7), with step 6's BF16 one beside it.
std::string wgmma_shapes(const TensorCoreStep& st) {
  if (st.bf16_products == 0) return fmt::format("m64n{}k8", st.plan.bn);
  return fmt::format("m64n{}k8 (TF32) and m64n{}k16 (BF16)", st.plan.bn, st.plan.bn);
}

}  // namespace

std::string lab08_report_text(const ConvLayerShape& s, int sms, const TensorCoreCeilings& ceilings,
                              const std::string& origin, const std::string& ceilings_origin) {
  const TensorCoreAnalysis a = analyze_lab08(s, sms);
  std::string out = fmt::format("lab 08 (tensor cores) on the conv layer {}{}\n", s.describe(), in_parentheses(origin));
  out += fmt::format("  products per output n     {} (C·K·K); multiply-adds {}\n", a.n, a.useful_fmas);
  if (have(ceilings)) {
    out += fmt::format("  ceilings                  copy {:.0f} GB/s, FMA {:.1f} TFLOP/s, TF32 mma.sync {:.0f} TFLOP/s{}\n",
                       ceilings.copy_bytes_per_s / 1e9, ceilings.fma_flops_per_s / 1e12,
                       ceilings.tf32_mma_flops_per_s / 1e12, in_parentheses(ceilings_origin));
  } else {
    out += "  ceilings                  unknown: --ceilings BENCH_JSON (a grader bench run) gives the bounds in ms\n";
  }
  for (const TensorCoreStep& st : a.steps) {
    const bool wgmma = st.instruction == TensorInstruction::wgmma;
    out += fmt::format("  {} — {} TF32 product{} per product{}{}\n", st.name, st.products,
                       st.products == 1 ? "" : "s", st.bf16_products > 0 ? fmt::format(" and {} in BF16", st.bf16_products) : "",
                       wgmma ? fmt::format(", on Hopper's wgmma (compute capability {}.{} only)",
                                           lab08::kWgmmaComputeCapability / 10, lab08::kWgmmaComputeCapability % 10)
                             : "");
    if (st.runs_step5) {
      out += fmt::format("    n = {}: too few terms for step 6's budget (132 units a product) to keep the FP32 rule; "
                         "the launcher runs step 5, counted here as step 5\n",
                         a.n);
    }
    if (st.runs_step2) {
      out += fmt::format("    n = {}: too few terms for the chained wgmma sums to keep the FP32 rule; the launcher runs "
                         "step 2's kernel, counted here as step 2\n",
                         a.n);
    }
    if (st.on_cuda_cores) {
      out += fmt::format("    n = {} < {}: float32 FMAs on CUDA cores, one output per thread (no MMA)\n", a.n,
                         lab08::kMinTensorCoreTerms);
    } else if (!wgmma) {
      out += fmt::format("    {}x{}x{} block tile, split {} (for {} SMs; --sms); {} MMAs (m16n8k8), {:.4g} GFLOP on tensor "
                         "cores, {:.1f}% of them useful\n",
                         st.plan.bm, st.plan.bn, st.plan.bk, st.effective_splits, sms, st.mmas, st.mma_flops / 1e9,
                         100.0 * static_cast<double>(a.useful_fmas) / static_cast<double>(st.issued_fmas));
    } else if (st.a_in_shared) {
      out += fmt::format("    {}x{}x{} block tile (step 1's, {} warpgroup{}), split {} (for {} SMs; --sms), both operands "
                         "copied as step 1's chunks into the 128-byte swizzle and read by the wgmma from shared memory; "
                         "{} wgmmas ({}; ncu counts each once per warp: {}), {:.4g} GFLOP on tensor cores, {:.1f}% of "
                         "them useful\n",
                         st.plan.bm, st.plan.bn, st.plan.bk, st.warpgroups, st.warpgroups == 1 ? "" : "s",
                         st.effective_splits, sms, st.instructions, wgmma_shapes(st), st.mmas, st.mma_flops / 1e9,
                         100.0 * static_cast<double>(a.useful_fmas) / static_cast<double>(st.issued_fmas));
    } else {
      out += fmt::format("    {}x{}x{} block tile ({}, {} warpgroup{}), split {} (for {} SMs; --sms), gathered {}; {} "
                         "wgmmas ({}; ncu counts each once per warp: {}), {:.4g} GFLOP on tensor cores, {:.1f}% of "
                         "them useful\n",
                         st.plan.bm, st.plan.bn, st.plan.bk, st.narrow_tile ? "narrow" : "wide", st.warpgroups,
                         st.warpgroups == 1 ? "" : "s", st.effective_splits, sms,
                         st.group_tap ? "channel group × tap" : "as steps 1 and 2", st.instructions,
                         wgmma_shapes(st), st.mmas,
                         st.mma_flops / 1e9,
                         100.0 * static_cast<double>(a.useful_fmas) / static_cast<double>(st.issued_fmas));
    }
    if (!st.on_cuda_cores) {
      if (st.reordered_floats > 0) {
        out += fmt::format("    X and W reordered first (channels-last, tap-major, rounded to TF32): {} floats written\n",
                           st.reordered_floats);
        const std::string distinct =
            st.async_copies_distinct < 0
                ? "distinct chunks not counted: the layer is too large to walk"
                : fmt::format("{} distinct in their warp's copy, what ncu counts", st.async_copies_distinct);
        out += fmt::format("    cp.async copies of 16 bytes: {} issued, {} read global memory ({}); {} floats stored\n",
                           st.async_copies, st.async_copies_read, distinct, st.global_stores);
        if (st.tma_feed) {
          out += fmt::format("    on compute capability 9.0 and later, by TMA instead (tma_feed.cuh), split {}: {} bulk "
                             "tensor copies writing {} bytes, no cp.async\n",
                             st.tma_splits, st.tma_copies, st.tma_bytes);
        }
      } else {
        out += fmt::format("    cp.async copies {} issued, {} read global memory; {} floats stored\n", st.async_copies,
                           st.async_copies_read, st.global_stores);
      }
    }
    if (have(ceilings)) {
      const TensorCoreBounds b = tensor_core_bounds(a, st, ceilings);
      if (wgmma && !st.on_cuda_cores) {
        out += fmt::format("    bounds: memory {:.4f} ms, FP32 FMA {:.4f} ms; its own arithmetic: no measured wgmma ceiling\n",
                           1e3 * b.memory_s, 1e3 * b.fma_s);
      } else {
        out += fmt::format("    bounds: memory {:.4f} ms, FP32 FMA {:.4f} ms, its own arithmetic {:.4f} ms: roofline {:.4f} ms\n",
                           1e3 * b.memory_s, 1e3 * b.fma_s, 1e3 * b.mma_s, 1e3 * b.roofline_s());
      }
    }
    out += fmt::format("    error bound {:.4g}·2^-24·S; its rule allows {:.4g}·2^-24·S; {:.4g}× the FP32 rule's n·2^-24·S{}\n",
                       st.error_bound_units, st.allowed_units, st.fp32_ratio,
                       st.fp32_ratio <= 1 ? " (FP32-accurate)" : "");
  }
  return out;
}

nlohmann::json lab08_report_json(const ConvLayerShape& s, int sms, const TensorCoreCeilings& ceilings,
                                 const std::string& origin, const std::string& ceilings_origin) {
  const TensorCoreAnalysis a = analyze_lab08(s, sms);
  nlohmann::json steps = nlohmann::json::array();
  for (const TensorCoreStep& st : a.steps) {
    const bool wgmma = st.instruction == TensorInstruction::wgmma;
    nlohmann::json j = {{"variant", st.name},
                        {"products", st.products},
                        {"instruction", wgmma ? "wgmma.mma_async." + wgmma_shapes(st) : "mma.sync.m16n8k8"},
                        {"bf16_products", st.bf16_products},
                        {"instructions", st.instructions},
                        {"on_cuda_cores", st.on_cuda_cores},
                        {"runs_step2", st.runs_step2},
                        {"runs_step5", st.runs_step5},
                        {"plan", {{"bm", st.plan.bm}, {"bn", st.plan.bn}, {"bk", st.plan.bk}, {"splits", st.effective_splits}}},
                        {"mmas", st.mmas},
                        {"mma_flops", st.mma_flops},
                        {"issued_fmas", st.issued_fmas},
                        {"async_copies", st.async_copies},
                        {"async_copies_read", st.async_copies_read},
                        {"async_copies_distinct", st.async_copies_distinct < 0 ? nlohmann::json(nullptr)
                                                                               : nlohmann::json(st.async_copies_distinct)},
                        {"copy_bytes", st.copy_bytes},
                        {"tma_feed", st.tma_feed},
                        {"tma_copies", st.tma_copies},
                        {"tma_bytes", st.tma_bytes},
                        {"tma_splits", st.tma_splits},
                        {"reordered_floats", st.reordered_floats},
                        {"global_stores", st.global_stores},
                        {"error_bound_units", st.error_bound_units},
                        {"allowed_units", st.allowed_units},
                        {"fp32_ratio", st.fp32_ratio}};
    if (wgmma) {
      j["warpgroups"] = st.warpgroups;
      j["group_tap"] = st.group_tap;
      j["tile"] = st.a_in_shared ? "step1" : st.narrow_tile ? "narrow" : "wide";
      j["a_from"] = st.a_in_shared ? "shared" : "registers";
      j["compute_capability"] = fmt::format("{}.{}", lab08::kWgmmaComputeCapability / 10,
                                            lab08::kWgmmaComputeCapability % 10);
    }
    if (have(ceilings)) {
      const TensorCoreBounds b = tensor_core_bounds(a, st, ceilings);
      const bool unbounded = wgmma && !st.on_cuda_cores;  // no measured wgmma ceiling
      j["bounds_ms"] = {{"memory", 1e3 * b.memory_s},
                        {"fp32_fma", 1e3 * b.fma_s},
                        {"own", unbounded ? nlohmann::json(nullptr) : nlohmann::json(1e3 * b.mma_s)},
                        {"roofline", unbounded ? nlohmann::json(nullptr) : nlohmann::json(1e3 * b.roofline_s())}};
    }
    steps.push_back(std::move(j));
  }
  nlohmann::json j = {{"format", "convlab-analyze-lab08"}, {"version", 1}, {"layer", s.describe()}, {"origin", origin},
                      {"sms", sms}, {"n", a.n}, {"useful_fmas", a.useful_fmas}, {"compulsory_bytes", a.compulsory_bytes},
                      {"steps", steps}};
  if (have(ceilings)) {
    j["ceilings"] = {{"copy_bytes_per_s", ceilings.copy_bytes_per_s},
                     {"fma_flops_per_s", ceilings.fma_flops_per_s},
                     {"tf32_mma_flops_per_s", ceilings.tf32_mma_flops_per_s},
                     {"tf32_mma_k4_flops_per_s", ceilings.tf32_mma_k4_flops_per_s},
                     {"origin", ceilings_origin}};
  }
  return j;
}

std::string lab08_banded_report_text(int height, int width, int mask_width, const TensorCoreCeilings& ceilings,
                                     const std::string& origin, const std::string& ceilings_origin) {
  const BandedAnalysis a = analyze_lab08_banded(height, width, mask_width);
  std::string out = fmt::format("lab 08 step 3 (banded_tf32x3) on a {}x{} image, K = {}{}\n", height, width, mask_width,
                                in_parentheses(origin));
  const std::string row_band =
      a.half_step ? fmt::format("{} k-steps of 8 per mask row and 8-column tile, the last at half depth: {}/{} = {:.1f}% of "
                                "the products are the mask's ({}/{} = {:.1f}% with whole k-steps)",
                                a.band_steps, mask_width, a.band_depth, 100.0 * a.useful_fraction, mask_width,
                                8 * a.band_steps, 100.0 * a.whole_steps_fraction)
                  : fmt::format("{} k-steps of 8 per mask row and 8-column tile: {}/{} = {:.1f}% of each MMA is the mask's",
                                a.band_steps, mask_width, a.band_depth, 100.0 * a.useful_fraction);
  if (a.patches) {
    out += fmt::format("  layout                    2x4 output patches (K >= {}): {} row pairs x {} column groups of k-steps "
                       "per 16x8 tile, {}·{}/(64·{}·{}) = {:.1f}% of the products are the mask's\n",
                       lab08::kPatchMinMask, a.patch_pairs, a.patch_groups, mask_width * mask_width, lab08::kMmaK,
                       a.patch_pairs, a.patch_groups, 100.0 * a.patch_useful_fraction);
    out += fmt::format("  the row band (step 4's)   {}\n", row_band);
    out += fmt::format("  work                      {} blocks of {}x{}; {} MMAs (m16n8k8, 3 per k-step; the row band's "
                       "would be {}), {:.4g} GFLOP on tensor cores for {:.4g} GFLOP of convolution\n",
                       a.blocks, lab08::kBandTileRows, lab08::kBandTileCols, a.mmas, a.row_band_mmas, a.mma_flops / 1e9,
                       2.0 * static_cast<double>(a.useful_fmas) / 1e9);
  } else {
    out += fmt::format("  layout                    the row band (K < {}): {}\n", lab08::kPatchMinMask, row_band);
    out += fmt::format("  work                      {} blocks of {}x{}; {} MMAs ({}), {:.4g} GFLOP on tensor cores for {:.4g} "
                       "GFLOP of convolution\n",
                       a.blocks, lab08::kBandTileRows, lab08::kBandTileCols, a.mmas,
                       a.half_step ? fmt::format("3 per k-step: {} m16n8k8, {} m16n8k4", a.mmas - a.half_mmas, a.half_mmas)
                                   : std::string("m16n8k8, 3 per k-step"),
                       a.mma_flops / 1e9, 2.0 * static_cast<double>(a.useful_fmas) / 1e9);
  }
  out += fmt::format("  global loads              {} floats of input tiles ({:.2f}x the image)\n", a.tile_loads,
                     static_cast<double>(a.tile_loads) / (static_cast<double>(height) * width));
  if (have(ceilings)) {
    const TensorCoreBounds b = banded_bounds(a, ceilings);
    out += fmt::format("  ceilings                  copy {:.0f} GB/s, FMA {:.1f} TFLOP/s, TF32 mma.sync m16n8k8 {:.0f} TFLOP/s, "
                       "m16n8k4 {}\n",
                       ceilings.copy_bytes_per_s / 1e9, ceilings.fma_flops_per_s / 1e12,
                       ceilings.tf32_mma_flops_per_s / 1e12,
                       ceilings.tf32_mma_k4_flops_per_s > 0
                           ? fmt::format("{:.0f} TFLOP/s", ceilings.tf32_mma_k4_flops_per_s / 1e12)
                           : std::string("not measured"));
    out += fmt::format("  bounds                    memory {:.4f} ms, FP32 FMA (lab 07's) {:.4f} ms, its MMAs at TF32 peak "
                       "{:.4f} ms{}{}\n",
                       1e3 * b.memory_s, 1e3 * b.fma_s, 1e3 * b.mma_s, in_parentheses(ceilings_origin),
                       without_k4_rate(a.half_mmas, ceilings));
  } else {
    out += "  bounds                    unknown: --ceilings BENCH_JSON (a grader bench run) gives them in ms\n";
  }
  out += fmt::format("  error bound               {:.4g}·2^-24·S; the FP32 rule allows {:.4g}·2^-24·S ({:.3g}×{})\n",
                     a.error_bound_units, a.allowed_units, a.fp32_ratio, a.fp32_ratio <= 1 ? ", FP32-accurate" : "");
  if (!a.mixed_takes) {
    out += fmt::format("lab 08 step 4 (banded_tf32_bf16) takes K ≥ {}: its error bound, {:.4g}·2^-24·S, is over the FP32 "
                       "rule's {:.4g}·2^-24·S at K = {}\n",
                       lab08::kBandMixedMinMask, a.mixed_error_bound_units, a.allowed_units, mask_width);
    return out;
  }
  out += fmt::format("lab 08 step 4 (banded_tf32_bf16), the same blocks, on the row band\n");
  out += fmt::format("  work                      {} MMAs (per k-step one TF32 m16n8k8 and one BF16 m16n8k16{}: {:.3g}x the row "
                     "band's in 3xTF32, {:.3g}x step 3's)\n",
                     a.mixed_mmas,
                     a.half_step ? fmt::format("; at the half k-step m16n8k4 and m16n8k8, {} of them", a.mixed_half_mmas) : "",
                     static_cast<double>(a.mixed_mmas) / static_cast<double>(a.row_band_mmas),
                     static_cast<double>(a.mixed_mmas) / static_cast<double>(a.mmas));
  if (have(ceilings)) {
    const TensorCoreBounds b = banded_mixed_bounds(a, ceilings);
    out += fmt::format("  bounds                    its MMAs at the TF32 instruction rates {:.4f} ms{}{}\n", 1e3 * b.mma_s,
                       in_parentheses(ceilings_origin), without_k4_rate(a.mixed_half_mmas, ceilings));
  }
  out += fmt::format("  error bound               {:.4g}·2^-24·S; the FP32 rule allows {:.4g}·2^-24·S ({:.3g}×{})\n",
                     a.mixed_error_bound_units, a.allowed_units, a.mixed_fp32_ratio,
                     a.mixed_fp32_ratio <= 1 ? ", FP32-accurate" : "");
  return out;
}

nlohmann::json lab08_banded_report_json(int height, int width, int mask_width, const TensorCoreCeilings& ceilings,
                                        const std::string& origin, const std::string& ceilings_origin) {
  const BandedAnalysis a = analyze_lab08_banded(height, width, mask_width);
  nlohmann::json j = {{"format", "convlab-analyze-lab08-banded"}, {"version", 2}, {"variant", "banded_tf32x3"},
                      {"height", height}, {"width", width}, {"mask_width", mask_width}, {"origin", origin},
                      {"layout", a.patches ? "patches" : "rows"}, {"patch_pairs", a.patch_pairs},
                      {"patch_groups", a.patch_groups}, {"patch_useful_fraction", a.patch_useful_fraction},
                      {"row_band_mmas", a.row_band_mmas}, {"row_band_half_mmas", a.row_band_half_mmas},
                      {"band_steps", a.band_steps}, {"half_step", a.half_step}, {"band_depth", a.band_depth},
                      {"useful_fraction", a.useful_fraction}, {"whole_steps_fraction", a.whole_steps_fraction},
                      {"blocks", a.blocks}, {"mmas", a.mmas}, {"half_mmas", a.half_mmas}, {"mma_flops", a.mma_flops},
                      {"useful_fmas", a.useful_fmas},
                      {"tile_loads", a.tile_loads}, {"compulsory_bytes", a.compulsory_bytes},
                      {"error_bound_units", a.error_bound_units}, {"allowed_units", a.allowed_units},
                      {"fp32_ratio", a.fp32_ratio}};
  nlohmann::json step4 = {{"variant", "banded_tf32_bf16"}, {"takes", a.mixed_takes}, {"mmas", a.mixed_mmas},
                          {"half_mmas", a.mixed_half_mmas},
                          {"error_bound_units", a.mixed_error_bound_units}, {"fp32_ratio", a.mixed_fp32_ratio}};
  if (have(ceilings)) {
    const TensorCoreBounds b = banded_bounds(a, ceilings);
    j["bounds_ms"] = {{"memory", 1e3 * b.memory_s}, {"fp32_fma", 1e3 * b.fma_s}, {"own", 1e3 * b.mma_s}};
    j["ceilings_origin"] = ceilings_origin;
    step4["bounds_ms"] = {{"own", 1e3 * banded_mixed_bounds(a, ceilings).mma_s}};
  }
  j["step4"] = step4;
  return j;
}

}  // namespace convlab::analysis
