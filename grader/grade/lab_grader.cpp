#include "grade/lab_grader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

#include "correctness/correctness_pass.hpp"
#include "correctness/judge.hpp"
#include "performance/ncu_profile.hpp"
#include "performance/performance_pass.hpp"
#include "performance/prediction.hpp"
#include "run/reasons.hpp"
#include "correctness/sanitizer.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

namespace {

// compute-sanitizer on the small cases of the set (instrumented runs are slow).
void sanitize(const LabInfo& lab, const fs::path& exe, const LabVariants& listing,
              const std::vector<const GradingCase*>& cases, GradingEnvironment& env, LabResult& result) {
  const GradeSettings& settings = env.settings();
  const fs::path work = env.fresh_dir(lab.id() + "-sanitize");
  std::vector<fs::path> small;
  int runs = 0;
  for (const GradingCase* c : cases) {
    if (c->outputs() > settings.sanitize_max_outputs) continue;
    int accepted = 0;
    for (const VariantInfo& v : listing.variants) accepted += v.accepts(c->info) ? 1 : 0;
    if (accepted == 0) continue;
    small.push_back(stage_inputs(*c, work / "cases"));
    runs += accepted;
  }
  for (const char* tool : {"memcheck", "racecheck"}) {
    SanitizerResult s;
    s.tool = tool;
    if (small.empty()) {
      s.unavailable = fmt::format("no case with at most {} outputs in the set", settings.sanitize_max_outputs);
    } else if (result.correctness.hung) {
      s.unavailable = "not run: the lab hangs";
    } else {
      env.progress(fmt::format("{}: compute-sanitizer {} on {} small cases", lab.id(), tool, small.size()));
      s = run_sanitizer(*settings.compute_sanitizer, tool, exe, small, runs, settings.case_timeout_s,
                        work / tool, settings.sandbox);
    }
    if (s.hazards > 0) add_reason(result.reasons, tool);
    if (!s.ran && !small.empty() && !result.correctness.hung && s.unavailable.rfind("not run", 0) != 0) {
      result.could_not_grade = true;
      result.could_not_grade_reason = fmt::format("compute-sanitizer {} could not check {}: {}", tool, lab.id(),
                                                  s.unavailable);
    }
    result.sanitizers.push_back(std::move(s));
  }
  fs::remove_all(work);
}

// Nsight Compute on each variant, on the performance case of its problem.
void profile(const LabInfo& lab, const fs::path& exe, const LabVariants& listing, GradingEnvironment& env,
             LabResult& result) {
  const GradeSettings& settings = env.settings();
  const PerformanceCases perf = performance_cases(lab, listing, env);
  const fs::path work = env.fresh_dir(lab.id() + "-profile");
  std::map<Problem, fs::path> staged;
  for (const auto& [problem, c] : perf) staged[problem] = stage_inputs(*c, work / "cases");
  for (const VariantInfo& v : listing.variants) {
    const GradingCase& c = *perf.at(v.problem);
    if (!v.accepts(c.info)) continue;
    ProfileResult r;
    if (!settings.ncu) {
      r = unavailable_profile(v.name, settings.ncu_missing_reason);
    } else {
      env.progress(fmt::format("{}: ncu on {} {}", lab.id(), c.info.id(), v.name));
      // Hopper's wgmma count only where the GPU has them: ncu refuses a metric the GPU lacks.
      const bool hopper = settings.compute_capability / 10 == 9;
      r = run_ncu(*settings.ncu, exe, v.name, staged.at(v.problem), settings.case_timeout_s, work / v.name,
                  settings.sandbox, hopper ? std::vector<std::string>{kMetricTensorWgmmaInsts} : std::vector<std::string>{});
    }
    r.case_id = c.info.id();
    result.profile.push_back(std::move(r));
  }
  fs::remove_all(work);
}

// What the model needs to predict this lab: the performance cases, the GPU's SM count, and for
// lab 07 the tuning file its launcher reads (next to the executable, or $CONVLAB_LAB07_TUNING).
PredictionContext prediction_context(const LabInfo& lab, const fs::path& exe, GradingEnvironment& env) {
  PredictionContext ctx;
  ctx.conv2d = env.rubric().performance_case(lab.number, Problem::conv2d).conv2d;
  ctx.layer = env.rubric().performance_case(lab.number, Problem::conv_layer).layer;
  ctx.sm_count = env.settings().sm_count;
  if (lab.number != "07") return ctx;
  if (env.settings().sandbox) {
    // The sandbox shows the lab no build/tuning/ folder: it runs its compiled-in defaults.
    ctx.lab07_tuning_source = "compiled-in defaults (a sandboxed lab reads no tuning file)";
    return ctx;
  }
  const char* override_path = std::getenv(lab07::kTuningEnv);
  const std::string origin = exe.filename().string().rfind("solution", 0) == 0 ? "solutions" : "labs";
  const fs::path file = override_path != nullptr && *override_path != '\0'
                            ? fs::path(override_path)
                            : lab07::default_tuning_path(exe.parent_path(), env.settings().device_name, origin);
  if (!fs::exists(file)) return ctx;
  try {
    lab07::TuningTable t = lab07::read_tuning_file(file);
    if (t.device == env.settings().device_name) {
      ctx.lab07_tuning = std::move(t);
      ctx.lab07_tuning_source = "tuned: " + file.string();
    } else {
      ctx.lab07_tuning_source = fmt::format("compiled-in defaults ({} was tuned on {})", file.string(), t.device);
    }
  } catch (const std::exception& e) {
    ctx.lab07_tuning_source = fmt::format("compiled-in defaults (tuning file ignored: {})", e.what());
  }
  return ctx;
}

// The rubric's stretch variants: one still a stub (every run "not implemented") leaves the
// lab's runs, so it costs nothing; one that passes every run earns a bonus line. Returns the
// stubs, whose speed is not counted either.
std::set<std::string> apply_stretch(const LabPoints& points, LabResult& result) {
  std::set<std::string> stubs;
  CorrectnessResult& c = result.correctness;
  for (const std::string& name : points.stretch) {
    const auto it = c.by_variant.find(name);
    if (it == c.by_variant.end() || it->second.runs == 0) continue;
    const CorrectnessResult::VariantTally& t = it->second;
    if (t.passed == t.runs) {
      result.bonus.push_back(fmt::format("bonus: stretch variant {} passes all {} runs", name, t.runs));
    } else if (t.not_implemented == t.runs) {
      stubs.insert(name);
      c.runs -= t.runs;
      c.failed -= t.runs;
      c.failures.erase(std::remove_if(c.failures.begin(), c.failures.end(),
                                      [&](const RunRecord& r) { return r.variant == name; }),
                       c.failures.end());
      result.notes.push_back(fmt::format("stretch variant {} is not implemented: its {} runs are not counted "
                                         "(a stretch step costs nothing until you attempt it)", name, t.runs));
    }
  }
  if (!stubs.empty()) {
    // The lab's reasons came from every failure: recompute them without the stubs'.
    result.reasons.clear();
    for (const RunRecord& r : c.failures) {
      for (const std::string& tag : r.reasons) add_reason(result.reasons, tag);
    }
  }
  return stubs;
}

void score(const LabInfo& lab, GradingEnvironment& env, LabResult& result) {
  const Rubric& rubric = env.rubric();
  result.correctness_points = rubric.correctness_points(lab.number, result.correctness.passed,
                                                        result.correctness.runs, result.sanitizer_hazard);
  std::vector<double> fractions;
  for (const VariantTiming& v : result.performance.variants) fractions.push_back(v.fraction);
  result.performance_points = rubric.performance_points(lab.number, fractions);
}

}  // namespace

