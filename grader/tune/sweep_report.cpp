// The sweep's tables and the tuning file's roles, from its measurements (tune/sweep_report.hpp).
#include "tune/sweep_report.hpp"

#include <fmt/format.h>

#include "convlab/autotune/tuning_file.hpp"

namespace convlab::lab07 {
namespace {

/// The fastest usable compile-time-loop measurement of mask width k whose configuration
/// satisfies `pred`, or nullptr.
template <class Pred>
const Measurement* fastest_where(const std::vector<Measurement>& all, int k, Pred pred) {
  return fastest(all, [&](const Measurement& e) {
    return e.variant.config.mask_width == k && !e.variant.runtime_inner && pred(e.variant.config);
  });
}

std::string header(const SweepOutcome& s) {
  return fmt::format(
      "# Lab 07 autotuning on {}\n\nImage {}x{} float32, random non-uniform run-time mask. Measured in this run: "
      "copy {:.0f} GB/s, FMA {:.1f} TFLOP/s.\nTimes are medians of 20 runs with L2 flushed; 'global only' is the paper's "
      "baseline (one output per thread, compile-time loops, every tap read from global memory).\n"
      "% of BW bound = (8 bytes/pixel / copy bandwidth) / time: 100% is the copy bandwidth. (The paper's text writes "
      "the ratio inverted; its numbers mean the same as these.) The last four columns, and the run-time/compile-time table, are "
      "sweep medians (7 runs, no flush), so they differ a little from the final timing.\n\n",
      s.device, s.height, s.width, s.peaks.copy_bytes_per_s / 1e9, s.peaks.fma_flops_per_s / 1e12);
}

/// The paper's table: the winner of each mask width, its rates, the global-only baseline and
/// the best time of each path. Fills the markdown rows, table.csv and the tuning file's entries.
void best_table(const SweepOutcome& s, SweepTables& t) {
  auto best_where = [&](int k, auto pred) -> std::string {
    const Measurement* m = fastest_where(s.all, k, pred);
    return m ? fmt::format("{:.4f}", *m->ms) : "-";
  };
  t.markdown += "| K | best input path | filter | outputs/thread (x×y) | block | ms | GB/s | TFLOP/s | % of BW bound | % of FMA peak | "
                "% of roofline | global only ms | speedup vs global only | best global→reg ms | best shared→reg ms | best shfl ms | "
                "best constant ms |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  t.csv = "mask_width,input,filter,outputs_x,outputs_y,block_x,block_y,ms,gb_per_s,tflop_per_s,bw_bound_pct,"
          "fma_peak_pct,roofline_pct,global_only_ms,speedup_vs_global_only\n";
  for (const int k : s.ks) {
    const TileConfig& c = s.best.at(k).variant.config;
    const Rates r = rates_for(s.final_ms.at(k), s.height, s.width, k, s.peaks);
    const double base = s.baseline_ms.count(k) ? s.baseline_ms.at(k) : 0;
    t.markdown += fmt::format(
        "| {} | {}→register | {} | {}×{} | {}×{} | {:.4f} | {:.0f} | {:.2f} | {:.1f}% | {:.1f}% | {:.1f}% | {} | {} | {} | {} | {} | {} |\n",
        k, input_name(c.input), filter_name(c.filter), c.out_x, c.out_y, c.block_x, c.block_y, r.ms, r.gb_per_s,
        r.tflop_per_s, r.bw_bound_pct, r.fma_peak_pct, r.roofline_pct, base > 0 ? fmt::format("{:.4f}", base) : "-",
        base > 0 ? fmt::format("{:.2f}x", base / r.ms) : "-",
        best_where(k, [](const TileConfig& x) { return x.input == InputPath::global; }),
        best_where(k, [](const TileConfig& x) { return x.input == InputPath::shared; }),
        best_where(k, [](const TileConfig& x) { return x.filter == FilterPath::shfl; }),
        best_where(k, [](const TileConfig& x) { return x.filter == FilterPath::constant; }));
    t.csv += fmt::format("{},{},{},{},{},{},{},{:.5f},{:.1f},{:.3f},{:.1f},{:.1f},{:.1f},{:.5f},{:.3f}\n", k,
                         input_name(c.input), filter_name(c.filter), c.out_x, c.out_y, c.block_x, c.block_y, r.ms,
                         r.gb_per_s, r.tflop_per_s, r.bw_bound_pct, r.fma_peak_pct, r.roofline_pct, base,
                         base > 0 ? base / r.ms : 0);
    nlohmann::json e = to_json(c);
    e["ms"] = r.ms;
    e["bw_bound_pct"] = r.bw_bound_pct;
    e["fma_peak_pct"] = r.fma_peak_pct;
    e["roofline_pct"] = r.roofline_pct;
    e["global_only_ms"] = base;
    t.measured.push_back(e);
  }
}

/// The talk's run-time versus compile-time inner loop: each winner built both ways.
std::string runtime_inner_table(const SweepOutcome& s) {
  std::string md =
      "\n## Run-time versus compile-time inner loop (the talk)\n\nThe best configuration of each mask width, built "
      "twice: the loop over the mask's columns with a compile-time bound (unrolled, window in registers) and with "
      "a run-time bound (the window indexed at run time, so in local memory).\n\n"
      "| K | configuration | compile-time ms | run-time ms | slowdown | run-time stack bytes |\n|---|---|---|---|---|---|\n";
  for (const int k : s.ks) {
    const Measurement& ct = s.best.at(k);
    const Measurement* rtm = nullptr;
    for (const Measurement& m : s.all) {
      if (m.variant.runtime_inner && m.variant.config == ct.variant.config) rtm = &m;
    }
    md += fmt::format("| {} | {} | {:.4f} | {} | {} | {} |\n", k, short_config(ct.variant.config), *ct.ms,
                      rtm && rtm->ms ? fmt::format("{:.4f}", *rtm->ms) : (rtm ? rtm->status : "-"),
                      rtm && rtm->ms ? fmt::format("{:.2f}x", *rtm->ms / *ct.ms) : "-", rtm ? rtm->stack_bytes : 0);
  }
  return md;
}

/// The performance targets of issue 6 against the final timings.
std::string targets_table(const SweepOutcome& s) {
  std::string md = "\n## Targets\n\n| K | target | measured | met |\n|---|---|---|---|\n";
  for (const int k : s.ks) {
    const Target t = target_for(k);
    if (!t.exists()) continue;
    const Rates r = rates_for(s.final_ms.at(k), s.height, s.width, k, s.peaks);
    md += fmt::format("| {} | ≥ {:.0f}% of {} | {:.1f}% | {} |\n", k, t.percent, t.metric, t.value(r),
                      t.met(r) ? "yes" : "NO");
  }
  return md;
}

std::string summary_line(const SweepOutcome& s) {
  int spills = 0;
  int wrong = 0;
  for (const Measurement& m : s.all) {
    spills += m.status == "spills";
    wrong += m.status == "wrong";
  }
  return fmt::format("\n{} configurations measured ({} spill, {} wrong), {:.0f} s of compilation on {} threads, {:.0f} s in all.\n",
                     s.all.size(), spills, wrong, s.compile_cpu_s, s.jobs, s.elapsed_s);
}

}  // namespace

SweepTables sweep_tables(const SweepOutcome& s) {
  SweepTables t;
  t.markdown = header(s);
  best_table(s, t);
  t.markdown += runtime_inner_table(s);
  t.markdown += targets_table(s);
  t.markdown += summary_line(s);
  return t;
}

std::map<std::string, TileConfig> sweep_roles(const std::vector<Measurement>& all, int k) {
  std::map<std::string, TileConfig> roles;
  for (const char* role : {"shfl", "constant", "shared", "global"}) {
    const Measurement* m = fastest_where(all, k, [&](const TileConfig& c) { return role_fits(role, c); });
    if (m) roles[role] = m->variant.config;
  }
  return roles;
}

}  // namespace convlab::lab07
