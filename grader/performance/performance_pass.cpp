#include "performance/performance_pass.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "convlab/witness_protocol.hpp"
#include "performance/time_checks.hpp"
#include "performance/timed_outputs.hpp"
#include "run/reasons.hpp"
#include "run/runner_call.hpp"
#include "system/idle_thread.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

namespace {

// What proves a variant's timed phase: the grader's record of the dialog, the runner's numbers
// where they agree with it, and the samples of every timed output, judged here.
// Samples judged later are moved to `keep` first: the runner's output folder goes with run_timed,
// and `keep` is no child's to write (a runner's sandbox writes its own output folder only).
void check_phase(TimedVariant& t, const RunnerEntry& entry, const RunnerReport& report, const GradingCase& perf,
                 const VariantInfo& v, const RunnerCall& call, SampleJudging when, const fs::path& keep) {
  const WitnessPhase* phase = find_phase(report.witness, perf.info.id(), v.name);
  if (phase == nullptr) {
    t.unverified = "its timed phase never opened the grader's window";
    return;
  }
  if (!phase->complete) {
    t.unverified = fmt::format("its timed phase broke the grader's dialog ({})",
                               phase->broken.empty() ? "it never finished" : phase->broken);
    return;
  }
  if (!entry.timed_calls || entry.timed_calls->runs != phase->calls || entry.timed_calls->warmup != call.witnessed_warmup ||
      phase->calls < 3 || phase->calls > call.witnessed_calls) {
    t.unverified = fmt::format("its report of the timed calls disagrees with the dialog ({} calls said)", phase->calls);
    return;
  }
  const fs::path samples = report.output_dir / witness::samples_file_name(perf.info.name, v.name);
  const TimedOutputsSpec spec{perf.info, phase->seed, phase->nonce, call.witnessed_warmup, phase->calls, v.tolerance};
  if (when == SampleJudging::later) {
    PendingSamples pending{keep / samples.filename(), spec};
    std::error_code ec;
    fs::create_directories(keep, ec);
    fs::rename(samples, pending.file, ec);  // a file that is not there is judged "no output" later
    t.pending = std::move(pending);
  } else {
    t.timed_outputs = judge_timed_outputs(samples, spec);
  }
  t.evidence = PhaseEvidence{entry.timed_calls->event_median_ms, entry.timed_calls->wall_median_ms, phase->calls,
                             phase->window_ms};
}

// The case's bytes (one read of the inputs, one write of the output) and FLOPs (2 per
// multiply-add), as the runner and the analysis count them.
std::pair<double, double> bytes_and_flops(const CaseInfo& info) {
  if (info.problem == Problem::conv_layer) {
    const ConvLayerShape& s = info.layer;
    return {4.0 * static_cast<double>(s.input_elements() + s.weight_elements() + s.output_elements()),
            2.0 * static_cast<double>(s.terms_per_output()) * static_cast<double>(s.output_elements())};
  }
  const Conv2dShape& s = info.conv2d;
  return {8.0 * static_cast<double>(s.pixels()),
          2.0 * static_cast<double>(s.terms_per_output()) * static_cast<double>(s.pixels())};
}

// The roofline's time of the case on this GPU; a variant that runs on tensor cores (the lab
// registry says which) is bounded by bandwidth alone: FP32 FMA's peak is not its ceiling.
double roofline_ms(const CaseInfo& info, const ReferenceTiming& ref, const VariantInfo& v) {
  if (ref.copy_gb_per_s <= 0 || ref.fma_gflop_per_s <= 0) return 0;
  const auto [bytes, flops] = bytes_and_flops(info);
  const double memory = bytes / (ref.copy_gb_per_s * 1e9);
  const double compute = v.tensor_cores ? 0 : flops / (ref.fma_gflop_per_s * 1e9);
  return 1e3 * std::max(memory, compute);
}

// One variant scored by the rubric from what its timed run proved.
VariantTiming score_variant(const VariantInfo& v, const TimedRun& run, const ReferenceTiming& reference,
                            const GradingCase& perf, const Rubric& rubric) {
  VariantTiming t;
  t.variant = v.name;
  t.case_id = perf.info.id();
  if (auto it = reference.median_ms.find(v.name); it != reference.median_ms.end()) t.reference_ms = it->second;
  const auto it = run.variants.find(v.name);
  if (it == run.variants.end()) {
    t.note = run.failure.empty() ? "no result" : run.failure;
    return t;
  }
  const TimedVariant& tv = it->second;
  // Samples not judged yet count as right for now: judge_performance scores the variant again.
  const bool samples_pass = tv.pending.has_value() || tv.timed_outputs.pass;
  t.correct = tv.judgement.pass && (!tv.evidence || samples_pass);
  if (!tv.judgement.pass) {
    t.note = fmt::format("wrong on the performance case: {}", tv.judgement.message);
    return t;
  }
  if (!tv.time_ms) {
    t.note = "not timed";
    return t;
  }
  if (!tv.evidence) {
    t.flags.push_back({reason::kUnverifiedTime, tv.unverified});
    t.note = fmt::format("no speed points: {}", tv.unverified);
    return t;
  }
  if (!samples_pass) {
    t.flags.push_back({reason::kWrongOnTimedCall, tv.timed_outputs.message});
    t.note = fmt::format("no speed points: {}", tv.timed_outputs.message);
    return t;
  }
  const auto ref_phase = reference.evidence.find(v.name);
  const PhaseEvidence ref = ref_phase != reference.evidence.end() ? ref_phase->second : PhaseEvidence{};
  const TimeVerdict verdict = check_time(*tv.evidence, ref, roofline_ms(perf.info, reference, v));
  t.flags = verdict.flags;
  if (!verdict.time_ms) {
    t.note = fmt::format("no speed points: {}", verdict.flags.back().note);
    return t;
  }
  // Every rate from the time the grader accepted, none from the child's report.
  t.time_ms = verdict.time_ms;
  const auto [bytes, flops] = bytes_and_flops(perf.info);
  const double sec = *t.time_ms * 1e-3;
  t.gb_per_s = bytes / sec / 1e9;
  t.gflop_per_s = flops / sec / 1e9;
  if (const double roof = roofline_ms(perf.info, reference, v); roof > 0) t.roofline_fraction = roof / *t.time_ms;
  if (!t.ratio()) {
    t.note = "no reference time";
    return t;
  }
  t.fraction = rubric.performance_fraction(*t.ratio());
  if (t.fraction < 1) {
    t.note = fmt::format("{:.2f}× the reference time (full points at ≤ {:.2f}×, none at ≥ {:.2f}×)", *t.ratio(),
                         rubric.full_at_ratio, rubric.zero_at_ratio);
  }
  return t;
}

// Why the lab cannot be timed as the rubric means: some problem's performance case suits none
// of the lab's variants of that problem (a K none of them takes); "" when each has one to time.
std::string unsuited_case(const LabInfo& lab, const LabVariants& listing, const PerformanceCases& perf) {
  for (const auto& [problem, c] : perf) {
    const auto takes = [p = problem, &info = c->info](const VariantInfo& v) { return v.problem == p && v.accepts(info); };
    if (std::none_of(listing.variants.begin(), listing.variants.end(), takes)) {
      return fmt::format("no {} variant of {} ({}) takes the rubric's performance case {} (a lab may name its own: "
                         "labs.{}.{}_case in the rubric)",
                         problem_name(problem), lab.id(), listing.names_of(problem), c->info.id(), lab.number,
                         problem_name(problem));
    }
  }
  return "";
}

// Of two scorings of one variant, the one to keep: correct first, then fewer flags, then faster.
bool better(const VariantTiming& a, const VariantTiming& b) {
  if (a.correct != b.correct) return a.correct;
  if (a.flags.size() != b.flags.size()) return a.flags.size() < b.flags.size();
  if (a.fraction != b.fraction) return a.fraction > b.fraction;
  return a.time_ms.value_or(1e300) < b.time_ms.value_or(1e300);
}

}  // namespace

