#include "schedule/grade_session.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <mutex>
#include <set>

#include "convlab/atomic_file.hpp"
#include "convlab/contained_paths.hpp"
#include "system/child_environment.hpp"
#include "system/exit_codes.hpp"
#include "system/tool_paths.hpp"
#include "convlab/device_info.hpp"
#include "run/lab_sandbox.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

namespace {

std::string now_iso() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::vector<std::string> describe_options(const GradeOptions& o) {
  std::vector<std::string> out;
  if (o.solutions) out.push_back("--solutions");
  if (!o.submission.empty()) out.push_back("--submission " + o.submission);
  if (!o.batch_dir.empty()) out.push_back("batch " + o.batch_dir);
  if (!o.labs.empty()) out.push_back("--labs " + o.labs);
  if (!o.datasets.empty()) out.push_back("--datasets " + o.datasets);
  if (o.random_seed) out.push_back(fmt::format("--random-seed {} --random-count {}", *o.random_seed, o.random_count));
  if (!o.rubric.empty()) out.push_back("--rubric " + o.rubric);
  out.push_back(fmt::format("--timeout {}", o.timeout_s));
  if (o.sanitize) out.push_back("--sanitize");
  if (o.profile) out.push_back("--profile");
  if (o.no_sandbox) out.push_back("--no-sandbox");
  if (o.no_host_code_check) out.push_back("--no-host-code-check");
  if (!o.harness.empty()) out.push_back("--harness " + o.harness);
  return out;
}

// A report file checked writable before anything slow (convlab/atomic_file.hpp's check):
// grading an hour and then failing to write the report would lose the hour.
std::optional<SessionError> output_unwritable(const std::string& path, const char* flag) {
  if (path.empty()) return std::nullopt;
  const fs::path parent = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  try {
    (void)given_folder(parent, fmt::format("{} {}: the folder", flag, path));
  } catch (const PathError& e) {
    return SessionError{kUsageError, fmt::format("grader: error: {}", e.what())};
  }
  try {
    check_writable(path);
  } catch (const std::runtime_error& e) {
    return SessionError{kUsageError, fmt::format("grader: error: {}: {}", flag, e.what())};
  }
  return std::nullopt;
}

// The executable in the project's own build, if it is there.
std::optional<fs::path> project_exe(const std::string& name) {
  const fs::path p = bin_dir() / name;
  if (fs::exists(p)) return p;
  return std::nullopt;
}

// A note when an executable is older than the sources it was built from.
std::vector<std::string> staleness(const fs::path& exe, const fs::path& folder) {
  std::error_code ec;
  const auto built = fs::last_write_time(exe, ec);
  if (ec) return {};
  for (const auto& f : fs::directory_iterator(folder, ec)) {
    if (f.is_regular_file() && f.path().extension() != ".md" && fs::last_write_time(f.path(), ec) > built) {
      return {fmt::format("{} is older than {}: rebuild first (cmake --build --preset gpu) or this grades the old code",
                          exe.string(), f.path().string())};
    }
  }
  return {};
}

}  // namespace