CheckedLab check_lab(const LabInfo& lab, const LabExecutable& executable, GradingEnvironment& env) {
  CheckedLab checked;
  checked.settled = true;
  LabResult& result = checked.result;
  result.lab = lab;
  result.notes = executable.notes;
  const LabPoints& points = env.rubric().points(lab.number);
  result.correctness_max = points.correctness;
  result.performance_max = points.performance;
  if (!executable.could_not_grade.empty()) {
    result.could_not_grade = true;
    result.could_not_grade_reason = executable.could_not_grade;
    result.built = false;
    return checked;
  }
  if (!executable.exe) {
    result.built = false;
    result.reasons = executable.build_reasons;
    result.build_message = executable.build_message;
    env.progress(fmt::format("{}: not built: {}", lab.id(), executable.build_message.substr(0, 200)));
    return checked;
  }
  const fs::path& exe = *executable.exe;
  std::string why;
  const LabVariants* listing = env.variants(lab, exe, &why);
  if (!listing) {
    result.could_not_grade = true;
    result.could_not_grade_reason = why;
    return checked;
  }
  // Every case of each problem the lab's variants solve (each variant runs on those it accepts),
  // and at least one of each: a variant with no case to run would pass by running nothing.
  std::vector<const GradingCase*> cases;
  for (const Problem p : listing->problems()) {
    const std::vector<const GradingCase*> of = env.cases().of_problem(p);
    if (of.empty()) {
      result.could_not_grade = true;
      result.could_not_grade_reason = fmt::format("the case set has no {} case for {}: its {} variants ({}) need one",
                                                  problem_name(p), lab.id(), problem_name(p), listing->names_of(p));
      return checked;
    }
    cases.insert(cases.end(), of.begin(), of.end());
  }
  // A variant that runs on another GPU only (lab 08 step 5 on anything but compute capability
  // 9.0) is out of this lab here, as a mask width a variant does not take: said, not counted.
  for (const VariantInfo& v : listing->not_on_this_gpu) {
    result.notes.push_back(fmt::format("{} runs on GPUs of compute capability {}.{} only; this one ({}) cannot run it: "
                                       "its runs are skipped, not counted, and it is not timed",
                                       v.name, v.compute_capability / 10, v.compute_capability % 10,
                                       env.settings().device_name));
  }
  checked.settled = false;
  checked.exe = exe;
  checked.listing = listing;

  CorrectnessOutcome correctness = run_correctness(lab, exe, *listing, cases, env);
  result.correctness = std::move(correctness.result);
  for (const RunRecord& r : result.correctness.failures) {
    for (const std::string& tag : r.reasons) add_reason(result.reasons, tag);
  }
  if (!correctness.could_not_grade.empty()) {
    result.could_not_grade = true;
    result.could_not_grade_reason = correctness.could_not_grade;
  }
  checked.stretch_stubs = apply_stretch(points, result);

  if (env.settings().sanitize) sanitize(lab, exe, *listing, cases, env, result);
  result.sanitizer_hazard = std::any_of(result.sanitizers.begin(), result.sanitizers.end(),
                                        [](const SanitizerResult& s) { return s.hazards > 0; });

  if (result.could_not_grade) {
    result.performance.note = "not timed: the lab could not be graded";
  } else if (auto gate = env.rubric().performance_gate(result.correctness.passed, result.correctness.runs,
                                                       result.sanitizer_hazard)) {
    result.performance.note = std::move(*gate);
  } else {
    checked.timing_due = true;
  }
  return checked;
}