PerformanceCases performance_cases(const LabInfo& lab, const LabVariants& listing, GradingEnvironment& env) {
  PerformanceCases out;
  for (const Problem p : listing.problems()) out[p] = &env.performance_case(lab, p);
  return out;
}

TimedRun run_timed(const fs::path& exe, const LabVariants& listing, const PerformanceCases& perf,
                   GradingEnvironment& env, const fs::path& work, SampleJudging when) {
  TimedRun out;
  RunnerCall call;
  call.exe = exe;
  for (const auto& [problem, c] : perf) call.cases.push_back(stage_inputs(*c, work / "cases"));
  call.time = true;
  call.witnessed_calls = env.settings().timed_calls;
  call.case_timeout_s = env.settings().case_timeout_s;
  call.grace_s = env.settings().process_grace_s;
  call.sandbox = env.settings().sandbox;
  call.work_dir = work;
  call.planned_runs = static_cast<int>(listing.variants.size());
  const RunnerReport report = call_runner(call);
  if (report.ceilings) {
    out.copy_gb_per_s = report.ceilings->copy_gb_per_s;
    out.fma_gflop_per_s = report.ceilings->fma_gflop_per_s;
  }

  for (const VariantInfo& v : listing.variants) {
    // Each variant on the case of its own problem; a result it reports on another case is not its timing.
    const auto own = perf.find(v.problem);
    if (own == perf.end() || !v.accepts(own->second->info)) continue;
    const GradingCase& c = *own->second;
    const RunnerEntry* entry = nullptr;
    for (const RunnerEntry& e : report.entries) {
      if (e.case_id == c.info.id() && e.variant == v.name) entry = &e;
    }
    if (!entry) continue;
    TimedVariant t;
    if (entry->status == "RAN" || entry->status == "PASS") {
      t.judgement = judge_output(output_file(report.output_dir, c.info.name, v.name), env.expectations().get(c),
                                 v.tolerance);
    } else {
      t.judgement.reasons = entry->reasons;
      t.judgement.message = entry->message;
    }
    t.time_ms = entry->time_ms;
    if (t.judgement.pass && t.time_ms) check_phase(t, *entry, report, c, v, call, when, work / "samples");
    out.variants.emplace(v.name, std::move(t));
  }
  if (report.timed_out()) {
    out.failure = fmt::format("timed out ({})", report.process.describe());
    out.reasons.push_back(reason::kTimedOut);
  } else if (report.crashed()) {
    out.failure = fmt::format("crashed: {}", report.crash.value_or(report.process.describe()));
    out.reasons.push_back(reason::kCrashed);
    for (const std::string& r : report.crash_reasons) add_reason(out.reasons, r);
  } else if (!report.exited() || (report.process.exit_code != 0 && report.process.exit_code != 1)) {
    out.failure = fmt::format("{}: {}", report.process.describe(), report.process.output.substr(0, 400));
    out.reasons.push_back(reason::kRunnerError);
  } else if (!report.report_found) {
    out.failure = report.report_error;
    out.reasons.push_back(reason::kRunnerError);
  }
  fs::remove_all(report.output_dir);  // large outputs: judged, not kept
  return out;
}

