// A class's labs built once per distinct set of bytes (store/compile_store.hpp) on a budget of
// cores handed out in the students' order (schedule/core_budget.hpp), and the pipeline that
// grades a student as soon as its labs are built (schedule/class_pipeline.hpp, lab_jobs.hpp).
// The compiles here are a test double that writes a numbered output; the real compile is
// tests/cpu/test_submission_build.cpp's.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <string_view>
#include <thread>

#include "convlab/file_reader.hpp"
#include "convlab/limits.hpp"
#include "grader_test_support.hpp"
#include "run/reasons.hpp"
#include "schedule/class_pipeline.hpp"
#include "schedule/core_budget.hpp"
#include "schedule/lab_jobs.hpp"
#include "store/compile_store.hpp"
#include "system/child_environment.hpp"
#include "system/subprocess.hpp"

using namespace convlab;
using namespace convlab::grader;
using namespace convlab::grader::testing;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// Under AddressSanitizer and UBSan (the asan preset) the grader's own work before a student's
// first check takes seconds where it takes tenths, so the class schedule's tests stretch their
// fake compiles by as much: what they order, builds against checks, stays what they test.
#ifdef CONVLAB_SANITIZED
constexpr double kBuildStretch = 5.0;
#else
constexpr double kBuildStretch = 1.0;
#endif

std::string read(const fs::path& p) { return convlab::read_file(p, convlab::kMaxTextFileBytes); }

StagedLab staged(const LabInfo& lab, LabFiles files) { return StagedLab{lab, std::move(files), std::nullopt}; }

LabInfo lab03() { return {"03", "03-tiled-output", {"tiled_output.cu"}}; }

// A compile that takes `seconds`, uses the cores it is given, and writes an executable (the fake
// lab) and a file naming which compile of the run made it: an output a student could not
// produce by anything but this compile of its bytes.
struct FakeCompiles {
  double seconds = 0.05;
  std::map<std::string, double> seconds_of;  ///< a lab's own compile time ("lab03"), else `seconds`
  std::mutex mutex;
  int count = 0;
  struct Interval {
    std::string lab;
    std::chrono::steady_clock::time_point start, end;
    int cores;
  };
  std::vector<Interval> intervals;

  LabExecutable run(const StagedLab& lab, int cores, const fs::path& out_dir, double* core_s) {
    const auto start = std::chrono::steady_clock::now();
    const auto own = seconds_of.find(lab.lab.id());
    std::this_thread::sleep_for(std::chrono::duration<double>(own != seconds_of.end() ? own->second : seconds));
    int n = 0;
    {
      std::lock_guard<std::mutex> lock(mutex);
      n = ++count;
      intervals.push_back({lab.lab.id(), start, std::chrono::steady_clock::now(), cores});
    }
    *core_s = 0.5;
    if (lab.files.count("broken")) {
      LabExecutable e;
      e.build_reasons = {reason::kCompileError};
      e.build_message = "does not compile";
      return e;
    }
    write_test_file(out_dir / "compile-number", std::to_string(n));
    return executable(fake_lab(out_dir, lab.lab.id(), "--fake-time-ms 1"));
  }
};

class TestBuilder final : public LabBuilder {
 public:
  TestBuilder(FakeCompiles& compiles, int cores) : compiles_(compiles), cores_(cores) {}
  StagedLab stage(const fs::path& submission, const LabInfo& lab) override {
    LabFiles files;
    for (const auto& f : fs::directory_iterator(submission / lab.folder)) files[f.path().filename().string()] = read(f.path());
    return staged(lab, files);
  }
  bool prepare(std::string*) override { return true; }
  std::string context() override { return "the test's compiler"; }
  int useful_cores(const StagedLab& lab) const override { return lab.lab.number == "01" ? cores_ : 1; }
  LabExecutable compile(const StagedLab& lab, int cores, const fs::path& out_dir, double* core_s) override {
    return compiles_.run(lab, cores, out_dir, core_s);
  }
  double setup_core_s() override { return 0; }

 private:
  FakeCompiles& compiles_;
  int cores_;
};

// A class of students with a lab01 and a lab03 each, `files` giving each one's lab01 file.
struct ClassOfLabs {
  TempDir tmp;
  FakeCompiles compiles;
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  LabJobs jobs;
  CaseSet cases;