namespace {

// Phase 1: everything the user typed, before anything slow (exit 2 if wrong).
std::optional<SessionError> check_request(const GradeOptions& o, std::vector<LabInfo>& all_labs,
                                          std::vector<LabInfo>& labs, Rubric& rubric) {
  try {
    all_labs = discover_labs(source_dir() / "labs");
    labs = select_labs(all_labs, o.labs);
    rubric = load_rubric(o.rubric.empty() ? default_rubric_path() : fs::path(o.rubric));
    for (const LabInfo& lab : labs) (void)rubric.points(lab.number);  // every graded lab has points
  } catch (const std::exception& e) {
    return SessionError{kUsageError, fmt::format("grader: error: {}", e.what())};
  }
  try {
    if (!o.datasets.empty()) (void)given_folder(o.datasets, "--datasets");
  } catch (const PathError& e) {
    return SessionError{kUsageError, fmt::format("grader: error: {}", e.what())};
  }
  for (const auto& [path, flag] : {std::pair{&o.json, "--json"}, std::pair{&o.gradescope, "--gradescope"},
                                   std::pair{&o.csv, "--csv"}, std::pair{&o.schedule, "--schedule"}}) {
    if (auto error = output_unwritable(*path, flag)) return error;
  }
  return std::nullopt;
}

// Phase 2: what this machine must give the run (exit 3 when it cannot): the GPU, the tools the
// options ask for, the sandbox.
std::optional<SessionError> check_machine(const GradeOptions& o, DeviceInfo& device, GradeSettings& settings,
                                          std::vector<std::string>& warnings) {
  std::string why;
  const auto found = grading_platform().query_device(&why);
  if (!found) {
    return SessionError{kCouldNotGrade,
                        fmt::format("grader: cannot grade: {}.\n"
                                    "Grading runs each lab's CUDA kernels, so it needs a machine with an NVIDIA GPU "
                                    "and its driver.\n"
                                    "Nothing was graded. Everything that needs no GPU works here: try build/bin/grader "
                                    "tables",
                                    why)};
  }
  device = *found;
  settings.case_timeout_s = o.timeout_s;
  settings.sanitize = o.sanitize;
  settings.profile = o.profile;
  settings.device_name = device.name;
  settings.sm_count = device.sm_count;
  settings.compute_capability = 10 * device.cc_major + device.cc_minor;
  if (o.sanitize) {
    settings.compute_sanitizer = find_tool("compute-sanitizer");
    if (!settings.compute_sanitizer) {
      return SessionError{kCouldNotGrade,
                          fmt::format("grader: cannot grade with --sanitize: compute-sanitizer was not found (looked "
                                      "in PATH, {} and /usr/local/cuda/bin). Nothing was graded; install the CUDA "
                                      "toolkit's compute-sanitizer or grade without --sanitize.",
                                      CONVLAB_CUDA_BIN_DIR)};
    }
  }
  if (o.profile) settings.ncu = find_tool("ncu");
  if (!o.error_map.empty()) {
    std::error_code ec;
    fs::create_directories(o.error_map, ec);
    if (ec || !fs::is_directory(o.error_map)) {
      return SessionError{kUsageError, fmt::format("grader: error: --error-map {}: cannot create the folder{}",
                                                   o.error_map, ec ? ": " + ec.message() : "")};
    }
    settings.error_map_dir = fs::absolute(o.error_map);
  }
  if (o.no_sandbox) {
    warnings.push_back(fmt::format("--no-sandbox: {}", sandbox_description(false)));
    return std::nullopt;
  }
  std::vector<fs::path> tools;
  for (const auto& t : {settings.compute_sanitizer, settings.ncu}) {
    if (t) tools.push_back(*t);
  }
  std::string problem, fix;
  settings.sandbox = grading_platform().make_sandbox(device.pci_bus_id, tools, &problem, &fix);
  if (!settings.sandbox) {
    return SessionError{kCouldNotGrade,
                        fmt::format("grader: cannot grade: the sandbox that keeps each submission away from the "
                                    "datasets, the repository, other submissions and this grader cannot start: {}.\n"
                                    "To fix it: {}.\n"
                                    "Nothing was graded. To grade anyway, unsandboxed, add --no-sandbox (every report "
                                    "then says so).",
                                    problem, fix)};
  }
  return std::nullopt;
}

// Phase 3: the cases (exit 2 when they cannot be read).
std::optional<SessionError> load_cases(const GradeOptions& o, const fs::path& work_root,
                                       const std::function<void(const std::string&)>& progress, CaseSet& cases,
                                       std::vector<std::string>& warnings) {
  try {
    if (o.random_seed) {
      progress(fmt::format("generating a fresh random set from seed {} ({} cases per problem)", *o.random_seed,
                           o.random_count));
      cases = generate_random_case_set(*o.random_seed, o.random_count, work_root / "random-set");
    } else if (!o.datasets.empty()) {
      cases = load_case_set(o.datasets, fmt::format("private ({})", o.datasets));
    } else {
      cases = load_case_set(source_dir() / "datasets", "public (datasets/)");
    }
  } catch (const std::exception& e) {
    return SessionError{kUsageError, fmt::format("grader: error: the cases: {}", e.what())};
  }
  for (const std::string& why : cases.skipped) warnings.push_back(fmt::format("the cases: {}", why));
  cases.description += fmt::format(": {} conv2d, {} conv-layer cases", cases.of_problem(Problem::conv2d).size(),
                                    cases.of_problem(Problem::conv_layer).size());
  return std::nullopt;
}

}  // namespace