void judge_samples(TimedRun& run) {
  for (auto& [variant, t] : run.variants) {
    if (!t.pending) continue;
    t.timed_outputs = judge_timed_outputs(t.pending->file, t.pending->spec);
    std::error_code ec;
    fs::remove(t.pending->file, ec);
    t.pending.reset();
  }
}

namespace {

// The reference's phases that prove their time (correct outputs, a complete witness dialog).
std::map<std::string, PhaseEvidence> proven_phases(const TimedRun& run) {
  std::map<std::string, PhaseEvidence> phases;
  for (const auto& [variant, v] : run.variants) {
    if (v.judgement.pass && v.evidence && v.timed_outputs.pass) phases[variant] = *v.evidence;
  }
  return phases;
}

// `reference` with its phases timed again now, in the caller's turn on the GPU, for the grader's
// clock: a machine busy with a class's other work (compiles, the other GPUs' checks, the
// grader's own threads) lengthens every phase's window, the reference's as much as the
// student's, so the windows compare only when taken under the same load. Hidden work still
// lengthens the student's window past the reference's. The scoring baseline (median_ms) stays
// the run's, the same for every student. `reference` as it was when the reference cannot run.
ReferenceTiming reference_timed_again(const LabInfo& lab, const LabVariants& listing, const PerformanceCases& perf,
                                      const ReferenceTiming& reference, GradingEnvironment& env) {
  ReferenceTiming again = reference;
  const std::optional<fs::path> exe = env.reference_exe(lab);
  if (!exe) return again;
  const fs::path dir = env.fresh_dir(lab.id() + "-reference-again");
  const TimedRun run = run_timed(*exe, listing, perf, env, dir);
  fs::remove_all(dir);
  if (!run.failure.empty()) return again;
  for (auto& [variant, phase] : proven_phases(run)) again.evidence[variant] = phase;
  return again;
}

}  // namespace