  ClassOfLabs(const std::string& name, int cores, int lab01_cores, const std::map<std::string, std::string>& lab01_bytes)
      : tmp(name),
        jobs(std::make_unique<TestBuilder>(compiles, lab01_cores), tmp.path() / "store", cores, start),
        cases(small_case_set(tmp.path() / "cases")) {
    for (const auto& [student, bytes] : lab01_bytes) {
      write_test_file(tmp.path() / "class" / student / "01-naive" / "naive.cu", bytes);
      write_test_file(tmp.path() / "class" / student / "03-tiled-output" / "tiled_output.cu", "// " + student + "\n");
    }
  }

  ClassOutcome grade(int gpus, int students_per_gpu = 1) {
    ClassPlan p;
    p.students_per_gpu = students_per_gpu;
    for (const auto& e : fs::directory_iterator(tmp.path() / "class")) {
      p.submissions.push_back({e.path().filename().string(), e.path(), ""});
    }
    p.labs = {lab01(), lab03()};
    for (int g = 0; g < gpus; ++g) p.gpus.push_back({g, std::to_string(g)});
    p.work_dir = tmp.path() / "work";
    p.start = start;  // the builds' times and the pipeline's count from one start
    p.build_threads = jobs.cores() + 2;
    p.stage = [this](const ClassSubmission& s) {
      std::vector<StagedLab> out;
      for (const LabInfo& lab : {lab01(), lab03()}) out.push_back(jobs.stage(s.folder, lab));
      return out;
    };
    p.line_up = [this](std::uint64_t priority) { return jobs.line_up(priority); };
    p.build = [this](const ClassSubmission& s, const StagedLab& lab, const fs::path& exe_dir, CoreBudget::Ticket ticket) {
      return jobs.build(s.name, lab, exe_dir, std::move(ticket));
    };
    // The GPUs keep one rule for their turns, as grader batch's do (schedule/grade_session.cpp).
    p.make_environment = [this, host = std::make_shared<HostTurns>()](const GpuSlot& gpu) {
      return make_env(cases, tmp.path() / fmt::format("gpu-{}", gpu.index),
                      fake_lab(tmp.path() / "ref", "reference", "--fake-time-ms 1"), test_settings(), test_rubric(), host);
    };
    return grade_class(p);
  }
};

const LabBuild& lab_of(const ScheduleRecord& r, std::string_view lab) {
  const auto it = std::find_if(r.labs.begin(), r.labs.end(), [&](const LabBuild& b) { return b.lab == lab; });
  REQUIRE(it != r.labs.end());
  return *it;
}

}  // namespace

TEST_CASE("compile store: the key names every byte, name and the context, and nothing else", "[grader][store]") {
  TempDir tmp("store-key");
  CompileStore store(tmp.path() / "store");
  const StagedLab a = staged(lab01(), {{"naive.cu", "__global__ void k() {}\n"}, {"util.cuh", "// util\n"}});
  const std::string key = store.key("ctx", a);
  CHECK(key.size() == 64);
  CHECK(store.key("ctx", staged(lab01(), a.files)) == key);  // the same bytes: the same key
  StagedLab changed = a;
  changed.files["naive.cu"][0] = 'x';  // one byte
  CHECK(store.key("ctx", changed) != key);
  StagedLab renamed = staged(lab01(), {{"naive.cu", a.files.at("naive.cu")}, {"other.cuh", "// util\n"}});
  CHECK(store.key("ctx", renamed) != key);
  StagedLab extra = a;
  extra.files["notes.txt"] = "";  // an empty file is an input too
  CHECK(store.key("ctx", extra) != key);
  // Moving bytes from one file's end to the next file's start changes the key: lengths are in it.
  const StagedLab split1 = staged(lab01(), {{"a", "xy"}, {"b", "z"}});
  const StagedLab split2 = staged(lab01(), {{"a", "x"}, {"b", "yz"}});
  CHECK(store.key("ctx", split1) != store.key("ctx", split2));
  CHECK(store.key("other compiler", a) != key);
  CHECK(store.key("ctx", staged(lab03(), a.files)) != key);
}