void time_lab(CheckedLab& checked, GradingEnvironment& env) {
  if (checked.settled) return;
  LabResult& result = checked.result;
  const LabInfo& lab = result.lab;
  if (checked.timing_due) {
    // A stretch stub's speed is not counted either (nor its "not implemented" on the timed case).
    checked.timed = time_performance(lab, checked.exe, *checked.listing, env, checked.stretch_stubs);
  }
  if (env.settings().profile && !result.correctness.hung) profile(lab, checked.exe, *checked.listing, env, result);
}

LabResult finish_lab(CheckedLab checked, GradingEnvironment& env) {
  LabResult& result = checked.result;
  if (checked.settled) return std::move(result);
  if (checked.timed) {
    const std::string reference_problem = checked.timed->could_not_grade;
    result.performance = judge_performance(std::move(*checked.timed), env);
    checked.timed.reset();
    if (!reference_problem.empty()) {
      result.could_not_grade = true;
      result.could_not_grade_reason = reference_problem;
    }
    for (const std::string& tag : result.performance.reasons) add_reason(result.reasons, tag);
    for (const VariantTiming& v : result.performance.variants) {
      if (v.correct && v.ratio() && v.fraction < 1) add_reason(result.reasons, reason::kTooSlow);
    }
  }
  result.prediction = predict_lab(result.lab.number, prediction_context(result.lab, checked.exe, env));
  // The case the model's numbers are about; none for lab 08, whose steps are on two cases (its
  // prediction's config names them, and each measurement its own).
  if (const std::optional<Problem> p = predicted_problem(result.lab.number)) {
    result.prediction->case_id = env.performance_case_id(result.lab, *p);
  }
  score(result.lab, env, result);
  return std::move(result);
}