const ReferenceTiming& reference_timing(const LabInfo& lab, const LabVariants& listing, GradingEnvironment& env) {
  if (const ReferenceTiming* cached = env.cached_reference(lab)) return *cached;
  ReferenceTiming t;
  const std::optional<fs::path> exe = env.reference_exe(lab);
  if (!exe) {
    t.unavailable = fmt::format("no reference solution is built (solution{})", lab.number);
  } else {
    env.progress(fmt::format("{}: timing the reference solution on the performance case", lab.id()));
    const TimedRun run =
        run_timed(*exe, listing, performance_cases(lab, listing, env), env, env.fresh_dir(lab.id() + "-reference"));
    if (!run.failure.empty()) {
      t.unavailable = fmt::format("the reference solution failed on the performance case: {}", run.failure);
    }
    t.copy_gb_per_s = run.copy_gb_per_s;
    t.fma_gflop_per_s = run.fma_gflop_per_s;
    t.evidence = proven_phases(run);
    for (const auto& [variant, v] : run.variants) {
      // The reference solution is the grader's own code, but it passes the same checks: a
      // reference whose phase proves nothing cannot be compared with.
      if (t.unavailable.empty() && !t.evidence.count(variant)) {
        t.unavailable = fmt::format("the reference solution's {} is wrong on the performance case: {}", variant,
                                    !v.judgement.pass ? v.judgement.message
                                    : !v.evidence     ? v.unverified
                                                      : v.timed_outputs.message);
      }
    }
    // The same number the submission's check_time starts from.
    for (const auto& [variant, phase] : t.evidence) t.median_ms[variant] = phase.event_ms;
  }
  return env.store_reference(lab, std::move(t));
}

void time_references_ahead(const std::vector<LabInfo>& labs, GradingEnvironment& env) {
  for (const LabInfo& lab : labs) {
    const GpuTurns::Turn turn = env.gpu_turns().alone();  // the listing, too, runs the reference
    std::string why;
    const LabVariants* listing = env.variants(lab, std::nullopt, &why);
    if (listing == nullptr) continue;
    const PerformanceCases perf = performance_cases(lab, *listing, env);
    if (std::any_of(listing->variants.begin(), listing->variants.end(),
                    [&](const VariantInfo& v) { return v.accepts(perf.at(v.problem)->info); })) {
      reference_timing(lab, *listing, env);
    }
  }
}