TEST_CASE("compile store: identical bytes compile once, for whoever comes first, and a failure is compiled again",
          "[grader][store]") {
  TempDir tmp("store-get");
  FakeCompiles compiles;
  compiles.seconds = 0.2;
  auto store = std::make_unique<CompileStore>(tmp.path() / "store");
  const StagedLab lab = staged(lab01(), {{"naive.cu", "// the handout's stub\n"}});
  const std::string key = store->key("ctx", lab);
  auto get = [&](const std::string& student) {
    return store->get(key, student, tmp.path() / student / "lab01",
                      [&](double* core_s) { return compiles.run(lab, 1, tmp.path() / student / "lab01", core_s); });
  };
  // Three students at once: one compiles, the two others wait for it and get its output.
  auto ana = std::async(std::launch::async, get, "ana");
  auto ben = std::async(std::launch::async, get, "ben");
  auto cho = std::async(std::launch::async, get, "cho");
  const StoredCompile results[] = {ana.get(), ben.get(), cho.get()};
  CHECK(compiles.count == 1);
  CHECK(store->compiles() == 1);
  int compiled = 0;
  for (const StoredCompile& r : results) {
    REQUIRE(r.exe.exe);
    compiled += r.shared ? 0 : 1;
    CHECK(r.core_s == (r.shared ? 0 : 0.5));
    // Each student's own copy, made by the one compile that ran.
    CHECK(read(r.exe.exe->parent_path() / "compile-number") == "1");
    CHECK(read(*r.exe.exe) == read(*results[0].exe.exe));
  }
  CHECK(compiled == 1);
  const std::string first = std::find_if(std::begin(results), std::end(results), [](const StoredCompile& r) {
                              return !r.shared;
                            })->compiled_for;
  for (const StoredCompile& r : results) CHECK(r.compiled_for == first);

  // A store on the same folder later (a run that keeps --build-dir) finds it without compiling.
  store = std::make_unique<CompileStore>(tmp.path() / "store");
  const StoredCompile later = get("dan");
  CHECK(later.shared);
  CHECK(later.compiled_for == first);
  CHECK(compiles.count == 1);

  // A compile error is not stored: the next student with those bytes compiles again.
  const StagedLab broken = staged(lab01(), {{"naive.cu", "oops"}, {"broken", ""}});
  const std::string broken_key = store->key("ctx", broken);
  auto get_broken = [&](const std::string& student) {
    return store->get(broken_key, student, tmp.path() / student / "broken",
                      [&](double* core_s) { return compiles.run(broken, 1, tmp.path() / student / "broken", core_s); });
  };
  CHECK_FALSE(get_broken("eve").exe.exe);
  CHECK_FALSE(get_broken("fay").shared);
  CHECK(compiles.count == 3);
}

TEST_CASE("core budget: never more cores than it has, in the order of the line, and a ticket that leaves lets the "
          "next through",
          "[grader][store]") {
  CoreBudget budget(3);
  CoreBudget::Ticket first = budget.line_up(10);
  std::optional<CoreBudget::Grant> wide(budget.take(first, 5));
  CHECK(wide->cores() == 3);  // at most what is free
  CHECK_FALSE(first.in_line());
  std::mutex mutex;
  std::vector<std::uint64_t> order;
  std::vector<int> granted;
  std::vector<std::thread> waiting;
  // Lined up in the order 7, 3, 5 (and a 4 that will leave): granted 3, 5, 7 once cores are free.
  // Each wants every core, so each grant ends before the next begins and the order is recorded
  // as granted.
  CoreBudget::Ticket leaves = budget.line_up(4);
  for (const std::uint64_t priority : {7, 3, 5}) {
    waiting.emplace_back([&, priority, ticket = std::make_shared<CoreBudget::Ticket>(budget.line_up(priority))] {
      const CoreBudget::Grant g = budget.take(*ticket, 3);
      std::lock_guard<std::mutex> lock(mutex);
      order.push_back(priority);
      granted.push_back(g.cores());
      std::this_thread::sleep_for(20ms);
    });
  }
  wide.reset();
  std::this_thread::sleep_for(100ms);
  {
    std::lock_guard<std::mutex> lock(mutex);
    CHECK(order == std::vector<std::uint64_t>{3});  // 4 holds its place: 5 and 7 wait behind it
  }
  leaves.cancel();
  for (std::thread& t : waiting) t.join();
  CHECK(order == std::vector<std::uint64_t>{3, 5, 7});
  CHECK(granted == std::vector<int>{3, 3, 3});
  CHECK(budget.peak() == 3);
  CHECK_THROWS(CoreBudget(0));
}

