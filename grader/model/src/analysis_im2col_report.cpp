// `grader analyze`'s reports of a conv layer (analysis_im2col_report.hpp).
#include "convlab/analysis_im2col_report.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "convlab/analysis_im2col.hpp"

namespace convlab::analysis {

namespace {

/// The GEMM of one image: Y[M][Ho·Wo] = W[M][C·K²] × X_unroll[C·K²][Ho·Wo].
struct Gemm {
  long long rows;  // C·K²
  long long cols;  // Ho·Wo
  double flops;    // 2·B·M·Ho·Wo·C·K², over the batch
};

Gemm gemm_of(const ConvLayerShape& s) {
  return {static_cast<long long>(s.channels) * s.mask_width * s.mask_width,
          static_cast<long long>(s.out_height()) * s.out_width(),
          2.0 * static_cast<double>(s.output_elements()) * static_cast<double>(s.terms_per_output())};
}

std::string in_parentheses(const std::string& origin) { return origin.empty() ? "" : " (" + origin + ")"; }

Im2colAnalysis lab06_of(const ConvLayerShape& s, int sms) {
  if (sms < 1) throw std::invalid_argument(fmt::format("--sms {}: expected at least 1", sms));
  return analyze_lab06(s, sms);
}

}  // namespace

std::string im2col_report_text(const ConvLayerShape& s, const std::string& origin) {
  const Im2colTraffic t = im2col_traffic(s);
  const Gemm g = gemm_of(s);
  std::string out = fmt::format("im2col analysis of the conv layer {}{}\n", s.describe(), in_parentheses(origin));
  out += fmt::format("  output                    Ho x Wo = {} x {}\n", s.out_height(), s.out_width());
  out += fmt::format("  input X                   B·C·H·W        = {:>14} elements ({:.3f} MB)\n", t.original_elements,
                     4e-6 * static_cast<double>(t.original_elements));
  out += fmt::format("  unrolled X_unroll         B·C·K²·Ho·Wo   = {:>14} elements ({:.3f} MB)\n", t.unrolled_elements,
                     4e-6 * static_cast<double>(t.unrolled_elements));
  out += fmt::format("  replication factor        unrolled / X   = {:.4f}\n", t.replication);
  out += fmt::format("  extra traffic of step 1   written + read = {:.3f} MB (absent when the unroll is fused, step 2)\n",
                     t.extra_bytes * 1e-6);
  out += fmt::format("  GEMM per image            Y[{}][{}] = W[{}][{}] x X_unroll[{}][{}]\n", s.filters, g.cols,
                     s.filters, g.rows, g.rows, g.cols);
  out += fmt::format("  flops                     2·B·M·Ho·Wo·C·K² = {:.4g}\n", g.flops);
  return out;
}

nlohmann::json im2col_report_json(const ConvLayerShape& s, const std::string& origin) {
  const Im2colTraffic t = im2col_traffic(s);
  const Gemm g = gemm_of(s);
  return {{"format", "convlab-analyze-layer"}, {"version", 1}, {"layer", s.describe()},
          {"origin", origin}, {"original_elements", t.original_elements},
          {"unrolled_elements", t.unrolled_elements}, {"replication", t.replication},
          {"extra_bytes", t.extra_bytes}, {"gemm_rows", g.rows}, {"gemm_cols", g.cols},
          {"filters", s.filters}, {"flops", g.flops}};
}

std::string lab06_report_text(const ConvLayerShape& s, int sms, const std::string& origin) {
  const Im2colAnalysis a = lab06_of(s, sms);
  std::string out = fmt::format("lab 06 (im2col) on the conv layer {}{}\n", s.describe(), in_parentheses(origin));
  out += fmt::format("  replication factor        {:.4f} (X_unroll {} elements, X {})\n", a.traffic.replication,
                     a.traffic.unrolled_elements, a.traffic.original_elements);
  out += fmt::format("  taps inside X             {} (padding taps are zeros, never read)\n", a.in_x_taps);
  out += fmt::format("  step 3 plan               {}x{} block tile, {}-deep slices, split {} (for {} SMs; --sms)\n",
                     a.plan.bm, a.plan.bn, a.plan.bk, a.effective_splits, sms);
  out += fmt::format("  counts are floats, thread-level; ncu: distinct words per warp load x4 = {}, cp.async reads x4 = "
                     "..._op_ldgsts\n",
                     "smsp__sass_data_bytes_mem_global_op_ld.sum");
  for (const Im2colStep& st : a.steps) {
    out += fmt::format("  {} — {}\n", st.name, st.gemm);
    out += fmt::format("    kernels {}; global loads {} (W {}, X or X_unroll {}); global stores {}\n", st.kernels,
                       st.global_loads, st.name == "register_tiled" ? 0 : st.weight_loads,
                       st.name == "register_tiled" ? 0 : st.input_loads, st.global_stores);
    if (st.load_words != st.global_loads) {
      out += fmt::format("    of the loads, {} distinct words per warp instruction: a warp's two tile rows read {} words twice\n",
                         st.load_words, st.global_loads - st.load_words);
    }
    if (st.async_copies > 0) {
      out += fmt::format("    cp.async copies {} issued, {} read global memory (W {}, X {}), the rest zero-fill\n",
                         st.async_copies, st.async_copies_read, st.weight_loads, st.input_loads);
    }
    out += fmt::format("    FMAs {} executed, {} useful; {:.4f} global floats per FMA over the layer\n", st.fmas,
                       st.useful_fmas, st.global_per_fma);
    out += fmt::format("    tile reuse: {:.4f} global and {:.4f} shared-memory floats per FMA in an interior tile\n",
                       st.tile_global_per_fma, st.tile_shared_per_fma);
  }
  return out;
}

nlohmann::json lab06_report_json(const ConvLayerShape& s, int sms, const std::string& origin) {
  const Im2colAnalysis a = lab06_of(s, sms);
  nlohmann::json steps = nlohmann::json::array();
  for (const Im2colStep& st : a.steps) {
    steps.push_back({{"variant", st.name}, {"gemm", st.gemm}, {"kernels", st.kernels},
                     {"global_loads", st.global_loads}, {"load_words", st.load_words},
                     {"weight_loads", st.weight_loads},
                     {"input_loads", st.input_loads}, {"async_copies", st.async_copies},
                     {"async_copies_read", st.async_copies_read}, {"global_stores", st.global_stores},
                     {"fmas", st.fmas}, {"useful_fmas", st.useful_fmas}, {"global_per_fma", st.global_per_fma},
                     {"tile_global_per_fma", st.tile_global_per_fma},
                     {"tile_shared_per_fma", st.tile_shared_per_fma}});
  }
  return {{"format", "convlab-analyze-lab06"}, {"version", 1}, {"layer", s.describe()},
          {"origin", origin}, {"sms", sms},
          {"plan", {{"bm", a.plan.bm}, {"bn", a.plan.bn}, {"bk", a.plan.bk}, {"splits", a.effective_splits}}},
          {"replication", a.traffic.replication}, {"unrolled_elements", a.traffic.unrolled_elements},
          {"original_elements", a.traffic.original_elements}, {"in_x_taps", a.in_x_taps},
          {"steps", steps}};
}

}  // namespace convlab::analysis
