/// @file measurement.hpp
/// @brief What one autotuner measurement means (needs no GPU): rates against the measured
///        ceilings, the performance targets, and the report files (sweep CSV, heat-map data and
///        their gnuplot script). tests/cpu/test_lab07_tuning.cpp checks it.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "convlab/atomic_file.hpp"
#include "convlab/autotune/search_space.hpp"
#include "convlab/gnuplot_text.hpp"
#include "convlab/lab07_config.hpp"

namespace convlab::lab07 {
// ---------------------------------------------------------------------------------------------
// Rates and targets.

/// The two measured ceilings of the roofline (same meaning as convlab::Ceilings).
struct Peaks {
  double copy_bytes_per_s = 0;  ///< device-to-device copy, bytes read + written per second
  double fma_flops_per_s = 0;   ///< fp32 FMA loop, 2 flops per FMA
};

/// What a time means on an H×W image with a K×K mask.
struct Rates {
  double ms = 0;
  double gb_per_s = 0;          ///< effective: 8 bytes per pixel (one read, one write)
  double tflop_per_s = 0;       ///< 2·K² flops per pixel
  double bw_bound_pct = 0;      ///< bandwidth-bound time / time × 100 (100: at the copy bandwidth)
  double fma_peak_pct = 0;      ///< achieved FMA rate / measured peak × 100 (the talk's utilization)
  double roofline_pct = 0;      ///< max(bytes/BW, flops/F) / time × 100
};

inline Rates rates_for(double ms, long long height, long long width, int k, const Peaks& peaks) {
  Rates r;
  r.ms = ms;
  const double s = ms * 1e-3;
  const double pixels = static_cast<double>(height) * static_cast<double>(width);
  const double bytes = 8.0 * pixels;
  const double flops = 2.0 * k * k * pixels;
  r.gb_per_s = bytes / s / 1e9;
  r.tflop_per_s = flops / s / 1e12;
  const double t_bw = bytes / peaks.copy_bytes_per_s;
  const double t_fma = flops / peaks.fma_flops_per_s;
  r.bw_bound_pct = 100.0 * t_bw / s;
  r.fma_peak_pct = 100.0 * t_fma / s;
  r.roofline_pct = 100.0 * std::max(t_bw, t_fma) / s;
  return r;
}

/// The performance target of issue 6 for mask width k (none for 2, 4, 6).
struct Target {
  const char* metric = "";  ///< "bandwidth bound", "roofline" or "FMA peak"
  double percent = 0;
  [[nodiscard]] bool exists() const { return percent > 0; }
  /// The value of this target's metric in `r`.
  [[nodiscard]] double value(const Rates& r) const {
    const std::string m = metric;
    if (m == "bandwidth bound") return r.bw_bound_pct;
    if (m == "roofline") return r.roofline_pct;
    return r.fma_peak_pct;
  }
  [[nodiscard]] bool met(const Rates& r) const { return !exists() || value(r) >= percent; }
};

inline Target target_for(int k) {
  if (k == 3 || k == 5) return {"bandwidth bound", 90};
  if (k == 7) return {"bandwidth bound", 80};
  if (k == 9) return {"roofline", 70};
  if (k >= 11) return {"FMA peak", 75};
  return {};
}

// ---------------------------------------------------------------------------------------------
// Measurements and the report files.

/// One configuration as the tuner saw it.
struct Measurement {
  KernelVariant variant;
  std::string stage;          ///< "heatmap", "refine", "baseline", "runtime-inner"
  std::string status;         ///< "ok", "spills", "wrong", "compile error", "launch error"
  std::string note;           ///< the reason when status is not "ok"
  int registers = 0;
  int stack_bytes = 0;        ///< local memory per thread (stack frame)
  int spill_bytes = 0;        ///< spill stores + loads, from ptxas
  int shared_bytes = 0;
  double compile_s = 0;
  std::optional<double> ms;   ///< median time on the timing image
  /// Usable as the answer: built, no spills, verified, timed.
  [[nodiscard]] bool usable() const { return status == "ok" && ms.has_value(); }
};

/// The fastest usable measurement among `ms` that satisfies `pred`, or nullptr.
template <class Pred>
const Measurement* fastest(const std::vector<Measurement>& ms, Pred pred) {
  const Measurement* best = nullptr;
  for (const Measurement& m : ms) {
    if (!m.usable() || !pred(m)) continue;
    if (best == nullptr || *m.ms < *best->ms) best = &m;
  }
  return best;
}

inline std::string csv_header() {
  return "stage,mask_width,outputs_x,outputs_y,block_x,block_y,input,filter,rows,vec,runtime_inner,status,registers,"
         "stack_bytes,spill_bytes,shared_bytes,compile_s,ms,gb_per_s,tflop_per_s,bw_bound_pct,fma_peak_pct,"
         "roofline_pct,note";
}

inline std::string csv_row(const Measurement& m, long long height, long long width, const Peaks& peaks) {
  const TileConfig& c = m.variant.config;
  std::string note = m.note;
  std::replace(note.begin(), note.end(), ',', ';');
  std::replace(note.begin(), note.end(), '\n', ' ');
  std::string timing = ",,,,,,";
  if (m.ms) {
    const Rates r = rates_for(*m.ms, height, width, c.mask_width, peaks);
    timing = fmt::format("{:.5f},{:.1f},{:.3f},{:.1f},{:.1f},{:.1f},", r.ms, r.gb_per_s, r.tflop_per_s, r.bw_bound_pct,
                         r.fma_peak_pct, r.roofline_pct);
  }
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.2f},{}{}", m.stage, c.mask_width, c.out_x,
                     c.out_y, c.block_x, c.block_y, input_name(c.input), filter_name(c.filter), rows_name(c.rows),
                     m.variant.vec ? 1 : 0,
                     m.variant.runtime_inner ? 1 : 0, m.status, m.registers, m.stack_bytes, m.spill_bytes,
                     m.shared_bytes, m.compile_s, timing, note);
}

