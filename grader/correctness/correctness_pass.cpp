#include "correctness/correctness_pass.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "correctness/judge.hpp"
#include "run/reasons.hpp"
#include "run/runner_call.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

namespace {

using Verdict = RunRecord::Verdict;

// One case of the plan and its runs, in the order the runner makes them.
struct PlannedCase {
  const GradingCase* c = nullptr;
  fs::path staged;
  std::vector<std::size_t> runs;  // indices into the records
};

struct Plan {
  std::vector<PlannedCase> cases;
  std::vector<RunRecord> records;   // one per run, in run order
  std::vector<const VariantInfo*> variant_of;  // per record
  std::vector<const GradingCase*> case_of;     // per record
  std::vector<char> settled;                   // per record: verdict known (run or not)
  bool decided(std::size_t i) const { return settled[i] != 0; }
};

Plan make_plan(const LabVariants& listing, const std::vector<const GradingCase*>& cases, const fs::path& stage_root,
               int& skipped) {
  Plan plan;
  for (const GradingCase* c : cases) {
    PlannedCase pc;
    pc.c = c;
    for (const VariantInfo& v : listing.variants) {
      if (v.problem != c->info.problem) continue;  // another problem's case: not a run it skips
      if (!v.accepts(c->info)) {
        ++skipped;
        continue;
      }
      pc.runs.push_back(plan.records.size());
      plan.records.push_back({c->info.id(), v.name, Verdict::not_run, {}, "", "", ""});
      plan.variant_of.push_back(&v);
      plan.case_of.push_back(c);
      plan.settled.push_back(0);
    }
    if (pc.runs.empty()) continue;
    pc.staged = stage_inputs(*c, stage_root);
    plan.cases.push_back(std::move(pc));
  }
  return plan;
}

// The verdict on one run from the runner's entry and the output file.
void judge_values(const RunnerEntry& entry, RunRecord& rec, const VariantInfo& v, const GradingCase& c,
                  const fs::path& output, GradingEnvironment& env) {
  if (entry.status == "RAN" || entry.status == "PASS") {
    const Judgement j = judge_output(output, env.expectations().get(c), v.tolerance);
    rec.verdict = j.pass ? Verdict::pass : Verdict::fail;
    rec.reasons = j.reasons;
    rec.message = j.message;
    rec.details = j.details;
    return;
  }
  rec.verdict = Verdict::fail;
  rec.message = entry.message;
  if (entry.status == "SKIP") {
    rec.reasons = {reason::kRunnerError};
    rec.message = "the runner skipped a run the grader expected: " + entry.message;
    return;
  }
  if (entry.status == "ERROR") {
    rec.reasons = {reason::kRunnerError};
    return;
  }
  rec.reasons = entry.reasons;
  if (rec.reasons.empty()) rec.reasons.push_back(reason::kRunnerError);
  // Stray writes or a CUDA error: the values may be wrong too; a stub's output is not news.
  if (std::find(rec.reasons.begin(), rec.reasons.end(), reason::kNotImplemented) == rec.reasons.end() &&
      fs::exists(output)) {
    const Judgement j = judge_output(output, env.expectations().get(c), v.tolerance);
    if (!j.pass) {
      for (const std::string& r : j.reasons) add_reason(rec.reasons, r);
      rec.message += "; " + j.message;
      rec.details = j.details;
    }
  }
}

// grade --error-map: a failing run with an output gets its picture (a stub's, all unwritten, does not).
void draw_map_if_failed(const RunnerEntry& entry, RunRecord& rec, const std::string& lab_id, const VariantInfo& v,
                        const GradingCase& c, const fs::path& output, GradingEnvironment& env) {
  const auto& dir = env.settings().error_map_dir;
  if (!dir || rec.verdict != Verdict::fail) return;
  if (std::find(rec.reasons.begin(), rec.reasons.end(), reason::kNotImplemented) != rec.reasons.end()) return;
  const int k = c.info.problem == Problem::conv2d ? c.info.conv2d.mask_width : c.info.layer.mask_width;
  const ErrorMapRun run{lab_id, v.name, c.info.name, c.info.id(), k};
  std::string why;
  const auto file = draw_error_map(*dir, run, output, env.expectations().get(c), v.tolerance,
                                   entry.output_guard_offsets, why);
  if (file) {
    rec.error_map = file->string();
  } else if (fs::exists(output)) {
    env.progress(fmt::format("{}: no error map for {} {}: {}", lab_id, v.name, c.info.id(), why));
  }
}

void judge_entry(const RunnerEntry& entry, RunRecord& rec, const std::string& lab_id, const VariantInfo& v,
                 const GradingCase& c, const fs::path& output_dir, GradingEnvironment& env) {
  const fs::path output = output_file(output_dir, c.info.name, v.name);
  judge_values(entry, rec, v, c, output, env);
  draw_map_if_failed(entry, rec, lab_id, v, c, output, env);
}

// The first line of the runner's output that starts with `prefix` ("TIMEOUT", "CRASH").
std::string line_starting(const std::string& output, const std::string& prefix) {
  std::size_t pos = 0;
  while (pos < output.size()) {
    const std::size_t end = output.find('\n', pos);
    const std::string line = output.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (line.rfind(prefix, 0) == 0) return line;
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return "";
}

// Every run of cases [from_case, end) without a verdict: not run, for `why`.
void mark_rest(Plan& plan, std::size_t from_case, const std::string& why, const std::vector<std::string>& reasons) {
  for (std::size_t k = from_case; k < plan.cases.size(); ++k) {
    for (std::size_t i : plan.cases[k].runs) {
      if (plan.decided(i)) continue;
      plan.records[i].verdict = Verdict::not_run;
      plan.records[i].message = why;
      plan.records[i].reasons = reasons;
      plan.settled[i] = 1;
    }
  }
}

// One runner process over the cases from `next` on.
RunnerCall process_call(const fs::path& exe, const GradeSettings& settings, const Plan& plan, std::size_t next,
                        const fs::path& work_dir) {
  RunnerCall call;
  call.exe = exe;
  call.case_timeout_s = settings.case_timeout_s;
  call.grace_s = settings.process_grace_s;
  call.sandbox = settings.sandbox;
  call.work_dir = work_dir;
  call.planned_runs = 0;
  for (std::size_t k = next; k < plan.cases.size(); ++k) {
    call.cases.push_back(plan.cases[k].staged);
    call.planned_runs += static_cast<int>(plan.cases[k].runs.size());
  }
  return call;
}

// Judges every run the process reported, from case `next` on.
void judge_reported(const RunnerReport& report, Plan& plan, std::size_t next, const std::string& lab_id,
                    GradingEnvironment& env) {
  for (const RunnerEntry& e : report.entries) {
    for (std::size_t k = next; k < plan.cases.size(); ++k) {
      for (std::size_t i : plan.cases[k].runs) {
        if (plan.records[i].case_id == e.case_id && plan.records[i].variant == e.variant && !plan.decided(i)) {
          judge_entry(e, plan.records[i], lab_id, *plan.variant_of[i], *plan.case_of[i], report.output_dir, env);
          plan.settled[i] = 1;
        }
      }
    }
  }
}

// Where a process stopped: the first run from case `next` on without a result.
struct Stop {
  std::size_t case_index = 0;
  std::size_t run = 0;  // index into the records
};

std::optional<Stop> where_stopped(const Plan& plan, std::size_t next) {
  for (std::size_t k = next; k < plan.cases.size(); ++k) {
    for (std::size_t i : plan.cases[k].runs) {
      if (!plan.decided(i)) return Stop{k, i};
    }
  }
  return std::nullopt;
}

// A hang: the run fails as "timed out" and the lab stops there.
void settle_hang(const RunnerReport& report, Stop stop, Plan& plan, const GradeSettings& settings,
                 CorrectnessResult& result) {
  RunRecord& stopped = plan.records[stop.run];
  const std::string said = line_starting(report.process.output, "TIMEOUT");
  stopped.reasons = {reason::kTimedOut};
  stopped.message = !said.empty() ? said
                                  : fmt::format("did not finish within {} s; {}", settings.case_timeout_s,
                                                report.process.describe());
  result.hung = true;
  mark_rest(plan, stop.case_index, fmt::format("not run: the lab hung on {} {}", stopped.case_id, stopped.variant),
            {reason::kTimedOut});
}

// A crash: the run fails with its reason, the rest of its case is not run, and a fresh process
// takes the next case unless the restarts are spent. Returns that case, or nothing.
std::optional<std::size_t> settle_crash(const RunnerReport& report, Stop stop, Plan& plan, const LabInfo& lab,
                                        GradingEnvironment& env, CorrectnessResult& result) {
  RunRecord& stopped = plan.records[stop.run];
  stopped.message = report.crash ? "crashed: " + *report.crash : "crashed: " + report.process.describe();
  stopped.reasons = {reason::kCrashed};
  for (const std::string& r : report.crash_reasons) {
    if (r != reason::kCudaError) add_reason(stopped.reasons, r);
  }
  for (std::size_t i : plan.cases[stop.case_index].runs) {
    if (!plan.decided(i)) {
      plan.records[i].message = "not run: the process crashed earlier on this case";
      plan.records[i].reasons = {reason::kCrashed};
      plan.settled[i] = 1;
    }
  }
  const std::size_t next = stop.case_index + 1;
  if (result.restarts >= env.settings().max_crash_restarts) {
    mark_rest(plan, next, fmt::format("not run: the lab crashed {} times", result.restarts + 1), {reason::kCrashed});
    return std::nullopt;
  }
  if (next < plan.cases.size()) {
    ++result.restarts;
    env.progress(fmt::format("{}: crashed on {} ({}); continuing with the next case in a fresh process", lab.id(),
                             stopped.case_id, stopped.message.substr(0, 120)));
  }
  return next;
}

// The runner stopped without a crash or a hang: a usage error, no GPU, a missing result.
void settle_runner_stop(const RunnerReport& report, Stop stop, Plan& plan, CorrectnessOutcome& out) {
  RunRecord& stopped = plan.records[stop.run];
  const std::string why = fmt::format("{}; {}", report.process.describe(),
                                      report.report_error.empty() ? report.process.output.substr(0, 400)
                                                                  : report.report_error);
  if (report.exited() && report.process.exit_code == 3) out.could_not_grade = "the lab runner found no usable GPU: " + why;
  if (report.exited() && report.process.exit_code == 2) out.could_not_grade = "the lab runner rejected its arguments: " + why;
  stopped.reasons = {reason::kRunnerError};
  stopped.message = "no result: " + why;
  mark_rest(plan, stop.case_index, "not run: " + why, {reason::kRunnerError});
}

// The run where the process stopped fails, and so may the rest. Returns the case a fresh
// process starts at, or nothing when the lab stops here.
std::optional<std::size_t> settle_stop(const RunnerReport& report, Stop stop, Plan& plan, const LabInfo& lab,
                                       GradingEnvironment& env, CorrectnessOutcome& out) {
  plan.records[stop.run].verdict = Verdict::fail;
  plan.settled[stop.run] = 1;
  if (report.timed_out()) {
    settle_hang(report, stop, plan, env.settings(), out.result);
    return std::nullopt;
  }
  if (report.crashed()) return settle_crash(report, stop, plan, lab, env, out.result);
  settle_runner_stop(report, stop, plan, out);
  return std::nullopt;
}

// The counts, per variant and in all, and the failures; a run this GPU cannot do makes the
// lab ungradable here rather than wrong.
void tally(const Plan& plan, const LabInfo& lab, CorrectnessOutcome& out) {
  CorrectnessResult& result = out.result;
  for (const RunRecord& r : plan.records) {
    CorrectnessResult::VariantTally& t = result.by_variant[r.variant];
    ++t.runs;
    t.passed += r.verdict == Verdict::pass;
    t.not_implemented += r.verdict != Verdict::pass && std::find(r.reasons.begin(), r.reasons.end(),
                                                                reason::kNotImplemented) != r.reasons.end();
    if (r.verdict == Verdict::pass) {
      ++result.passed;
    } else {
      ++result.failed;
      result.failures.push_back(r);
      if (out.could_not_grade.empty() && unsupported_device(r.message)) {
        out.could_not_grade = fmt::format("this GPU cannot run {}: {}", lab.id(), r.message);
      }
    }
  }
  result.runs = static_cast<int>(plan.records.size());
}

}  // namespace

CorrectnessOutcome run_correctness(const LabInfo& lab, const fs::path& exe, const LabVariants& listing,
                                   const std::vector<const GradingCase*>& cases, GradingEnvironment& env) {
  CorrectnessOutcome out;
  const fs::path work = env.fresh_dir(lab.id() + "-correctness");
  Plan plan = make_plan(listing, cases, work / "cases", out.result.skipped);
  env.progress(fmt::format("{}: {} runs on {} cases ({} skipped: mask widths the lab does not take)", lab.id(),
                           plan.records.size(), plan.cases.size(), out.result.skipped));
  const auto started = std::chrono::steady_clock::now();

  std::optional<std::size_t> next = 0;  // first case of the next process
  int attempt = 0;
  while (next && *next < plan.cases.size()) {
    const RunnerCall call = process_call(exe, env.settings(), plan, *next, work / fmt::format("process-{}", ++attempt));
    const RunnerReport report = call_runner(call);
    judge_reported(report, plan, *next, lab.id(), env);
    fs::remove_all(report.output_dir);
    const std::optional<Stop> stop = where_stopped(plan, *next);
    if (!stop) break;  // every run reported
    next = settle_stop(report, *stop, plan, lab, env, out);
  }

  tally(plan, lab, out);
  env.progress(fmt::format("{}: {} of {} runs passed ({:.1f} s)", lab.id(), out.result.passed, out.result.runs,
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()));
  fs::remove_all(work);
  return out;
}

}  // namespace convlab::grader