LabResult grade_lab(const LabInfo& lab, const LabExecutable& executable, GradingEnvironment& env) {
  CheckedLab checked = [&] {
    const GpuTurns::Turn turn = env.gpu_turns().shared();
    return check_lab(lab, executable, env);
  }();
  if (checked.needs_gpu_alone(env.settings())) {
    const GpuTurns::Turn turn = env.gpu_turns().alone();
    time_lab(checked, env);
  }
  return finish_lab(std::move(checked), env);
}

SubmissionResult grade_submission(const std::string& name, const std::string& kind, const fs::path& path,
                                  const std::vector<LabInfo>& labs, const std::vector<LabExecutable>& executables,
                                  GradingEnvironment& env, GpuPhases* phases) {
  if (executables.size() != labs.size()) {
    throw std::invalid_argument(fmt::format("{} executables for {} labs", executables.size(), labs.size()));
  }
  std::vector<std::pair<std::size_t, LabExecutable>> every_lab;  // one lot, handed over at the first call
  for (std::size_t i = 0; i < labs.size(); ++i) every_lab.emplace_back(i, executables[i]);
  return grade_submission_as_built(name, kind, path, labs, [&every_lab] { return std::exchange(every_lab, {}); }, env,
                                   phases);
}

SubmissionResult grade_submission_as_built(const std::string& name, const std::string& kind, const fs::path& path,
                                           const std::vector<LabInfo>& labs, const BuiltLabs& built,
                                           GradingEnvironment& env, GpuPhases* phases) {
  using Clock = std::chrono::steady_clock;
  GpuPhases local;
  GpuPhases& times = phases != nullptr ? *phases : local;
  // Checks, lot by lot as the labs are built: a shared turn per lot, none held while waiting.
  std::vector<std::optional<CheckedLab>> checked(labs.size());
  for (std::size_t left = labs.size(); left > 0;) {
    const Clock::time_point asked = Clock::now();
    std::vector<std::pair<std::size_t, LabExecutable>> lot = built();
    times.waited_for_builds_s += std::chrono::duration<double>(Clock::now() - asked).count();
    if (lot.empty()) throw std::logic_error(fmt::format("{}: {} labs were never handed over for grading", name, left));
    const GpuTurns::Turn turn = env.gpu_turns().shared();
    if (!times.first_check) times.first_check = Clock::now();
    times.waited_s += turn.waited_s();
    for (const auto& [i, executable] : lot) {
      if (i >= labs.size() || checked[i]) throw std::logic_error(fmt::format("{}: lab position {} handed over twice or unknown", name, i));
      checked[i] = check_lab(labs[i], executable, env);
      --left;
    }
    times.checks_s += turn.held_s();
  }
  // Timing: one turn alone for every lab, so that the student's timed runs follow one another.
  if (std::any_of(checked.begin(), checked.end(), [&](const std::optional<CheckedLab>& c) { return c->needs_gpu_alone(env.settings()); })) {
    const GpuTurns::Turn turn = env.gpu_turns().alone();
    times.waited_s += turn.waited_s();
    for (std::optional<CheckedLab>& c : checked) {
      if (!c->needs_gpu_alone(env.settings())) continue;
      const Clock::time_point start = Clock::now();
      time_lab(*c, env);
      times.timing_by_lab.emplace_back(c->result.lab.id(), std::chrono::duration<double>(Clock::now() - start).count());
    }
    times.timing_s += turn.held_s();
  }
  SubmissionResult s;
  s.name = name;
  s.kind = kind;
  s.path = path;
  for (std::optional<CheckedLab>& c : checked) {
    LabResult r = finish_lab(std::move(*c), env);
    if (r.could_not_grade) s.could_not_grade.push_back(fmt::format("{}: {}", r.lab.id(), r.could_not_grade_reason));
    s.labs.push_back(std::move(r));
  }
  return s;
}

}  // namespace convlab::grader