/// Heat-map data of mask width k for gnuplot: one block per filter path (gnuplot's `index`),
/// lines "ix iy outputs_x outputs_y utilization% label"; utilization is NaN where the cell spills,
/// failed or was not measured, and the label says why.
/// `device` (the GPU's name) goes in a comment line "# device: NAME", for `grader tune
/// --plot-only`'s titles.
inline std::string heatmap_data(int k, const std::vector<Measurement>& ms, long long height, long long width,
                                const Peaks& peaks, bool quick, const std::string& device = "") {
  std::string out = fmt::format("# lab07 heat map, mask width {}: FMA rate / measured FMA peak (%), outputs per "
                                "thread in x (ix) against y (iy), {}x{} threads, global->register, {} rows\n",
                                k, kHeatmapBlockX, kHeatmapBlockY, rows_name(heatmap_rows(k)));
  if (!device.empty()) out += fmt::format("# device: {}\n", gnuplot_data_field(device));
  const auto xs = heatmap_outputs_x(quick);
  const auto ys = heatmap_outputs_y(quick);
  for (const FilterPath f : {FilterPath::shfl, FilterPath::constant}) {
    out += fmt::format("# index {}: {} filter\n", f == FilterPath::shfl ? 0 : 1, filter_name(f));
    for (std::size_t iy = 0; iy < ys.size(); ++iy) {
      for (std::size_t ix = 0; ix < xs.size(); ++ix) {
        const TileConfig want{k, xs[ix], ys[iy], kHeatmapBlockX, kHeatmapBlockY, InputPath::global, f, heatmap_rows(k)};
        const Measurement* m = nullptr;
        for (const Measurement& e : ms) {
          if (e.stage == "heatmap" && e.variant.config == want && !e.variant.runtime_inner) m = &e;
        }
        std::string value = "NaN";
        std::string label = "\"-\"";
        if (m != nullptr && m->ms && m->status != "wrong") {
          const Rates r = rates_for(*m->ms, height, width, k, peaks);
          value = fmt::format("{:.1f}", r.fma_peak_pct);
          label = m->status == "spills" ? fmt::format("\"{:.0f} spill\"", r.fma_peak_pct)
                                        : fmt::format("\"{:.0f}\"", r.fma_peak_pct);
          if (m->status == "spills") value = "NaN";
        } else if (m != nullptr) {
          label = fmt::format("\"{}\"", m->status == "spills" ? "spill" : m->status == "wrong" ? "WRONG" : "n/a");
        } else if (too_big_to_build(want)) {
          label = "\"too big\"";
        }
        out += fmt::format("{} {} {} {} {} {}\n", ix, iy, xs[ix], ys[iy], value, label);
      }
      out += "\n";  // gnuplot: a blank line ends a scan line
    }
    out += "\n";  // two blank lines end a data block
  }
  return out;
}

