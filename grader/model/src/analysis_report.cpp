// `grader analyze`'s report of one configuration (analysis_report.hpp).
#include "convlab/analysis_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>

namespace convlab::analysis {

namespace {

std::string block_name(const Config& c, int bx, int by) {
  return c.dims == 2 ? fmt::format("({},{})", bx, by) : fmt::format("{}", bx);
}

std::string shape(const Config& c, int x, int y) {
  return c.dims == 2 ? fmt::format("{}x{}", x, y) : fmt::format("{}", x);
}

/// 12345678 → "12,345,678".
std::string grouped(long long v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    out += digits[i];
    const std::size_t left = digits.size() - i - 1;
    if (left > 0 && left % 3 == 0) out += ',';
  }
  return v < 0 ? "-" + out : out;
}

std::string ratio_text(double r) { return std::isnan(r) ? "—" : fmt::format("{:.3f}", r); }

/// Runs of equal per-row counts: "row 0: 231; row 1: 308; rows 2-15: 385 each".
std::string rows_text(const std::vector<long long>& rows) {
  std::string out;
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    while (j + 1 < rows.size() && rows[j + 1] == rows[i]) ++j;
    if (!out.empty()) out += "; ";
    out += i == j ? fmt::format("row {}: {}", i, grouped(rows[i]))
                  : fmt::format("rows {}-{}: {} each", i, j, grouped(rows[i]));
    i = j + 1;
  }
  return out;
}

nlohmann::json counts_json(const Counts& n) {
  const double r = n.bandwidth_reduction();
  return {{"blocks", n.blocks},
          {"threads", n.threads},
          {"warps", n.warps},
          {"outputs", n.outputs},
          {"global_input_loads", n.global_input_loads},
          {"global_mask_loads", n.global_mask_loads},
          {"shared_stores", n.shared_stores},
          {"shared_loads", n.shared_loads},
          {"untiled_equivalent", n.untiled_equivalent},
          {"bandwidth_reduction", std::isnan(r) ? nlohmann::json(nullptr) : nlohmann::json(r)},
          {"divergent_warps_load", n.divergent_warps_load},
          {"divergent_warps_compute", n.divergent_warps_compute},
          {"divergent_warps_any", n.divergent_warps_any},
          {"global_bytes", n.global_bytes()},
          {"useful_flops", n.useful_flops()}};
}

std::vector<std::string> notes(const AnalysisReport& r) {
  std::vector<std::string> out;
  if (!r.config.launchable()) {
    out.push_back(fmt::format("warning: a block of {} threads is more than CUDA's {}: the model "
                              "counts it, CUDA would refuse to launch it",
                              r.config.threads_per_block(), kMaxThreadsPerBlock));
  }
  if (r.config.untiled()) out.push_back("the untiled kernels load inside the compute loop: no load phase");
  out.push_back("counts are thread-level accesses, as ncu's smsp__sass_data_bytes_mem_global_op_ld.sum "
                "/ 4 reports them; ghost cells are never loaded; caches are not modelled");
  if (r.config.strategy == Strategy::untiled_global_mask) {
    out.push_back("the mask loads are the exception: all 32 threads of a warp read the same M[p][q], so they "
                  "are counted once per warp per tap that is in the image for some active thread (warp-uniform, "
                  "as the profiler counts them); per thread the kernel reads a mask float and an input float "
                  "per multiply-add, 8 bytes per 2 flops");
  }
  out.push_back("a warp diverges in a phase if its active threads disagree at some branch (loop "
                "tests included); the compiler may predicate short branches, so a profiler's "
                "divergent-branch count can be 0 while warp execution efficiency drops");
  return out;
}

}  // namespace

AnalysisReport make_report(const Config& config, int bx, int by, const std::string& origin) {
  AnalysisReport r;
  r.config = config;
  r.block = analyze_block(config, bx, by);  // validates
  r.grid = analyze_grid(config);
  r.origin = origin;
  if (config.strategy == Strategy::tiled1 || config.strategy == Strategy::tiled2) {
    r.lecture_formula = config.dims == 2
                            ? lecture_reduction_2d(config.out_tile_x(), config.out_tile_y(), config.mask_width)
                            : lecture_reduction(1, config.out_tile_x(), config.mask_width);
  }
  return r;
}

