// `grader analyze --lab lab07`'s report (analysis_lab07_report.hpp).
#include "convlab/analysis_lab07_report.hpp"

#include <fmt/format.h>

namespace convlab::analysis {

namespace {

double loads_per_output(const RegisterTilingAnalysis& a) {
  return static_cast<double>(a.input_loads) / static_cast<double>(a.outputs);
}

std::string variant_text(const Lab07Variant& v, const RegisterTilingAnalysis& a) {
  std::string text = fmt::format("  {} — {} ({})\n", v.name, v.config.describe(),
                                 a.vw > 1 ? fmt::format("{}-float loads", a.vw) : "scalar loads");
  text += fmt::format("    grid {}x{} = {} blocks ({} without bounds tests), {} warps\n", a.grid_x, a.grid_y,
                      a.blocks, a.interior_blocks, a.warps);
  text += fmt::format("    global input loads {} ({:.4f} per output, in {} load instructions); mask loads {}\n",
                      a.input_loads, loads_per_output(a), a.input_load_instructions, a.mask_loads);
  text += fmt::format("    untiled kernel's loads {}: reduction {:.3f}x over the image, {:.3f}x in an interior block\n",
                      a.untiled_loads, a.reduction(), a.interior_reduction);
  text += fmt::format("    the compiled loads fetch {} of them (edge chunks narrowed to the floats used): "
                      "smsp__sass_data_bytes_mem_global_op_ld.sum should read {:.0f} bytes\n",
                      a.compiled_input_loads, a.global_load_bytes());
  text += fmt::format("    registers the patch needs {} floats; {:.4f} floats and {:.4f} load instructions per FMA\n",
                      a.patch_registers, a.floats_per_fma, a.load_instructions_per_fma);
  if (a.shared_stores > 0) {
    text += fmt::format("    shared memory: {} floats stored, {} read\n", a.shared_stores, a.shared_loads);
  }
  text += fmt::format("    divergent warps at the image edges {} ({} at the early return, a branch)\n",
                      a.divergent_warps, a.divergent_warps_branch);
  return text;
}

nlohmann::json variant_json(const Lab07Variant& v, const RegisterTilingAnalysis& a) {
  return {{"variant", v.name}, {"config", v.config.key()}, {"vector_width", a.vw},
          {"grid", {a.grid_x, a.grid_y}}, {"blocks", a.blocks}, {"interior_blocks", a.interior_blocks},
          {"warps", a.warps}, {"outputs", a.outputs}, {"input_loads", a.input_loads},
          {"input_load_instructions", a.input_load_instructions},
          {"compiled_input_loads", a.compiled_input_loads}, {"mask_loads", a.mask_loads},
          {"global_load_bytes", a.global_load_bytes()}, {"untiled_loads", a.untiled_loads},
          {"reduction", a.reduction()}, {"interior_reduction", a.interior_reduction},
          {"loads_per_output", loads_per_output(a)}, {"fmas", a.fmas},
          {"shared_stores", a.shared_stores}, {"shared_loads", a.shared_loads},
          {"patch_registers", a.patch_registers}, {"floats_per_fma", a.floats_per_fma},
          {"load_instructions_per_fma", a.load_instructions_per_fma},
          {"divergent_warps", a.divergent_warps}, {"divergent_warps_branch", a.divergent_warps_branch}};
}

}  // namespace

Lab07Report make_lab07_report(int height, int width, int mask, std::vector<Lab07Variant> variants,
                              const std::string& configurations, const std::string& origin) {
  Lab07Report r{height, width, mask, origin, configurations, std::move(variants), {}};
  for (const Lab07Variant& v : r.variants) {
    r.analyses.push_back(analyze_register_tiling(v.config, height, width, lab07_vector_path(v.config, width)));
  }
  return r;
}

std::string lab07_report_text(const Lab07Report& r) {
  std::string text = fmt::format("lab 07 (register tiling) on {}x{}, K={}{}; configurations: {}\n", r.height, r.width,
                                 r.mask, r.origin.empty() ? "" : " (" + r.origin + ")", r.configurations);
  for (std::size_t i = 0; i < r.variants.size(); ++i) text += variant_text(r.variants[i], r.analyses[i]);
  return text;
}

nlohmann::json lab07_report_json(const Lab07Report& r) {
  nlohmann::json variants = nlohmann::json::array();
  for (std::size_t i = 0; i < r.variants.size(); ++i) variants.push_back(variant_json(r.variants[i], r.analyses[i]));
  return {{"format", "convlab-analyze-lab07"}, {"version", 1}, {"height", r.height},
          {"width", r.width},  {"mask_width", r.mask}, {"origin", r.origin},
          {"configurations", r.configurations}, {"variants", variants}};
}

}  // namespace convlab::analysis