/// The gnuplot script that turns heatmap_kNN.dat into heatmap_kNN.png (two panels per picture:
/// shfl and constant filter), in the talk's colours: blue low, red high, grey where it spills.
/// Each cell is a box (boxxyerror), so missing cells leave the grey background showing.
inline std::string heatmap_gnuplot_script(const std::vector<int>& ks, const std::string& device, bool quick) {
  const auto xs = heatmap_outputs_x(quick);
  const auto ys = heatmap_outputs_y(quick);
  std::string xtics;
  std::string ytics;
  for (std::size_t i = 0; i < xs.size(); ++i) xtics += fmt::format("{}\"{}\" {}", i ? ", " : "", xs[i], i);
  for (std::size_t i = 0; i < ys.size(); ++i) ytics += fmt::format("{}\"{}\" {}", i ? ", " : "", ys[i], i);
  std::string s = fmt::format(R"GP(# gnuplot script written by `grader tune`: lab 07 utilization heat maps.
# Run in this folder: gnuplot heatmaps.gp   (or: grader tune --plot-only THIS_FOLDER)
set terminal pngcairo noenhanced size 1200,560 font "DejaVu Sans,20"
set datafile missing "NaN"
set palette defined (0 "#1f2f9f", 0.25 "#2f8fdf", 0.5 "#5fcf5f", 0.75 "#ffcf2f", 1 "#cf1f1f")
set cbrange [0:100]
set cblabel "FMA rate / measured peak (%)"
set xlabel "outputs per thread in x"
set ylabel "outputs per thread in y"
set xtics ({})
set ytics ({})
set xrange [-0.5:{}]
set yrange [-0.5:{}]
set tics nomirror out
unset key
)GP",
                              xtics, ytics, xs.size() - 0.5, ys.size() - 0.5);
  for (const int k : ks) {
    s += fmt::format(R"GP(
set output "heatmap_k{:02d}.png"
set multiplot layout 1,2 title "{}x{} convolution on " . {} . " ({}x{} threads, global->register, {} rows)" font ",20"
set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb "#bbbbbb" fillstyle solid noborder
set title "mask via __shfl_sync"
plot "heatmap_k{:02d}.dat" index 0 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 0 using 1:2:6 with labels font ",15"
set title "mask in constant memory"
plot "heatmap_k{:02d}.dat" index 1 using 1:2:(0.5):(0.5):5 with boxxyerror fillstyle solid noborder linecolor palette, "" index 1 using 1:2:6 with labels font ",15"
unset multiplot
unset object 1
)GP",
                     k, k, k, gnuplot_string(device), kHeatmapBlockX, kHeatmapBlockY, rows_name(heatmap_rows(k)), k, k);
  }
  return s;
}

/// Writes `text` to `path` atomically (convlab/atomic_file.hpp), creating its folder.
inline void write_text_file(const std::filesystem::path& path, const std::string& text) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  write_file_atomically(path, text);
}

/// "4x8 b32x4 global shfl rolled", short, for tables.
inline std::string short_config(const TileConfig& c) {
  return fmt::format("{}x{} b{}x{} {} {} {}", c.out_x, c.out_y, c.block_x, c.block_y, input_name(c.input),
                     filter_name(c.filter), rows_name(c.rows));
}

}  // namespace convlab::lab07