TEST_CASE("class builds: a lab byte-identical to another student's is compiled once, a changed byte compiles again",
          "[grader][store][class]") {
  ClassOfLabs c("store-class", 2, 1,
                {{"ana", "// the stub\n"}, {"ben", "// the stub\n"}, {"cho", "// the stub.\n"}, {"dan", "// the stub\n"}});
  const ClassOutcome out = c.grade(1);
  REQUIRE(out.schedule.size() == 4);
  // lab01: ana, ben and dan hold the same bytes, cho one more: two compiles. lab03: four.
  CHECK(c.compiles.count == 6);
  CHECK(out.cost.compiles == 6);
  CHECK(out.cost.shared == 2);
  std::string compiled_by;
  for (const ScheduleRecord& r : out.schedule) {
    INFO(r.submission);
    const LabBuild& b = lab_of(r, "lab01");
    if (r.submission == "cho") {
      CHECK(b.compiled);  // one byte differs
      CHECK(b.shared_from.empty());
    } else if (b.compiled) {
      CHECK(compiled_by.empty());  // only one of the three compiled
      compiled_by = r.submission;
    }
    CHECK(lab_of(r, "lab03").compiled);  // every student's own bytes
  }
  REQUIRE_FALSE(compiled_by.empty());
  for (const ScheduleRecord& r : out.schedule) {
    if (r.submission != "cho" && r.submission != compiled_by) {
      CHECK(lab_of(r, "lab01").shared_from == compiled_by);
      CHECK(lab_of(r, "lab01").core_s == 0);
      CHECK(r.build_core_s == Approx(0.5));  // its lab03 only
    }
  }
  // Every student graded, with the executable its lab's bytes compile to.
  for (const SubmissionResult& s : out.results) {
    INFO(s.name);
    CHECK(s.could_not_grade.empty());
    CHECK(s.score() == Approx(s.max_score()));
  }
}

TEST_CASE("class schedule: the cores are never overcommitted, the first students' labs go first and with every "
          "core they can use, and grading starts before the last build ends",
          "[grader][store][class]") {
  std::map<std::string, std::string> students;
  for (int i = 0; i < 8; ++i) students[fmt::format("s{}", i)] = fmt::format("// student {}\n", i);
  ClassOfLabs c("store-schedule", 3, 2, students);
  c.compiles.seconds = 0.3 * kBuildStretch;
  const ClassOutcome out = c.grade(1);
  REQUIRE(out.schedule.size() == 8);
  for (const ScheduleRecord& r : out.schedule) {
    UNSCOPED_INFO(r.submission << " built " << r.build_start_s << "-" << r.build_end_s << " (lab01 "
                               << lab_of(r, "lab01").start_s << "-" << lab_of(r, "lab01").end_s << " on "
                               << lab_of(r, "lab01").cores << ", lab03 " << lab_of(r, "lab03").start_s << "-"
                               << lab_of(r, "lab03").end_s << ") graded " << r.gpu_start_s << "-" << r.gpu_end_s);
  }
  CHECK(c.compiles.count == 16);
  CHECK(out.cost.shared == 0);

  // At no instant do the compiles running hold more than the 3 cores.
  std::vector<std::pair<std::chrono::steady_clock::time_point, int>> events;
  for (const FakeCompiles::Interval& i : c.compiles.intervals) {
    events.push_back({i.start, i.cores});
    events.push_back({i.end, -i.cores});
  }
  std::sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second < b.second;  // an end before a start at the same instant
  });
  int held = 0, most = 0;
  for (const auto& [t, d] : events) most = std::max(most, held += d);
  CHECK(most <= 3);
  CHECK(most >= 2);  // the budget was used, not left idle

  // In the students' order (the schedule is sorted by name, s0 .. s7): each student's compiles
  // start no later than the next student's.
  for (std::size_t i = 1; i < out.schedule.size(); ++i) {
    INFO(out.schedule[i - 1].submission << " then " << out.schedule[i].submission);
    CHECK(out.schedule[i - 1].build_start_s <= out.schedule[i].build_start_s + 0.02);
  }
  // The first student's lab01 had the two cores it can use; its build ended first.
  CHECK(lab_of(out.schedule[0], "lab01").cores == 2);
  for (const ScheduleRecord& r : out.schedule) CHECK(out.schedule[0].build_end_s <= r.build_end_s + 0.02);
  // Pipelined: the first student was on the GPU before the last one was built, once one of its
  // labs was.
  const double first_lab_built = std::min(lab_of(out.schedule[0], "lab01").end_s, lab_of(out.schedule[0], "lab03").end_s);
  CHECK(out.cost.first_on_gpu_s >= first_lab_built);
  CHECK(out.cost.first_on_gpu_s < out.schedule.back().build_end_s);
  // Measured for the bound: 16 compiles of 0.5 CPU seconds each, and the GPU's busy time.
  double core_s = 0;
  for (const ScheduleRecord& r : out.schedule) core_s += r.build_core_s;
  CHECK(core_s == Approx(8.0));
  REQUIRE(out.cost.gpu_busy_s.size() == 1);
  CHECK(out.cost.gpu_busy_s[0] > 0);
  CHECK(out.cost.gpu_busy_s[0] <= out.cost.wall_s);
}