std::string report_text(const AnalysisReport& r) {
  const Config& c = r.config;
  std::string out = fmt::format("convlab analyze: {}\n", strategy_description(c.strategy));
  if (!r.origin.empty()) out += fmt::format("from: {}\n", r.origin);
  const std::string problem = c.dims == 2 ? fmt::format("2D image {}x{}, mask {}x{}", c.height,
                                                       c.width, c.mask_width, c.mask_width)
                                          : fmt::format("1D row of N = {}, mask of {} taps", c.width,
                                                        c.mask_width);
  out += fmt::format(
      "{} (r = {}); output tile {}, footprint {}; block {} = {} threads = {} warp{}; grid {} = {} "
      "block{}\n\n",
      problem, c.radius(), shape(c, c.out_tile_x(), c.out_tile_y()),
      shape(c, c.footprint_x(), c.footprint_y()), shape(c, c.threads_x(), c.threads_y()),
      c.threads_per_block(), c.warps_per_block(), c.warps_per_block() == 1 ? "" : "s",
      shape(c, c.grid_x(), c.grid_y()), grouped(r.grid.total.blocks),
      r.grid.total.blocks == 1 ? "" : "s");

  const bool has_interior = r.grid.interior_blocks > 0;
  const Counts* cols[] = {&r.block.counts, has_interior ? &r.grid.interior_block : nullptr,
                          &r.grid.boundary_total, &r.grid.total};
  const std::string headers[] = {
      fmt::format("block {}{}", block_name(c, r.block.bx, r.block.by), r.block.interior ? " (interior)" : ""),
      fmt::format("interior, each ({})", grouped(r.grid.interior_blocks)),
      fmt::format("boundary, all ({})", grouped(r.grid.boundary_blocks)), "whole grid"};
  struct Line {
    const char* label;
    std::function<std::string(const Counts&)> text;
  };
  auto count = [](long long Counts::*field) {
    return [field](const Counts& n) { return grouped(n.*field); };
  };
  const Line lines[] = {
      {"outputs computed", count(&Counts::outputs)},
      {"global input loads", count(&Counts::global_input_loads)},
      {"global mask loads", count(&Counts::global_mask_loads)},
      {"shared-memory stores", count(&Counts::shared_stores)},
      {"shared-memory loads", count(&Counts::shared_loads)},
      {"untiled-equivalent accesses", count(&Counts::untiled_equivalent)},
      {"bandwidth reduction", [](const Counts& n) { return ratio_text(n.bandwidth_reduction()); }},
      {"warps", count(&Counts::warps)},
      {"divergent warps, load phase", count(&Counts::divergent_warps_load)},
      {"divergent warps, compute phase", count(&Counts::divergent_warps_compute)},
      {"divergent warps, either phase", count(&Counts::divergent_warps_any)},
  };
  std::size_t label_w = 0;
  for (const Line& l : lines) label_w = std::max(label_w, std::string(l.label).size());
  std::size_t col_w[4];
  for (int j = 0; j < 4; ++j) {
    col_w[j] = headers[j].size();
    for (const Line& l : lines) col_w[j] = std::max(col_w[j], cols[j] ? l.text(*cols[j]).size() : 1);
  }
  out += fmt::format("{:<{}}", "", label_w);
  for (int j = 0; j < 4; ++j) out += fmt::format("  {:>{}}", headers[j], col_w[j]);
  out += "\n";
  for (const Line& l : lines) {
    out += fmt::format("{:<{}}", l.label, label_w);
    for (int j = 0; j < 4; ++j) {
      out += fmt::format("  {:>{}}", cols[j] ? l.text(*cols[j]) : std::string("-"), col_w[j]);
    }
    out += "\n";
  }

  out += "\nbandwidth reduction (untiled-equivalent accesses / global input loads):\n";
  if (r.lecture_formula) {
    out += fmt::format("  interior tile, the lecture's formula {} with T = {}: {:.3f}\n",
                       c.dims == 2 ? "(T*K)^2/(T+K-1)^2" : "T*K/(T+K-1)",
                       shape(c, c.out_tile_x(), c.out_tile_y()), *r.lecture_formula);
  } else {
    out += "  the lecture's interior-tile formula is for strategies 1 and 2\n";
  }
  out += fmt::format("  an interior block of this kernel, counted: {:.3f}{}\n", r.grid.interior_reduction,
                     has_interior ? "" : " (this image has none: counted on a larger one)");
  out += fmt::format("  whole image, exact (ghosts not loaded): {}\n", ratio_text(r.grid.exact_reduction()));
  out += fmt::format("untiled-equivalent accesses of block {} by output row: {}\n",
                     block_name(c, r.block.bx, r.block.by), rows_text(r.block.untiled_equivalent_per_row));
  const Counts& g = r.grid.total;
  out += fmt::format("whole grid: {} useful flops, {} bytes of global traffic (loads + output "
                     "stores), {:.3f} flops per byte\n",
                     grouped(g.useful_flops()), grouped(static_cast<long long>(g.global_bytes())),
                     static_cast<double>(g.useful_flops()) / g.global_bytes());
  for (const auto& note : notes(r)) out += "note: " + note + "\n";
  return out;
}

nlohmann::json report_json(const AnalysisReport& r) {
  using nlohmann::json;
  const Config& c = r.config;
  json doc;
  doc["format"] = "convlab-analysis";
  doc["version"] = kAnalysisJsonVersion;
  doc["origin"] = r.origin;
  doc["config"] = {{"strategy", strategy_name(c.strategy)},
                   {"dims", c.dims},
                   {"height", c.height},
                   {"width", c.width},
                   {"mask_width", c.mask_width},
                   {"radius", c.radius()},
                   {"output_tile", {c.out_tile_x(), c.out_tile_y()}},
                   {"footprint", {c.footprint_x(), c.footprint_y()}},
                   {"block", {c.threads_x(), c.threads_y()}},
                   {"grid", {c.grid_x(), c.grid_y()}},
                   {"threads_per_block", c.threads_per_block()},
                   {"warps_per_block", c.warps_per_block()},
                   {"launchable", c.launchable()}};
  doc["block"] = {{"index", {r.block.bx, r.block.by}},
                  {"interior", r.block.interior},
                  {"counts", counts_json(r.block.counts)},
                  {"untiled_equivalent_per_row", r.block.untiled_equivalent_per_row}};
  doc["interior_blocks"] = {{"count", r.grid.interior_blocks},
                            {"each", r.grid.interior_blocks > 0 ? counts_json(r.grid.interior_block)
                                                                : json(nullptr)}};
  doc["boundary_blocks"] = {{"count", r.grid.boundary_blocks},
                            {"total", counts_json(r.grid.boundary_total)}};
  doc["grid"] = counts_json(r.grid.total);
  const double exact = r.grid.exact_reduction();
  doc["bandwidth_reduction"] = {
      {"lecture_formula", r.lecture_formula ? json(*r.lecture_formula) : json(nullptr)},
      {"interior_block", r.grid.interior_reduction},
      {"whole_image", std::isnan(exact) ? json(nullptr) : json(exact)}};
  doc["notes"] = notes(r);
  return doc;
}

}  // namespace convlab::analysis