SessionStart open_grade_session(const GradeOptions& o) {
  SessionStart start;
  std::unique_ptr<GradeSession> s(new GradeSession(o));
  Rubric rubric;
  start.error = check_request(o, s->all_labs_, s->labs_, rubric);
  if (start.error) return start;
  DeviceInfo device;
  GradeSettings settings;
  start.error = check_machine(o, device, settings, start.warnings);
  if (start.error) return start;
  s->cuda_architectures_ = fmt::format("{}{}", device.cc_major, device.cc_minor);
  if (!o.harness.empty()) {
    if (const std::string problem = prebuilt_harness_problem(fs::absolute(o.harness), s->cuda_architectures_);
        !problem.empty()) {
      start.error = SessionError{kUsageError, fmt::format("grader: error: {}", problem)};
      return start;
    }
  }
  if (!o.quiet) settings.progress = [](const std::string& line) {
    fmt::print(stderr, "  {}\n", line);
    std::fflush(stderr);
  };

  s->work_root_ = fs::temp_directory_path() / fmt::format("convlab-grade-{}-{}", getpid(),
                                                          std::chrono::steady_clock::now().time_since_epoch().count());
  fs::create_directories(s->work_root_);
  CaseSet cases;
  start.error = load_cases(o, s->work_root_, [&](const std::string& line) { s->progress(line); }, cases,
                           start.warnings);
  if (start.error) return start;

  RunInfo& run = s->run_;
  run.convlab_version = CONVLAB_VERSION;
  run.started = now_iso();
  run.device = device.describe();
  run.datasets = cases.description;
  run.rubric = rubric.source;
  run.rubric_name = rubric.name;
  run.options = describe_options(o);
  run.sandboxed = !o.no_sandbox;
  run.sandbox = sandbox_description(run.sandboxed);
  s->env_ = std::make_unique<GradingEnvironment>(std::move(cases), std::move(rubric), std::move(settings),
                                                 s->work_root_ / "work", grading_platform().reference_exe,
                                                 grading_platform().variants_exe);
  start.session = std::move(s);
  return start;
}

GradeSession::~GradeSession() {
  if (work_root_.empty()) return;
  if (options_.keep_work) {
    fmt::print(stderr, "grader: kept the work folder {}\n", work_root_.string());
    return;
  }
  std::error_code ec;
  fs::remove_all(work_root_, ec);
}

void GradeSession::progress(const std::string& line) const {
  if (!options_.quiet) {
    fmt::print(stderr, "  {}\n", line);
    std::fflush(stderr);
  }
}

SubmissionResult GradeSession::grade_project(bool solutions) {
  const std::string prefix = solutions ? "solution" : "lab";
  const fs::path folder = source_dir() / (solutions ? "solutions" : "labs");
  progress(fmt::format("grading the project's build of {}/ ({})", folder.filename().string(), bin_dir().string()));
  std::vector<LabExecutable> executables;
  for (const LabInfo& lab : labs_) {
    LabExecutable& e = executables.emplace_back();
    const std::string name = prefix + lab.number;
    if (auto exe = project_exe(name)) {
      e.exe = exe;
      e.notes = staleness(*exe, folder / lab.folder);
    } else if (solutions) {
      e.could_not_grade = fmt::format("{} is not built: {}/ has no solution for it yet, or the build is stale",
                                      name, (folder / lab.folder).string());
    } else {
      e.could_not_grade = fmt::format("{} is not built: build the project first (cmake --build --preset gpu)",
                                      (bin_dir() / name).string());
    }
  }
  return grade_submission(solutions ? "solutions/" : "labs/", solutions ? "solutions" : "labs", folder, labs_,
                          executables, *env_);
}

fs::path GradeSession::build_root() const {
  return options_.build_dir.empty() ? work_root_ / "build" : fs::absolute(options_.build_dir);
}

std::string GradeSession::lab07_shapes() const {
  std::set<std::pair<int, int>> shapes;
  for (const GradingCase* c : env_->cases().of_problem(Problem::conv2d)) {
    shapes.insert({c->info.conv2d.mask_width, c->info.conv2d.width});
  }
  // Lab 07's own performance case (the rubric's global one unless its entry names another).
  const PerformanceCase perf = env_->rubric().performance_case("07", Problem::conv2d);
  shapes.insert({perf.conv2d.mask_width, perf.conv2d.width});
  std::string out;
  for (const auto& [k, w] : shapes) out += fmt::format("{}{}:{}", out.empty() ? "" : ",", k, w);
  return out;
}