TEST_CASE("class schedule: a student's quick lab is checked on the GPU while its slow lab still compiles, and "
          "its points are those of a student built whole",
          "[grader][store][class]") {
  ClassOfLabs c("store-as-built", 4, 1, {{"s0", "// s0\n"}, {"s1", "// s1\n"}});
  c.compiles.seconds = 0.05 * kBuildStretch;
  c.compiles.seconds_of["lab03"] = 1.5 * kBuildStretch;
  const ClassOutcome out = c.grade(1, 2);  // two students at once on the GPU
  REQUIRE(out.schedule.size() == 2);
  for (const ScheduleRecord& r : out.schedule) {
    INFO(r.submission << ": lab01 built " << lab_of(r, "lab01").end_s << ", lab03 built " << lab_of(r, "lab03").end_s
                      << ", first check " << r.gpu_start_s << ", waited for builds " << r.phases.waited_for_builds_s);
    REQUIRE(r.gpu >= 0);
    CHECK(r.gpu_start_s >= lab_of(r, "lab01").end_s);  // checked once built, not before
    CHECK(r.gpu_start_s < lab_of(r, "lab03").end_s);   // ... and not only once its slowest lab was
    CHECK(r.gpu_end_s >= lab_of(r, "lab03").end_s);
    CHECK(r.phases.waited_for_builds_s > 0.5);         // it waited for lab03 holding no turn
  }
  CHECK(out.cost.first_on_gpu_s < 1.0 * kBuildStretch);
  for (const SubmissionResult& s : out.results) {
    INFO(s.name);
    REQUIRE(s.labs.size() == 2);
    CHECK(s.labs[0].lab.id() == "lab01");  // in the run's lab order, whatever order they were built in
    CHECK(s.labs[1].lab.id() == "lab03");
    CHECK(s.could_not_grade.empty());
    INFO(s.labs[0].headline() << "\n" << s.labs[1].headline());
    CHECK(s.score() == Approx(s.max_score()));
  }
}

TEST_CASE("grader harness: built once, then named by --harness, and a folder that holds none, or one built for "
          "another GPU, is a usage error before anything is graded",
          "[grader][store][cli]") {
  TempDir tmp("store-harness");
  (void)small_case_set(tmp.path() / "cases");
  write_test_file(tmp.path() / "student" / "01-naive" / "fake.args", "--fake-time-ms 1\n");
  const std::string log = (tmp.path() / "harness-builds.log").string();
  const ScopedChildEnvironment logged({{"CONVLAB_FAKE_HARNESS_LOG", log}});
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), CONVLAB_GRADER_TEST_MODE_EXE);
    return run_process(args, 120s);
  };
  const fs::path harness = tmp.path() / "harness";
  const ProcessResult built = run({"harness", "--out", harness.string(), "--quiet"});
  INFO(built.output);
  REQUIRE(built.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(built.output);  // structured, for scripts
  CHECK(j.at("harness") == harness.string());
  CHECK(j.at("cuda_architectures") == "90");  // the test mode's fake GPU
  CHECK(read(log) == harness.string() + "\n");

  auto grade = [&](const fs::path& with) {
    return run({"grade", "--submission", (tmp.path() / "student").string(), "--labs", "01", "--datasets",
                (tmp.path() / "cases").string(), "--no-sandbox", "--quiet", "--harness", with.string()});
  };
  const ProcessResult graded = grade(harness);
  INFO(graded.output);
  CHECK(graded.exit_code == 0);
  CHECK(read(log) == harness.string() + "\n");  // linked, not built again

  fs::create_directories(tmp.path() / "empty");
  const ProcessResult none = grade(tmp.path() / "empty");
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.output, Catch::Contains("no harness built by `grader harness` there"));
  const ProcessResult other = run({"harness", "--out", (tmp.path() / "sm80").string(), "--cuda-arch", "80", "--quiet"});
  REQUIRE(other.exit_code == 0);
  const ProcessResult wrong = grade(tmp.path() / "sm80");
  CHECK(wrong.exit_code == 2);
  CHECK_THAT(wrong.output, Catch::Contains("was built for CUDA architectures 80"));
  CHECK(run({"harness", "--out", (tmp.path() / "x").string(), "--cuda-arch", "sm_90"}).exit_code == 2);
}