TimedPerformance time_performance(const LabInfo& lab, const fs::path& exe, const LabVariants& listing,
                                  GradingEnvironment& env, const std::set<std::string>& left_out) {
  TimedPerformance timed;
  PerformanceResult& result = timed.result;
  timed.perf = performance_cases(lab, listing, env);
  const PerformanceCases& perf = timed.perf;
  result.attempted = true;
  for (const auto& [problem, c] : perf) result.case_ids.push_back(c->info.id());
  if (std::string unsuited = unsuited_case(lab, listing, perf); !unsuited.empty()) {
    result.note = timed.could_not_grade = std::move(unsuited);
    return timed;
  }
  const ReferenceTiming& reference = reference_timing(lab, listing, env);
  if (!reference.unavailable.empty()) {
    result.note = reference.unavailable;
    timed.could_not_grade = fmt::format("{} performance: {}", lab.id(), reference.unavailable);
    return timed;
  }
  timed.reference = &reference;
  for (const VariantInfo& v : listing.variants) {
    if (v.accepts(perf.at(v.problem)->info) && !left_out.count(v.name)) timed.scored.push_back(&v);  // left out: a stretch stub
  }

  env.progress(fmt::format("{}: timing on {}", lab.id(), result.cases_text()));
  timed.work = env.fresh_dir(lab.id() + "-performance");
  timed.first = run_timed(exe, listing, perf, env, timed.work, SampleJudging::later);

  // A variant out of the full-points band, or flagged, is timed once more and keeps the better
  // of its two runs: a one-off slow run (clocks ramping, a neighbour on the GPU) or a phase the
  // grader's clock caught in a hiccup should not cost points, while a kernel that really is
  // slower, or really hides its work, does it twice. Decided on the times and the full output,
  // the samples being judged after the turn: a variant whose samples then fail was timed again
  // for nothing, and scores nothing either way.
  const bool again = timed.first.failure.empty() &&
                     std::any_of(timed.scored.begin(), timed.scored.end(), [&](const VariantInfo* v) {
                       const VariantTiming t = score_variant(*v, timed.first, reference, *perf.at(v->problem), env.rubric());
                       return t.correct && t.time_ms && (t.fraction < 1 || !t.flags.empty());
                     });
  if (again) {
    env.progress(fmt::format("{}: timing again (a variant was flagged or out of the full-points band)", lab.id()));
    timed.work_again = env.fresh_dir(lab.id() + "-performance-again");
    timed.again = run_timed(exe, listing, perf, env, timed.work_again, SampleJudging::later);
    timed.same_turn = reference_timed_again(lab, listing, perf, reference, env);
  }
  return timed;
}

PerformanceResult judge_performance(TimedPerformance timed, GradingEnvironment& env) {
  PerformanceResult result = std::move(timed.result);
  if (timed.reference == nullptr) return result;  // not timed: the note says why
  // Seconds of several cores, beside other students' timed runs: on cores nothing else wants.
  run_at_idle_priority([&] {
    judge_samples(timed.first);
    if (timed.again) judge_samples(*timed.again);
  });
  const Rubric& rubric = env.rubric();
  std::vector<VariantTiming> timings;
  for (const VariantInfo* v : timed.scored) {
    timings.push_back(score_variant(*v, timed.first, *timed.reference, *timed.perf.at(v->problem), rubric));
  }
  if (timed.again) {
    for (std::size_t i = 0; i < timed.scored.size(); ++i) {
      const VariantInfo& v = *timed.scored[i];
      VariantTiming retimed = score_variant(v, *timed.again, *timed.same_turn, *timed.perf.at(v.problem), rubric);
      if (better(retimed, timings[i])) timings[i] = std::move(retimed);
    }
  }
  const TimedRun& run = timed.first;
  for (VariantTiming& t : timings) {
    const auto it = run.variants.find(t.variant);
    if (!t.correct && it != run.variants.end()) {
      for (const std::string& r : it->second.judgement.reasons) add_reason(result.reasons, r);
    }
    for (const TimeFlag& f : t.flags) add_reason(result.reasons, f.reason);
    result.variants.push_back(std::move(t));
  }
  if (!run.failure.empty()) result.note = run.failure;
  for (const std::string& r : run.reasons) add_reason(result.reasons, r);
  for (const fs::path& dir : {timed.work, timed.work_again}) {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
  return result;
}

}  // namespace convlab::grader