LabJobs& GradeSession::lab_jobs() {
  if (jobs_) return *jobs_;
  const int cores = compile_jobs(options_.jobs);
  if (!options_.harness.empty()) {
    harness_ = HarnessBuild::prebuilt(fs::absolute(options_.harness), cuda_architectures_);
  } else {
    HarnessSettings h;
    h.source_dir = source_dir();
    h.build_dir = build_root() / "harness";
    h.cuda_architectures = cuda_architectures_;
    h.jobs = cores;
    for (const LabInfo& lab : all_labs_) h.labs.push_back(lab.number);
    if (!options_.quiet) h.progress = [this](const std::string& line) { progress(line); };
    harness_ = std::make_shared<HarnessBuild>(std::move(h), grading_platform().build_harness);
  }
  BuildSettings b;
  b.source_dir = source_dir();
  b.build_dir = build_root() / "labs";
  b.harness = harness_;
  b.cuda_architectures = cuda_architectures_;
  b.sandbox = env_->settings().sandbox;
  b.check_host_code = !options_.no_host_code_check;
  b.lab07_shapes = lab07_shapes();
  jobs_ = std::make_unique<LabJobs>(grading_platform().make_builder(b, all_labs_), build_root() / "store", cores, start_);
  return *jobs_;
}

void GradeSession::add_build_costs(ClassOutcome& outcome) {
  ClassCost& c = outcome.cost;
  c.cores = lab_jobs().cores();
  c.harness_core_s = harness_ ? harness_->core_s() : 0;
  c.setup_core_s = lab_jobs().setup_core_s();
  c.build_core_s = c.harness_core_s + c.setup_core_s;
  for (const ScheduleRecord& r : outcome.schedule) c.build_core_s += r.build_core_s;
}

SubmissionResult GradeSession::grade_folder(const fs::path& folder, const std::string& name, ScheduleRecord* record) {
  // Built before the GPU is asked for: a compile holds no GPU turn.
  const auto now_s = [this] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); };
  const double build_start = now_s();
  // Kept with --build-dir, to be run by hand as the grader ran them; else gone with the run.
  fs::path exe_dir;
  if (options_.build_dir.empty()) {
    exe_dir = env_->fresh_dir("executables-" + name);
  } else {
    // A name that is no plain folder name ("..", from --submission ..) must not lead out of it.
    const bool plain = !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
    exe_dir = build_root() / "executables" / (plain ? name : "submission");
    fs::remove_all(exe_dir);
    fs::create_directories(exe_dir);
  }
  const std::vector<LabBuild> builds = lab_jobs().build_all(name, fs::absolute(folder), labs_, exe_dir);
  std::vector<LabExecutable> executables;
  for (const LabBuild& b : builds) executables.push_back(b.exe);
  GpuPhases phases;
  const double gpu_start = now_s();
  SubmissionResult r = grade_submission(name, "submission", fs::absolute(folder), labs_, executables, *env_, &phases);
  if (record != nullptr) {
    record->submission = name;
    record->build_start_s = build_start;
    record->build_end_s = record->gpu_start_s = gpu_start;
    record->gpu_end_s = now_s();
    record->labs = builds;
    for (const LabBuild& b : builds) record->build_core_s += b.core_s;
    record->phases = phases;
  }
  if (options_.build_dir.empty()) fs::remove_all(exe_dir);
  return r;
}

namespace {

std::vector<GpuSlot> gpus_of(const GradeOptions& o) {
  std::string why;
  const int visible = grading_platform().count_gpus(&why);
  const char* parent_visible = std::getenv("CUDA_VISIBLE_DEVICES");
  std::vector<GpuSlot> gpus =
      select_gpus(o.gpus, visible, parent_visible ? std::optional<std::string>(parent_visible) : std::nullopt);
  if (gpus.empty()) throw std::invalid_argument(fmt::format("there is no GPU to grade on: {}", why));
  return gpus;
}

}  // namespace

ClassOutcome GradeSession::grade_class_serially(const std::vector<ClassSubmission>& submissions) {
  const GpuSlot gpu = gpus_of(options_).front();
  const ScopedChildEnvironment device({{"CUDA_VISIBLE_DEVICES", gpu.visible_id}});
  start_ = std::chrono::steady_clock::now();
  auto now_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); };
  ClassOutcome out;
  for (std::size_t i = 0; i < submissions.size(); ++i) {
    const ClassSubmission& s = submissions[i];
    ScheduleRecord rec;
    rec.submission = s.name;
    rec.build_start_s = now_s();
    rec.gpu = gpu.index;
    rec.gpu_worker = 0;
    SubmissionResult r;
    try {
      if (!s.refused.empty()) throw PathError(s.refused);
      r = grade_folder(s.folder, s.name, &rec);
    } catch (const std::exception& e) {  // the grader's own failure on this folder: note it, go on
      r.name = s.name;
      r.kind = "submission";
      r.path = fs::absolute(s.folder);
      r.could_not_grade.push_back(fmt::format("grading stopped with an error: {}", e.what()));
      rec.build_end_s = rec.gpu_start_s = rec.gpu_end_s = now_s();
    }
    if (out.cost.first_on_gpu_s < 0 && r.could_not_grade.empty()) out.cost.first_on_gpu_s = rec.gpu_start_s;
    ClassProgress p{i + 1, submissions.size(), now_s(), s.name, gpu.index, r.score(), r.max_score(),
                    !r.could_not_grade.empty()};
    progress(p.line());
    for (const LabBuild& b : rec.labs) {
      out.cost.compiles += b.compiled ? 1 : 0;
      out.cost.shared += b.shared_from.empty() ? 0 : 1;
    }
    out.results.push_back(std::move(r));
    out.schedule.push_back(rec);
  }
  out.cost.wall_s = now_s();
  out.cost.gpu_busy_s = {env_->gpu_turns().busy_s()};
  out.cost.gpu_turns = {turn_spans(env_->gpu_turns(), start_)};
  add_build_costs(out);
  return out;
}

