#include "engine/grade_session.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <ctime>

#include "convlab/atomic_file.hpp"
#include "system/exit_codes.hpp"
#include "system/tool_paths.hpp"
#include "convlab/device_info.hpp"
#include "system/tool_paths.hpp"

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
  return out;
}

// An output file's folder must exist before hours of grading, not after.
bool output_folder_exists(const std::string& path, const char* flag) {
  if (path.empty()) return true;
  const fs::path parent = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  if (fs::is_directory(parent)) return true;
  fmt::print(stderr, "grader: error: {} {}: there is no folder {}\n", flag, path, parent.string());
  return false;
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

void add_common_grade_options(CLI::App* cmd, GradeOptions& o) {
  cmd->add_option("--labs", o.labs, "grade only these labs, e.g. 01,03 (default: all)");
  auto* datasets = cmd->add_option("--datasets", o.datasets,
                                   "grade on the cases in DIR (a private set) instead of the public datasets/");
  auto* seed = cmd->add_option("--random-seed", o.random_seed,
                               "grade on a fresh random set generated from this seed (conv2d and conv layers)");
  cmd->add_option("--random-count", o.random_count, "cases per problem in the random set (default 20)")
      ->check(CLI::Range(1, 10000));
  datasets->excludes(seed);
  cmd->add_option("--rubric", o.rubric, "the rubric (default: tools/grader/rubric.json)");
  cmd->add_option("--timeout", o.timeout_s, "seconds one variant may take on one case (timing included) before it counts as hung (default 20)")
      ->check(CLI::Range(1, 3600));
  cmd->add_flag("--sanitize", o.sanitize, "also run compute-sanitizer memcheck and racecheck on each lab's small cases");
  cmd->add_flag("--profile", o.profile, "also measure Nsight Compute counters on the performance case (slow)");
  cmd->add_option("--json", o.json, "write the report as JSON to FILE (atomically)");
  cmd->add_option("--build-dir", o.build_dir,
                  "build submissions in DIR and keep it (reused: unchanged labs are not recompiled)");
  cmd->add_option("--jobs,-j", o.jobs, "parallel compile jobs when building submissions (default: one per core)")
      ->check(CLI::Range(0, 1024));
  cmd->add_flag("--quiet,-q", o.quiet, "no progress lines");
  cmd->add_flag("--keep-work", o.keep_work, "keep the temporary folder (staged cases, outputs) for inspection");
}

GradeSession::GradeSession(const GradeOptions& o, int& exit_code) : options_(o) {
  // 1. Everything the user typed (exit 2 if wrong), before anything slow.
  Rubric rubric;
  try {
    all_labs_ = discover_labs(source_dir() / "labs");
    labs_ = select_labs(all_labs_, o.labs);
    rubric = load_rubric(o.rubric.empty() ? default_rubric_path() : fs::path(o.rubric));
    for (const LabInfo& lab : labs_) (void)rubric.points(lab.number);  // every graded lab has points
  } catch (const std::exception& e) {
    fmt::print(stderr, "grader: error: {}\n", e.what());
    exit_code = kUsageError;
    return;
  }
  if (!o.datasets.empty() && !fs::is_directory(o.datasets)) {
    fmt::print(stderr, "grader: error: --datasets {}: no such folder\n", o.datasets);
    exit_code = kUsageError;
    return;
  }
  if (!output_folder_exists(o.json, "--json") || !output_folder_exists(o.gradescope, "--gradescope") ||
      !output_folder_exists(o.csv, "--csv")) {
    exit_code = kUsageError;
    return;
  }

  // 2. What this machine cannot do (exit 3).
  std::string why;
  const auto device = query_device(&why);
  if (!device) {
    fmt::print(stderr,
               "grader: cannot grade: {}.\n"
               "Grading runs each lab's CUDA kernels, so it needs a machine with an NVIDIA GPU and its driver.\n"
               "Nothing was graded. Everything that needs no GPU works here: try build/bin/grader tables\n",
               why);
    exit_code = kCouldNotGrade;
    return;
  }
  cuda_architectures_ = fmt::format("{}{}", device->cc_major, device->cc_minor);
  GradeSettings settings;
  settings.case_timeout_s = o.timeout_s;
  settings.sanitize = o.sanitize;
  settings.profile = o.profile;
  if (o.sanitize) {
    settings.compute_sanitizer = find_tool("compute-sanitizer");
    if (!settings.compute_sanitizer) {
      fmt::print(stderr,
                 "grader: cannot grade with --sanitize: compute-sanitizer was not found (looked in PATH, {} and "
                 "/usr/local/cuda/bin). Nothing was graded; install the CUDA toolkit's compute-sanitizer or "
                 "grade without --sanitize.\n",
                 CONVLAB_CUDA_BIN_DIR);
      exit_code = kCouldNotGrade;
      return;
    }
  }
  if (o.profile) settings.ncu = find_tool("ncu");
  if (!o.error_map.empty()) {
    std::error_code ec;
    fs::create_directories(o.error_map, ec);
    if (ec || !fs::is_directory(o.error_map)) {
      fmt::print(stderr, "grader: error: --error-map {}: cannot create the folder{}\n", o.error_map,
                 ec ? ": " + ec.message() : "");
      exit_code = kUsageError;
      return;
    }
    settings.error_map_dir = fs::absolute(o.error_map);
  }
  if (!o.quiet) settings.progress = [](const std::string& line) {
    fmt::print(stderr, "  {}\n", line);
    std::fflush(stderr);
  };

  // 3. The cases.
  work_root_ = fs::temp_directory_path() /
               fmt::format("convlab-grade-{}-{}", getpid(), std::chrono::steady_clock::now().time_since_epoch().count());
  fs::create_directories(work_root_);
  CaseSet cases;
  try {
    if (o.random_seed) {
      progress(fmt::format("generating a fresh random set from seed {} ({} cases per problem)", *o.random_seed,
                           o.random_count));
      cases = generate_random_case_set(*o.random_seed, o.random_count, work_root_ / "random-set");
    } else if (!o.datasets.empty()) {
      cases = load_case_set(o.datasets, fmt::format("private ({})", o.datasets));
    } else {
      cases = load_case_set(source_dir() / "datasets", "public (datasets/)");
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "grader: error: the cases: {}\n", e.what());
    exit_code = kUsageError;
    return;
  }
  cases.description += fmt::format(": {} conv2d, {} conv-layer cases", cases.of_problem(Problem::conv2d).size(),
                                    cases.of_problem(Problem::conv_layer).size());

  run_.convlab_version = CONVLAB_VERSION;
  run_.started = now_iso();
  run_.device = device->describe();
  run_.datasets = cases.description;
  run_.rubric = rubric.source;
  run_.rubric_name = rubric.name;
  run_.options = describe_options(o);

  env_ = std::make_unique<GradingEnvironment>(
      std::move(cases), std::move(rubric), std::move(settings), work_root_ / "work",
      [](const LabInfo& lab) { return project_exe("solution" + lab.number); },
      [](const LabInfo& lab) {
        if (auto s = project_exe("solution" + lab.number)) return s;
        return project_exe(lab.id());
      });
  exit_code = kGraded;
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
  return grade_submission(
      solutions ? "solutions/" : "labs/", solutions ? "solutions" : "labs", folder, labs_,
      [&](const LabInfo& lab) {
        LabExecutable e;
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
        return e;
      },
      *env_);
}

SubmissionResult GradeSession::grade_folder(const fs::path& folder, const std::string& name) {
  if (!builder_) {
    BuildSettings b;
    b.source_dir = source_dir();
    b.build_dir = options_.build_dir.empty() ? work_root_ / "build" : fs::absolute(options_.build_dir);
    b.cuda_architectures = cuda_architectures_;
    b.jobs = options_.jobs;
    if (!options_.quiet) b.progress = [this](const std::string& line) { progress(line); };
    builder_ = std::make_unique<SubmissionBuilder>(b, all_labs_);
  }
  builder_->stage(fs::absolute(folder), labs_);
  const fs::path exe_dir = env_->fresh_dir("executables-" + name);
  SubmissionResult r = grade_submission(name, "submission", fs::absolute(folder), labs_,
                                        [&](const LabInfo& lab) { return builder_->build(lab, exe_dir); }, *env_);
  fs::remove_all(exe_dir);
  return r;
}

bool write_report_file(const std::string& path, const std::string& content, const char* what) {
  if (path.empty()) return true;
  try {
    write_file_atomically(path, content);
    fmt::print(stderr, "grader: wrote the {} to {}\n", what, path);
    return true;
  } catch (const std::exception& e) {
    fmt::print(stderr, "grader: error: {}\n", e.what());
    return false;
  }
}

int finished_exit_code(const std::vector<SubmissionResult>& results) {
  for (const SubmissionResult& r : results) {
    if (!r.could_not_grade.empty()) return kCouldNotGrade;
  }
  return kGraded;
}

}  // namespace convlab::grader
