#include "reports/grade_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "performance/ncu_profile.hpp"

namespace convlab::grader {
using nlohmann::json;

namespace {

const char* verdict_name(RunRecord::Verdict v) {
  switch (v) {
    case RunRecord::Verdict::pass: return "pass";
    case RunRecord::Verdict::fail: return "fail";
    case RunRecord::Verdict::skip: return "skip";
    case RunRecord::Verdict::not_run: return "not run";
  }
  return "?";
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string indent(const std::string& text, const std::string& pad) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = text.find('\n', pos);
    out += pad + text.substr(pos, end == std::string::npos ? std::string::npos : end - pos) + "\n";
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return out;
}

std::string points(double got, double max) { return fmt::format("{:.1f}/{:g}", got, max); }

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json measured_json(const Measured& m) {
  json j = {{"value", optional_number(m.value)}};
  if (!m.value) j["unavailable"] = m.unavailable;
  return j;
}

std::string measured_text(const Measured& m, bool bytes) {
  if (!m.value) return m.unavailable;
  return bytes ? format_bytes(*m.value) : fmt::format("{:.0f}", *m.value);
}

// The fastest correct timed variant, for the summary table.
const VariantTiming* fastest(const PerformanceResult& p) {
  const VariantTiming* best = nullptr;
  for (const VariantTiming& v : p.variants) {
    if (v.time_ms && (!best || *v.time_ms < *best->time_ms)) best = &v;
  }
  return best;
}

std::string prediction_text(const PredictionResult& p) {
  if (!p.unavailable.empty()) return "unavailable: " + p.unavailable;
  if (p.variants.size() > 1 || (p.variants.size() == 1 && !p.variants[0].variant.empty())) {
    // Labs 06, 07 and 08: the lab's lines, then each variant's beside its measurement (lab 08's
    // steps are on two cases, which its config names).
    std::string s = p.case_id.empty() ? p.config : fmt::format("on {} ({})", p.case_id, p.config);
    for (const std::string& line : p.summary) s += "\n    " + line;
    return s;
  }
  std::string s = fmt::format("on {} ({}): ", p.case_id, p.config);
  s += fmt::format("bandwidth reduction {:.2f}× over the image (interior block {:.2f}×); global input loads {}",
                              p.exact_reduction, p.interior_reduction, format_bytes(p.global_input_load_bytes));
  if (p.global_mask_load_bytes > 0) {
    s += fmt::format(" + mask loads {} counted per thread", format_bytes(p.global_mask_load_bytes));
  }
  s += fmt::format("; shared loads {}; divergent warps {} in the load phase, {} in the compute phase (of {})",
                   format_bytes(p.shared_load_bytes), p.divergent_warps_load, p.divergent_warps_compute, p.warps);
  return s;
}

std::string profile_text(const ProfileResult& p) {
  if (!p.unavailable.empty()) return p.unavailable;
  std::vector<std::string> ratios;
  for (const Measured& m : p.threads_per_warp_instruction) {
    ratios.push_back(m.value ? fmt::format("{:.1f}", *m.value) : m.unavailable);
  }
  const auto mma = p.metrics.find(kMetricTensorMmaInsts);
  std::string mmas = mma != p.metrics.end() && mma->second.value && *mma->second.value > 0
                         ? fmt::format("; tensor-core MMA instructions {:.0f}", *mma->second.value)
                         : "";
  const auto gmma = p.metrics.find(kMetricTensorWgmmaInsts);  // asked for on Hopper only
  if (gmma != p.metrics.end() && gmma->second.value && *gmma->second.value > 0) {
    mmas += fmt::format("; wgmma instructions {:.0f} (per warp)", *gmma->second.value);
  }
  const auto async = p.metrics.find(kMetricAsyncCopyBytes);
  const std::string copies = async != p.metrics.end() && async->second.value && *async->second.value > 0
                                 ? fmt::format("; cp.async read {}", format_bytes(*async->second.value))
                                 : "";
  return fmt::format("global loads {}{}{}; shared loads {}; DRAM read {}; divergent branch targets {}; "
                     "threads per warp instruction {} ({} kernel{})",
                     measured_text(p.metrics.at(kMetricGlobalLoadBytes), true), copies, mmas,
                     measured_text(p.metrics.at(kMetricSharedLoadBytes), true),
                     measured_text(p.metrics.at(kMetricDramReadBytes), true),
                     measured_text(p.metrics.at(kMetricDivergentBranches), false), join(ratios, " / "),
                     p.kernels.size(), p.kernels.size() == 1 ? "" : "s");
}

std::string percent(const Measured& m) {
  return m.value ? fmt::format("{:.1f}%", 100 * *m.value) : m.unavailable;
}

// The model's numbers for one variant, each beside the metric it predicts.
std::string variant_prediction_text(const VariantPrediction& v) {
  if (!v.loads_modelled) {
    if (v.mmas > 0 && v.wgmma) {
      return fmt::format("wgmma instructions {} per warp ({}); {}", v.mmas, kMetricTensorWgmmaInsts, v.config);
    }
    return v.mmas > 0 ? fmt::format("tensor-core MMA instructions {} ({}); {}", v.mmas, kMetricTensorMmaInsts, v.config)
                      : fmt::format("no tensor-core MMAs: {}", v.config);
  }
  std::string s = fmt::format("global loads {} ({})", format_bytes(v.global_load_bytes), kMetricGlobalLoadBytes);
  if (v.async_copies > 0) {
    s += fmt::format("; cp.async {} read by {} copies, zero-fills included ({})", format_bytes(v.async_copy_bytes),
                     v.async_copies, kMetricAsyncCopyBytes);
  }
  if (v.global_floats_per_fma > 0) s += fmt::format("; {:.4f} global floats per FMA", v.global_floats_per_fma);
  return s;
}

// Predicted divergent warps beside the three measured views of divergence.
std::string divergence_text(const VariantPrediction* v, const ProfileResult& prof) {
  std::string predicted = "predicted: unavailable";
  if (v != nullptr && v->warps == 0) {
    predicted = "predicted: divergent warps not modelled for this kernel";
  } else if (v != nullptr) {
    predicted = fmt::format("predicted {} divergent warps of {}", v->divergent_warps, v->warps);
    if (v->divergent_warps_branch >= 0) predicted += fmt::format(" ({} at a branch)", v->divergent_warps_branch);
  }
  const auto it = prof.metrics.find(kMetricDivergentBranches);
  const Measured branches = it == prof.metrics.end() ? Measured{std::nullopt, "unavailable"} : it->second;
  return fmt::format("{}; measured (ncu): divergent branch targets {}, warp execution efficiency {} "
                     "(predicated-on {})",
                     predicted, measured_text(branches, false), percent(warp_execution_efficiency(prof, false)),
                     percent(warp_execution_efficiency(prof, true)));
}

}  // namespace

std::string format_ms(double ms) {
  if (ms < 1) return fmt::format("{:.1f} µs", ms * 1e3);
  return fmt::format("{:.3f} ms", ms);
}

std::string format_bytes(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.1f} MB", bytes / 1e6);
  if (bytes >= 1e3) return fmt::format("{:.1f} kB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);
}

std::string LabResult::headline() const {
  if (could_not_grade) return "could not grade: " + could_not_grade_reason;
  if (!built) return build_message;
  for (const SanitizerResult& s : sanitizers) {
    if (s.hazards > 0) return fmt::format("{}: {}", s.tool, s.findings.empty() ? "hazard found" : s.findings.front());
  }
  if (!correctness.failures.empty()) {
    const RunRecord& r = correctness.failures.front();
    return fmt::format("{} {}: {}", r.case_id, r.variant, r.message);
  }
  for (const VariantTiming& v : performance.variants) {
    if (!v.note.empty()) return fmt::format("{}: {}", v.variant, v.note);
  }
  if (!performance.note.empty()) return performance.note;
  return fmt::format("all {} runs passed", correctness.runs);
}

double SubmissionResult::score() const {
  double s = 0;
  for (const LabResult& l : labs) s += l.points();
  return s;
}

double SubmissionResult::max_score() const {
  double s = 0;
  for (const LabResult& l : labs) s += l.max_points();
  return s;
}

std::string grade_text(const SubmissionResult& s, const RunInfo& run) {
  std::string out;
  out += fmt::format("convlab grade: {} ({}) on {}\n", s.name, s.path.string(), run.device);
  out += fmt::format("cases: {}; rubric: {} ({})\n", run.datasets, run.rubric_name, run.rubric);
  out += fmt::format("sandbox: {}\n\n", run.sandbox);
  out += fmt::format("{:<7}{:>11}{:>13}{:>11}{:>18}{:>12}{:>8}{:>11}{:>10}  {}\n", "lab", "points", "correctness",
                     "speed", "runs pass/fail", "best time", "× ref", "GB/s", "roofline", "reasons");
  for (const LabResult& l : s.labs) {
    const VariantTiming* best = fastest(l.performance);
    std::string reasons = join(l.reasons, ", ");
    if (l.could_not_grade) reasons = "COULD NOT GRADE" + std::string(reasons.empty() ? "" : "; " + reasons);
    if (reasons.empty()) reasons = "-";
    out += fmt::format("{:<7}{:>11}{:>13}{:>11}{:>18}{:>12}{:>8}{:>11}{:>10}  {}\n", l.lab.id(),
                       points(l.points(), l.max_points()), points(l.correctness_points, l.correctness_max),
                       points(l.performance_points, l.performance_max),
                       l.built ? fmt::format("{}/{}", l.correctness.passed, l.correctness.failed) : "-",
                       best && best->time_ms ? format_ms(*best->time_ms) : "-",
                       best && best->ratio() ? fmt::format("{:.2f}", *best->ratio()) : "-",
                       best && best->gb_per_s ? fmt::format("{:.1f}", *best->gb_per_s) : "-",
                       best && best->roofline_fraction ? fmt::format("{:.1f}%", 100 * *best->roofline_fraction) : "-",
                       reasons);
  }
  out += fmt::format("{:<7}{:>11}\n", "total", points(s.score(), s.max_score()));

  for (const LabResult& l : s.labs) {
    out += fmt::format("\n{} ({}): {} points — {}\n", l.lab.id(), l.lab.folder, points(l.points(), l.max_points()),
                       l.headline());
    for (const std::string& n : l.notes) out += "  note: " + n + "\n";
    for (const std::string& b : l.bonus) out += "  " + b + "\n";
    if (l.could_not_grade) out += "  could not grade: " + l.could_not_grade_reason + "\n";
    if (!l.built) {
      if (!l.build_message.empty()) out += indent(l.build_message, "  | ");
      continue;
    }
    const CorrectnessResult& c = l.correctness;
    out += fmt::format("  correctness {}: {} of {} runs passed, {} failed, {} skipped (mask widths the lab does not take){}\n",
                       points(l.correctness_points, l.correctness_max), c.passed, c.runs, c.failed, c.skipped,
                       c.restarts ? fmt::format("; {} fresh processes after crashes", c.restarts) : "");
    const std::size_t shown = std::min<std::size_t>(c.failures.size(), 3);
    for (std::size_t i = 0; i < shown; ++i) {
      const RunRecord& r = c.failures[i];
      out += fmt::format("    {} {} {}: {}\n", r.verdict == RunRecord::Verdict::fail ? "FAIL" : "NOT RUN", r.case_id,
                         r.variant, r.message);
      if (!r.details.empty()) out += indent(r.details, "      ");
      if (!r.error_map.empty()) out += fmt::format("      error map: {}\n", r.error_map);
    }
    if (c.failures.size() > shown) out += fmt::format("    ... and {} more (all in the JSON report)\n", c.failures.size() - shown);
    for (const SanitizerResult& san : l.sanitizers) {
      if (!san.ran) {
        out += fmt::format("  compute-sanitizer {}: {}\n", san.tool, san.unavailable);
      } else if (san.hazards == 0) {
        out += fmt::format("  compute-sanitizer {}: clean on {} small cases\n", san.tool, san.cases);
      } else {
        out += fmt::format("  compute-sanitizer {}: {} finding(s):\n", san.tool, san.hazards);
        for (const std::string& f : san.findings) out += indent(f, "    | ");
      }
    }
    const PerformanceResult& p = l.performance;
    out += fmt::format("  speed {}", points(l.performance_points, l.performance_max));
    out += p.attempted ? fmt::format(" on {}:\n", p.cases_text()) : fmt::format(": {}\n", p.note);
    if (p.attempted && !p.note.empty()) out += "    " + p.note + "\n";
    for (std::size_t i = 0; i < p.variants.size(); ++i) {
      const VariantTiming& v = p.variants[i];
      // A lab timed on several cases (one per problem) says which each variant's line is about.
      if (p.case_ids.size() > 1 && (i == 0 || p.variants[i - 1].case_id != v.case_id)) {
        out += fmt::format("   on {}:\n", v.case_id);
      }
      out += fmt::format("    {:<18} {:>11}  ref {:>11}  {:>6}  {:>9}  {:>12}  {:>7}  {:.0f}% of the points{}\n", v.variant,
                         v.time_ms ? format_ms(*v.time_ms) : "-", v.reference_ms ? format_ms(*v.reference_ms) : "-",
                         v.ratio() ? fmt::format("{:.2f}×", *v.ratio()) : "-",
                         v.gb_per_s ? fmt::format("{:.0f} GB/s", *v.gb_per_s) : "-",
                         v.gflop_per_s ? fmt::format("{:.0f} GFLOP/s", *v.gflop_per_s) : "-",
                         v.roofline_fraction ? fmt::format("{:.1f}%", 100 * *v.roofline_fraction) : "-",
                         100 * v.fraction, v.note.empty() ? "" : " — " + v.note);
      for (const TimeFlag& f : v.flags) out += fmt::format("      FLAG {}: {}\n", f.reason, f.note);
    }
    if (l.prediction) out += "  predicted (analysis): " + prediction_text(*l.prediction) + "\n";
    for (const ProfileResult& prof : l.profile) {
      out += fmt::format("  measured (ncu) on {}, {}: {}\n", prof.case_id, prof.variant, profile_text(prof));
      const VariantPrediction* v = l.prediction ? l.prediction->for_variant(prof.variant) : nullptr;
      if (v != nullptr) {
        out += fmt::format("    predicted (analysis) for {}: {}\n", prof.variant, variant_prediction_text(*v));
      }
      if (prof.unavailable.empty()) out += "    divergence: " + divergence_text(v, prof) + "\n";
    }
    if (!l.profile.empty() && l.prediction && !l.prediction->divergence_basis.empty()) {
      out += "    divergence, which to compare: " + l.prediction->divergence_basis + "\n";
    }
  }
  out += fmt::format("\ntotal {} points", points(s.score(), s.max_score()));
  if (!s.could_not_grade.empty()) {
    out += "; COULD NOT GRADE:\n";
    for (const std::string& w : s.could_not_grade) out += "  " + w + "\n";
  } else {
    out += "\n";
  }
  return out;
}

json run_info_json(const RunInfo& run) {
  return {{"convlab_version", run.convlab_version}, {"started", run.started}, {"device", run.device},
          {"datasets", run.datasets},  {"rubric", run.rubric},  {"rubric_name", run.rubric_name},
          {"command_line", run.options}, {"sandboxed", run.sandboxed}, {"sandbox", run.sandbox}};
}

json submission_json(const SubmissionResult& s) {
  json labs = json::array();
  for (const LabResult& l : s.labs) {
    json failures = json::array();
    for (const RunRecord& r : l.correctness.failures) {
      json f = {{"case", r.case_id}, {"variant", r.variant}, {"verdict", verdict_name(r.verdict)},
                {"reasons", r.reasons}, {"message", r.message}};
      if (!r.details.empty()) f["first_mismatches"] = r.details;
      if (!r.error_map.empty()) f["error_map"] = r.error_map;
      failures.push_back(std::move(f));
    }
    json variants = json::array();
    for (const VariantTiming& v : l.performance.variants) {
      json flags = json::array();
      for (const TimeFlag& f : v.flags) flags.push_back({{"reason", f.reason}, {"note", f.note}});
      variants.push_back({{"variant", v.variant}, {"case", v.case_id}, {"correct", v.correct}, {"time_ms", optional_number(v.time_ms)}, {"flags", flags},
                          {"reference_time_ms", optional_number(v.reference_ms)}, {"ratio", optional_number(v.ratio())},
                          {"effective_gb_per_s", optional_number(v.gb_per_s)},
                          {"gflop_per_s", optional_number(v.gflop_per_s)},
                          {"roofline_fraction", optional_number(v.roofline_fraction)},
                          {"points_fraction", v.fraction}, {"note", v.note}});
    }
    json sanitizers = json::array();
    for (const SanitizerResult& san : l.sanitizers) {
      sanitizers.push_back({{"tool", san.tool}, {"ran", san.ran}, {"unavailable", san.unavailable},
                            {"hazards", san.hazards}, {"findings", san.findings}, {"cases", san.cases}});
    }
    json lab = {
        {"lab", l.lab.id()},
        {"folder", l.lab.folder},
        {"points", l.points()},
        {"max_points", l.max_points()},
        {"could_not_grade", l.could_not_grade},
        {"could_not_grade_reason", l.could_not_grade_reason},
        {"built", l.built},
        {"build_message", l.build_message},
        {"reasons", l.reasons},
        {"headline", l.headline()},
        {"notes", l.notes},
        {"bonus", l.bonus},
        {"correctness", {{"points", l.correctness_points}, {"max_points", l.correctness_max},
                         {"runs", l.correctness.runs}, {"passed", l.correctness.passed},
                         {"failed", l.correctness.failed}, {"skipped", l.correctness.skipped},
                         {"restarts", l.correctness.restarts}, {"hung", l.correctness.hung},
                         {"failures", failures}}},
        {"performance", {{"points", l.performance_points}, {"max_points", l.performance_max},
                         {"attempted", l.performance.attempted}, {"case", l.performance.cases_text()},
                         {"cases", l.performance.case_ids},
                         {"note", l.performance.note}, {"reasons", l.performance.reasons},
                         {"variants", variants}}},
        {"sanitizers", sanitizers},
    };
    if (l.prediction) {
      const PredictionResult& p = *l.prediction;
      json pj = {{"label", "predicted (analysis)"}, {"case", p.case_id.empty() ? json(nullptr) : json(p.case_id)}};
      if (!p.unavailable.empty()) {
        pj["unavailable"] = p.unavailable;
      } else {
        pj.update({{"config", p.config}, {"bandwidth_reduction_exact", p.exact_reduction},
                   {"bandwidth_reduction_interior", p.interior_reduction},
                   {"global_input_load_bytes", p.global_input_load_bytes},
                   {"global_mask_load_bytes_per_thread", p.global_mask_load_bytes},
                   {"shared_load_bytes", p.shared_load_bytes}, {"warps", p.warps},
                   {"divergent_warps_load", p.divergent_warps_load},
                   {"divergent_warps_compute", p.divergent_warps_compute}});
        json variants = json::array();
        for (const VariantPrediction& v : p.variants) {
          const auto loads = [&](auto value) { return v.loads_modelled ? json(value) : json(nullptr); };
          variants.push_back({{"variant", v.variant}, {"config", v.config},
                              {"global_load_bytes", loads(v.global_load_bytes)},
                              {"global_load_bytes_metric", kMetricGlobalLoadBytes},
                              {"async_copies", loads(v.async_copies)}, {"async_copy_bytes", loads(v.async_copy_bytes)},
                              {"async_copy_bytes_metric", kMetricAsyncCopyBytes},
                              {"global_floats_per_fma", v.global_floats_per_fma}, {"warps", v.warps},
                              {"divergent_warps", v.divergent_warps},
                              {"divergent_warps_branch", v.divergent_warps_branch < 0 ? json(nullptr)
                                                                                      : json(v.divergent_warps_branch)},
                              {"mmas", v.mmas},
                              {"mmas_metric", v.wgmma ? kMetricTensorWgmmaInsts : kMetricTensorMmaInsts}});
        }
        pj["variants"] = variants;
        pj["summary"] = p.summary;
        pj["divergence_basis"] = p.divergence_basis;
      }
      lab["predicted"] = pj;
    }
    if (!l.profile.empty()) {
      json measured = json::array();
      for (const ProfileResult& p : l.profile) {
        json metrics = json::object();
        for (const auto& [name, m] : p.metrics) metrics[name] = measured_json(m);
        json ratios = json::array();
        for (const Measured& m : p.threads_per_warp_instruction) ratios.push_back(measured_json(m));
        metrics[kMetricThreadsPerWarpInst] = {{"per_kernel", ratios}};
        metrics["warp_execution_efficiency"] = measured_json(warp_execution_efficiency(p, false));
        metrics["warp_execution_efficiency_pred_on"] = measured_json(warp_execution_efficiency(p, true));
        json pj = {{"label", "measured (ncu)"}, {"variant", p.variant}, {"case", p.case_id}, {"kernels", p.kernels},
                   {"metrics", metrics}};
        if (!p.unavailable.empty()) pj["unavailable"] = p.unavailable;
        measured.push_back(std::move(pj));
      }
      lab["measured"] = measured;
    }
    labs.push_back(std::move(lab));
  }
  return {{"name", s.name},  {"kind", s.kind},   {"path", s.path.string()}, {"score", s.score()},
          {"max_score", s.max_score()}, {"could_not_grade", s.could_not_grade}, {"labs", labs}};
}

json grade_json(const SubmissionResult& s, const RunInfo& run) {
  return {{"format", "convlab-grade"}, {"version", kGradeJsonVersion}, {"run", run_info_json(run)},
          {"submission", submission_json(s)}};
}

json gradescope_json(const SubmissionResult& s, const RunInfo& run) {
  json tests = json::array();
  for (const LabResult& l : s.labs) {
    std::string correctness = l.headline();
    if (l.built && !l.could_not_grade) {
      correctness = fmt::format("{} of {} runs passed ({} skipped).", l.correctness.passed, l.correctness.runs,
                                l.correctness.skipped);
      for (std::size_t i = 0; i < std::min<std::size_t>(l.correctness.failures.size(), 5); ++i) {
        const RunRecord& r = l.correctness.failures[i];
        correctness += fmt::format("\n{} {}: {}", r.case_id, r.variant, r.message);
        if (!r.details.empty() && i == 0) correctness += "\n" + r.details;
      }
      for (const std::string& b : l.bonus) correctness += "\n" + b;
      for (const std::string& n : l.notes) correctness += "\nnote: " + n;
      for (const SanitizerResult& san : l.sanitizers) {
        if (san.hazards > 0) correctness += fmt::format("\ncompute-sanitizer {}:\n{}", san.tool, join(san.findings, "\n"));
      }
    }
    std::string speed = l.performance.attempted ? "Timed on " + l.performance.cases_text() + "." : l.performance.note;
    for (const VariantTiming& v : l.performance.variants) {
      speed += fmt::format("\n{}: {} (reference {}){}", v.variant, v.time_ms ? format_ms(*v.time_ms) : "-",
                           v.reference_ms ? format_ms(*v.reference_ms) : "-", v.note.empty() ? "" : " — " + v.note);
      for (const TimeFlag& f : v.flags) speed += fmt::format("\n  flagged, {}: {}", f.reason, f.note);
    }
    auto status = [](double got, double max) { return got >= max - 1e-9 ? "passed" : "failed"; };
    tests.push_back({{"name", l.lab.id() + " correctness"}, {"score", l.correctness_points},
                     {"max_score", l.correctness_max}, {"status", status(l.correctness_points, l.correctness_max)},
                     {"output", correctness}, {"visibility", "visible"}});
    tests.push_back({{"name", l.lab.id() + " performance"}, {"score", l.performance_points},
                     {"max_score", l.performance_max}, {"status", status(l.performance_points, l.performance_max)},
                     {"output", speed}, {"visibility", "visible"}});
  }
  std::string output = fmt::format("Graded on {} with {} cases (rubric: {}).", run.device, run.datasets, run.rubric_name);
  if (!run.sandboxed) output = run.sandbox + "\n" + output;
  if (!s.could_not_grade.empty()) output += "\nCould not grade: " + join(s.could_not_grade, "; ");
  return {{"score", s.score()}, {"output", output}, {"tests", tests}, {"stdout_visibility", "visible"}};
}

}  // namespace convlab::grader