// Students graded on one GPU at once (--students-per-gpu): their checks share the GPU, their
// timed runs take turns alone (session/gpu_turns.hpp).
constexpr int kStudentsPerGpu = 4;

ClassOutcome GradeSession::grade_class(const std::vector<ClassSubmission>& submissions) {
  ClassPlan plan;
  plan.gpus = gpus_of(options_);
  plan.students_per_gpu = options_.students_per_gpu > 0 ? options_.students_per_gpu : kStudentsPerGpu;
  plan.submissions = submissions;
  plan.labs = labs_;
  plan.work_dir = work_root_ / "class";
  start_ = plan.start = std::chrono::steady_clock::now();
  LabJobs& jobs = lab_jobs();
  // Every lab of every student is a job on the -j cores, the first students' labs first
  // (schedule/core_budget.hpp). More threads than cores: a job that waits for an identical
  // compile, or copies its result, holds no core, and a student's labs all start at once.
  plan.build_threads = jobs.cores() + static_cast<int>(labs_.size());
  plan.stage = [this, &jobs](const ClassSubmission& s) {
    std::vector<StagedLab> staged;
    for (const LabInfo& lab : labs_) staged.push_back(jobs.stage(fs::absolute(s.folder), lab));
    std::vector<StagedLab> ordered;
    for (const std::size_t i : jobs.widest_first(staged)) ordered.push_back(std::move(staged[i]));
    return ordered;
  };
  plan.line_up = [&jobs](std::uint64_t priority) { return jobs.line_up(priority); };
  plan.build = [&jobs](const ClassSubmission& s, const StagedLab& lab, const fs::path& exe_dir, CoreBudget::Ticket ticket) {
    return jobs.build(s.name, lab, exe_dir, std::move(ticket));
  };
  auto print_lock = std::make_shared<std::mutex>();
  auto host_turns = std::make_shared<HostTurns>();  // every GPU of the run keeps one rule (session/gpu_turns.hpp)
  plan.make_environment = [this, print_lock, host_turns](const GpuSlot& gpu) {
    GradeSettings settings = env_->settings();
    if (settings.progress) {
      settings.progress = [print_lock, gpu](const std::string& line) {
        std::lock_guard<std::mutex> lock(*print_lock);
        fmt::print(stderr, "  GPU {}: {}\n", gpu.index, line);
        std::fflush(stderr);
      };
    }
    return std::make_unique<GradingEnvironment>(env_->cases(), env_->rubric(), std::move(settings),
                                                work_root_ / fmt::format("gpu-{}", gpu.index),
                                                grading_platform().reference_exe, grading_platform().variants_exe,
                                                host_turns);
  };
  if (!options_.quiet) plan.on_progress = [print_lock](const ClassProgress& p) {
    std::lock_guard<std::mutex> lock(*print_lock);
    fmt::print(stderr, "{}\n", p.line());
    std::fflush(stderr);
  };
  progress(fmt::format("grading {} submissions: their labs built on {} core{}, {} GPU{} ({}), {} student{} at once per GPU",
                       submissions.size(), jobs.cores(), jobs.cores() == 1 ? "" : "s", plan.gpus.size(),
                       plan.gpus.size() == 1 ? "" : "s", [&] {
                         std::string ids;
                         for (const GpuSlot& g : plan.gpus) ids += (ids.empty() ? "" : ",") + std::to_string(g.index);
                         return ids;
                       }(),
                       plan.students_per_gpu, plan.students_per_gpu == 1 ? "" : "s"));
  ClassOutcome out = convlab::grader::grade_class(plan);
  add_build_costs(out);
  return out;
}

}  // namespace convlab::grader
