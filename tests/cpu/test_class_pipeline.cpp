// A class graded as a pipeline (schedule/class_pipeline.hpp) on two fake GPUs with the fake lab
// runner: the reports do not depend on the order in which students finish, students on one GPU
// share it for their checks but a timed run has it alone, every child sees only its own GPU,
// the reference is timed once per GPU, and a build that throws, a crash or a hang costs only
// its student. The GPU's turns on their own (session/gpu_turns.hpp). Plus the pieces of a Slurm
// run that need no Slurm: --gpus, the per-student report read back, the scripts.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "schedule/class_pipeline.hpp"
#include "schedule/gpu_selection.hpp"
#include "session/gpu_turns.hpp"
#include "grader_test_support.hpp"
#include "reports/batch_report.hpp"
#include "reports/grade_report.hpp"
#include "reports/slurm_files.hpp"
#include "reports/student_file.hpp"

using namespace convlab;
using namespace convlab::grader;
using namespace convlab::grader::testing;
namespace fs = std::filesystem;

namespace {

// A fake lab wrapped in a script that logs each run: "DEVICE WHO START_NS END_NS KIND", KIND
// one of list, check (--no-time: a correctness run) and timed. Checks last `check_s` at least.
fs::path logged_lab(const fs::path& dir, const std::string& who, const std::string& args, const fs::path& log,
                    const std::string& check_s = "0.02") {
  fs::create_directories(dir);
  const fs::path script = dir / who;
  std::ofstream(script) << fmt::format(
      "#!/bin/sh\n"
      "start=$(date +%s%N)\n"
      "case \" $* \" in *\" --list \"*) kind=list ;; *\" --no-time \"*) kind=check ;; *) kind=timed ;; esac\n"
      "if [ $kind = check ]; then sleep {}; else sleep 0.02; fi\n"
      "'{}' \"$@\" {}\n"
      "rc=$?\n"
      "echo \"${{CUDA_VISIBLE_DEVICES:-none}} {} $start $(date +%s%N) $kind\" >> '{}'\n"
      "exit $rc\n",
      check_s, CONVLAB_FAKE_LAB, args, who, log.string());
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

struct ChildRun {
  std::string device, who, kind;
  long long start = 0, end = 0;
};

std::vector<ChildRun> read_log(const fs::path& log) {
  std::vector<ChildRun> out;
  std::ifstream in(log);
  ChildRun r;
  while (in >> r.device >> r.who >> r.start >> r.end >> r.kind) out.push_back(r);
  return out;
}

// A small class graded on fake GPUs: one student per entry of `args` (name -> fake lab args).
struct FakeClass {
  TempDir tmp;
  CaseSet cases;
  fs::path log;
  std::map<std::string, std::string> args;
  std::vector<std::string> finish_order;
  std::mutex mutex;

  FakeClass(const std::string& name, std::map<std::string, std::string> a)
      : tmp(name), cases(small_case_set(tmp.path() / "cases")), log(tmp.path() / "runs.log"), args(std::move(a)) {}

  std::string check_s = "0.02";  ///< how long each fake correctness run lasts

  ClassPlan plan(std::vector<GpuSlot> gpus, int build_threads, std::function<void(const std::string&)> before_build = {},
                 int students_per_gpu = 1) {
    ClassPlan p;
    for (const auto& [name, _] : args) {
      fs::create_directories(tmp.path() / "class" / name);
      p.submissions.push_back({name, tmp.path() / "class" / name, ""});
    }
    std::reverse(p.submissions.begin(), p.submissions.end());  // the grader sorts; the order given must not matter
    p.labs = {lab01()};
    p.gpus = std::move(gpus);
    p.build_threads = build_threads;
    p.students_per_gpu = students_per_gpu;
    p.work_dir = tmp.path() / "work";
    p.stage = [](const ClassSubmission&) { return std::vector<StagedLab>{StagedLab{lab01(), {}, std::nullopt}}; };
    p.build = [this, before_build, start = p.start](const ClassSubmission& s, const StagedLab& lab,
                                                    const fs::path& exe_dir, CoreBudget::Ticket) {
      const auto since = [start] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
      LabBuild b;
      b.lab = lab.lab.id();
      b.start_s = since();
      if (before_build) before_build(s.name);
      b.exe = executable(logged_lab(exe_dir / b.lab, s.name, args.at(s.name), log, check_s));
      b.end_s = since();
      return b;
    };
    // The GPUs keep one rule for their turns, as grader batch's do (schedule/grade_session.cpp).
    p.make_environment = [this, host = std::make_shared<HostTurns>()](const GpuSlot& gpu) {
      const fs::path reference = logged_lab(tmp.path() / fmt::format("ref-{}", gpu.index), "reference",
                                            "--fake-time-ms 1", log);
      return make_env(cases, tmp.path() / fmt::format("gpu-{}", gpu.index), reference, test_settings(), test_rubric(),
                      host);
    };
    p.on_progress = [this](const ClassProgress& pr) { finish_order.push_back(pr.submission); };
    return p;
  }
};

const std::vector<GpuSlot> kTwoFakeGpus = {{0, "7"}, {1, "3"}};

}  // namespace

TEST_CASE("class pipeline: the reports are the same whatever order the students finish in", "[grader][class]") {
  const std::map<std::string, std::string> args = {{"ana", "--fake-time-ms 1"},
                                                   {"ben", "--fake wrong --fake-case k3_7x9"},
                                                   {"cho", "--fake-time-ms 3"},
                                                   {"dev", "--fake crash --fake-case k5_16x16"},
                                                   {"eli", "--fake unwritten"},
                                                   {"fay", "--fake-time-ms 1.5"}};
  FakeClass serial("class-serial", args);
  const ClassOutcome one = grade_class(serial.plan({{0, "0"}}, 1));
  // Builds that take longest for the first names: they finish last.
  FakeClass shuffled("class-shuffled", args);
  const std::map<std::string, int> delay_ms = {{"ana", 400}, {"ben", 320}, {"cho", 240}, {"dev", 160}, {"eli", 80}, {"fay", 0}};
  const ClassOutcome many = grade_class(shuffled.plan(kTwoFakeGpus, 3, [&](const std::string& name) {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms.at(name)));
  }));

  std::vector<std::string> sorted_names;
  for (const auto& [name, _] : args) sorted_names.push_back(name);
  REQUIRE(serial.finish_order == sorted_names);    // one worker each: in name order
  REQUIRE(shuffled.finish_order != sorted_names);  // the test really shuffled them
  REQUIRE(many.results.size() == args.size());
  for (std::size_t i = 0; i < sorted_names.size(); ++i) {
    CHECK(many.results[i].name == sorted_names[i]);
    CHECK(many.schedule[i].submission == sorted_names[i]);
  }
  // Points differ from student to student, so a mix-up would show.
  CHECK(many.results[0].score() > many.results[1].score());
  // The CSV and the students' JSON are byte for byte the same (the paths are each class's own).
  auto csv = [](const ClassOutcome& o) { return batch_csv(o.results, {lab01()}); };
  auto students = [](const ClassOutcome& o, const fs::path& root) {
    std::string text = batch_json(o.results, RunInfo{})["students"].dump(1);
    for (std::size_t at; (at = text.find(root.string())) != std::string::npos;) text.replace(at, root.string().size(), "ROOT");
    return text;
  };
  CHECK(csv(many) == csv(one));
  CHECK(students(many, shuffled.tmp.path()) == students(one, serial.tmp.path()));
}

namespace {

// Per device, the children's runs sorted by start.
std::map<std::string, std::vector<ChildRun>> runs_by_device(const std::vector<ChildRun>& runs) {
  std::map<std::string, std::vector<ChildRun>> on_device;
  for (const ChildRun& r : runs) on_device[r.device].push_back(r);
  for (auto& [device, list] : on_device) {
    std::sort(list.begin(), list.end(), [](const ChildRun& a, const ChildRun& b) { return a.start < b.start; });
  }
  return on_device;
}

bool overlap(const ChildRun& a, const ChildRun& b) { return a.start < b.end && b.start < a.end; }

// Each child saw one device, the one its student was graded on; the reference solution was timed
// once on each GPU ahead of the students, not once per student, and once more in the turn of each
// student timed again (performance_pass.cpp: a flagged or slow variant is retimed, and the
// reference with it, under the same load), which a busy test machine can cause.
void check_devices(const ClassOutcome& out, const std::vector<ChildRun>& runs) {
  std::map<std::string, std::string> device_of;  // student -> the device its children saw
  for (const ScheduleRecord& r : out.schedule) device_of[r.submission] = kTwoFakeGpus.at(static_cast<std::size_t>(r.gpu)).visible_id;
  std::map<std::string, int> reference_timings, timed_again;          // per device
  std::map<std::pair<std::string, std::string>, int> student_timings;  // (device, student) -> timed runs
  for (const ChildRun& r : runs) {
    CHECK((r.device == "7" || r.device == "3"));
    if (r.who == "reference") {
      if (r.kind == "timed") ++reference_timings[r.device];
    } else {
      CHECK(r.device == device_of.at(r.who));
      if (r.kind == "timed") ++student_timings[{r.device, r.who}];
    }
  }
  for (const auto& [at, n] : student_timings) {
    INFO("device " << at.first << ": " << at.second << " timed " << n << " times");
    CHECK(n <= 2);
    if (n == 2) ++timed_again[at.first];
  }
  for (const char* device : {"3", "7"}) {
    INFO("device " << device);
    CHECK(reference_timings[device] == 1 + timed_again[device]);
  }
  // ... each in a turn alone; the first before any student's timed run on it: timed while the
  // first builds ran, it takes no student's turn alone (a student's checks may come before it).
  for (const auto& [device, list] : runs_by_device(runs)) {
    bool first = true;
    for (const ChildRun& ref : list) {
      if (ref.who != "reference" || ref.kind != "timed") continue;
      for (const ChildRun& r : list) {
        if (r.who == "reference") continue;
        INFO("device " << device << ": " << r.who << "'s " << r.kind << " run beside the reference's timing");
        CHECK_FALSE(overlap(r, ref));
        if (first && r.kind == "timed") CHECK(r.start >= ref.end);
      }
      first = false;
    }
  }
}

}  // namespace

TEST_CASE("class pipeline: one student per GPU grades them one after another, each child on its GPU", "[grader][class]") {
  std::map<std::string, std::string> args;
  for (int i = 0; i < 8; ++i) args[fmt::format("s{}", i)] = "--fake-time-ms 1";
  FakeClass c("class-exclusive", args);
  const ClassOutcome out = grade_class(c.plan(kTwoFakeGpus, 4));

  // From the pipeline's time stamps: per GPU, the students' intervals do not overlap.
  std::map<int, std::vector<const ScheduleRecord*>> by_gpu;
  for (const ScheduleRecord& r : out.schedule) {
    REQUIRE(r.gpu >= 0);
    CHECK(r.gpu_worker == 0);
    CHECK(r.build_end_s <= r.gpu_start_s);  // one lab: built before it was checked
    CHECK(r.gpu_start_s < r.gpu_end_s);
    by_gpu[r.gpu].push_back(&r);
  }
  REQUIRE(by_gpu.size() == 2);  // both GPUs had work
  for (auto& [gpu, records] : by_gpu) {
    std::sort(records.begin(), records.end(),
              [](const ScheduleRecord* a, const ScheduleRecord* b) { return a->gpu_start_s < b->gpu_start_s; });
    for (std::size_t i = 1; i < records.size(); ++i) {
      INFO("GPU " << gpu << ": " << records[i - 1]->submission << " then " << records[i]->submission);
      CHECK(records[i - 1]->gpu_end_s <= records[i]->gpu_start_s);
    }
  }
  // From the children themselves: no two on one device ran at the same time.
  const std::vector<ChildRun> runs = read_log(c.log);
  check_devices(out, runs);
  for (auto& [device, list] : runs_by_device(runs)) {
    for (std::size_t i = 1; i < list.size(); ++i) {
      INFO("device " << device << ": " << list[i - 1].who << " then " << list[i].who);
      CHECK(list[i - 1].end <= list[i].start);
    }
  }
}

TEST_CASE("class pipeline: students on one GPU share it for their checks, and a timed run has it alone",
          "[grader][class]") {
  std::map<std::string, std::string> args;
  for (int i = 0; i < 9; ++i) args[fmt::format("s{}", i)] = "--fake-time-ms 1";
  FakeClass c("class-turns", args);
  c.check_s = "0.3";  // long enough that students built close together check at the same time
  // Built 100 ms apart, so that one student is ready to be timed while another still checks.
  const ClassOutcome out = grade_class(c.plan(kTwoFakeGpus, 4, [](const std::string& name) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100 * (name.back() - '0') % 300));
  }, 3));

  std::set<int> workers;
  for (const ScheduleRecord& r : out.schedule) {
    REQUIRE(r.gpu >= 0);
    REQUIRE(r.gpu_worker >= 0);
    CHECK(r.gpu_worker < 3);
    workers.insert(r.gpu * 3 + r.gpu_worker);
    CHECK(r.phases.checks_s >= 0.3);  // its lab's correctness run, in its shared turn
    CHECK(r.phases.timing_s > 0);     // correct: timed, in its turn alone
    // Its one lab's share of the turn alone, named, and no more than the turn.
    REQUIRE(r.phases.timing_by_lab.size() == 1);
    CHECK(r.phases.timing_by_lab[0].first == "lab01");
    CHECK(r.phases.timing_by_lab[0].second > 0);
    CHECK(r.phases.timing_by_lab[0].second <= r.phases.timing_s);
  }
  CHECK(workers.size() > 2);  // more than one worker per GPU had students
  for (const SubmissionResult& r : out.results) CHECK(r.score() == Approx(r.max_score()));

  // The GPUs' timelines keep the host's rule (session/gpu_turns.hpp): a turn alone overlaps no
  // shared turn on any GPU, nor another turn alone on its own GPU; and they add up to the busy time.
  REQUIRE(out.cost.gpu_turns.size() == 2);
  for (std::size_t g = 0; g < 2; ++g) {
    std::vector<std::pair<double, double>> spans;
    for (const TurnSpan& t : out.cost.gpu_turns[g]) {
      CHECK(t.start_s <= t.end_s);
      spans.emplace_back(t.start_s, t.end_s);
      if (!t.alone) continue;
      for (std::size_t h = 0; h < 2; ++h) {
        for (const TurnSpan& u : out.cost.gpu_turns[h]) {
          if (&u == &t || (u.alone && h != g)) continue;  // turns alone on two GPUs may run together
          INFO("GPU " << g << " alone " << t.start_s << "-" << t.end_s << ", GPU " << h << (u.alone ? " alone " : " shared ")
                      << u.start_s << "-" << u.end_s);
          CHECK((u.end_s <= t.start_s || u.start_s >= t.end_s));
        }
      }
    }
    std::sort(spans.begin(), spans.end());
    double covered = 0, edge = 0;  // the spans' union
    for (const auto& [a, b] : spans) {
      covered += std::max(0.0, b - std::max(a, edge));
      edge = std::max(edge, b);
    }
    CHECK(covered == Approx(out.cost.gpu_busy_s[g]).margin(0.01));
  }

  const std::vector<ChildRun> runs = read_log(c.log);
  check_devices(out, runs);
  int shared_checks = 0;
  for (auto& [device, list] : runs_by_device(runs)) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      for (std::size_t j = i + 1; j < list.size() && list[j].start < list[i].end; ++j) {
        INFO("device " << device << ": " << list[i].who << " " << list[i].kind << " and " << list[j].who << " "
                       << list[j].kind << " at the same time");
        CHECK(list[i].kind != "timed");  // a timed run overlaps nothing on its device
        CHECK(list[j].kind != "timed");
        if (overlap(list[i], list[j]) && list[i].kind == "check" && list[j].kind == "check" &&
            list[i].who != list[j].who) {
          ++shared_checks;
        }
      }
    }
  }
  CHECK(shared_checks > 0);  // the GPU really was shared
}

TEST_CASE("gpu turns: shared turns run together, a turn alone waits for them and holds back new ones", "[grader][class]") {
  using namespace std::chrono_literals;
  GpuTurns turns;
  std::optional<GpuTurns::Turn> first(turns.shared());
  // A second shared turn starts while the first is held.
  auto second = std::async(std::launch::async, [&] { return turns.shared().waited_s(); });
  REQUIRE(second.wait_for(5s) == std::future_status::ready);

  auto alone = std::async(std::launch::async, [&] {
    GpuTurns::Turn t = turns.alone();
    std::this_thread::sleep_for(50ms);
    return t.waited_s();
  });
  // The turn alone waits for the shared one still held ...
  CHECK(alone.wait_for(200ms) == std::future_status::timeout);
  // ... and while it waits, a new shared turn does not start (or timing would wait forever).
  auto late = std::async(std::launch::async, [&] { return turns.shared().waited_s(); });
  CHECK(late.wait_for(200ms) == std::future_status::timeout);

  first.reset();
  REQUIRE(alone.wait_for(5s) == std::future_status::ready);
  CHECK(alone.get() >= 0.1);  // it waited for the first shared turn
  REQUIRE(late.wait_for(5s) == std::future_status::ready);
  CHECK(late.get() >= 0.05);  // it started after the turn alone, which held the GPU 50 ms
  // Two turns alone never overlap.
  std::atomic<int> inside{0};
  std::atomic<bool> together{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      const GpuTurns::Turn t = turns.alone();
      if (++inside > 1) together = true;
      std::this_thread::sleep_for(10ms);
      --inside;
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK_FALSE(together);
}

TEST_CASE("gpu turns: a turn alone waits for the shared turns of the host's other GPUs, and holds back new ones there, "
          "while turns alone on two GPUs run together", "[grader][class]") {
  using namespace std::chrono_literals;
  auto host = std::make_shared<HostTurns>();
  GpuTurns gpu0(host), gpu1(host);
  std::optional<GpuTurns::Turn> checking_on_1(gpu1.shared());
  auto timed_on_0 = std::async(std::launch::async, [&] { return gpu0.alone().waited_s(); });
  CHECK(timed_on_0.wait_for(200ms) == std::future_status::timeout);  // GPU 1's check is still running
  auto late_check_on_1 = std::async(std::launch::async, [&] { return gpu1.shared().waited_s(); });
  CHECK(late_check_on_1.wait_for(200ms) == std::future_status::timeout);  // the waiting timer goes first
  checking_on_1.reset();
  REQUIRE(timed_on_0.wait_for(5s) == std::future_status::ready);
  CHECK(timed_on_0.get() >= 0.3);
  REQUIRE(late_check_on_1.wait_for(5s) == std::future_status::ready);

  // Turns alone on the two GPUs overlap; a shared turn on either waits for both to end.
  std::optional<GpuTurns::Turn> alone_0(gpu0.alone());
  auto alone_1 = std::async(std::launch::async, [&] { return gpu1.alone().waited_s(); });
  REQUIRE(alone_1.wait_for(5s) == std::future_status::ready);
  CHECK(alone_1.get() < 0.2);
  auto check_on_1 = std::async(std::launch::async, [&] { return gpu1.shared().waited_s(); });
  CHECK(check_on_1.wait_for(200ms) == std::future_status::timeout);  // GPU 0 is timing
  alone_0.reset();
  REQUIRE(check_on_1.wait_for(5s) == std::future_status::ready);

  // GPUs of different hosts keep no rule together.
  GpuTurns elsewhere;
  std::optional<GpuTurns::Turn> checking_elsewhere(elsewhere.shared());
  auto timed_here = std::async(std::launch::async, [&] { return gpu0.alone().waited_s(); });
  CHECK(timed_here.wait_for(5s) == std::future_status::ready);
}

TEST_CASE("gpu turns: busy time is the time some turn was held, overlaps counted once, waits and idle time not",
          "[grader][class]") {
  using namespace std::chrono_literals;
  GpuTurns turns;
  CHECK(turns.busy_s() == 0);
  {
    // Two shared turns overlapping for 150 ms, the second 100 ms after the first.
    std::optional<GpuTurns::Turn> a(turns.shared());
    std::this_thread::sleep_for(100ms);
    std::optional<GpuTurns::Turn> b(turns.shared());
    std::this_thread::sleep_for(150ms);
    a.reset();
    b.reset();
  }
  const double after_shared = turns.busy_s();
  CHECK(after_shared >= 0.24);
  CHECK(after_shared < 0.24 + 0.2);  // once, not the 0.4 s the two turns held together
  std::this_thread::sleep_for(200ms);  // idle: not busy
  CHECK(turns.busy_s() == Approx(after_shared));
  {
    const GpuTurns::Turn t = turns.alone();
    std::this_thread::sleep_for(100ms);
    CHECK(turns.busy_s() >= after_shared + 0.09);  // a turn still held counts up to now
  }
  const double total = turns.busy_s();
  CHECK(total >= after_shared + 0.09);
  CHECK(total < after_shared + 0.1 + 0.2);
}

TEST_CASE("class pipeline: a build that throws costs only its lab, a crash and a hang only their student", "[grader][class]") {
  FakeClass c("class-isolation", {{"a-good", "--fake-time-ms 1"},
                                  {"b-build-throws", "--fake-time-ms 1"},
                                  {"c-crashes", "--fake crash"},
                                  {"d-hangs", "--fake hang --fake-case k3_7x9"},
                                  {"e-good", "--fake-time-ms 1"}});
  const ClassOutcome out = grade_class(c.plan(kTwoFakeGpus, 2, [](const std::string& name) {
    if (name == "b-build-throws") throw std::runtime_error("the build folder vanished");
  }));
  REQUIRE(out.results.size() == 5);
  const SubmissionResult& good = out.results[0];
  CHECK(good.name == "a-good");
  CHECK(good.could_not_grade.empty());
  CHECK(good.score() == Approx(good.max_score()));
  CHECK(out.results[4].score() == Approx(good.max_score()));

  const SubmissionResult& thrown = out.results[1];
  REQUIRE(thrown.labs.size() == 1);
  CHECK(thrown.labs[0].could_not_grade);
  CHECK_FALSE(thrown.labs[0].built);
  REQUIRE(thrown.could_not_grade.size() == 1);
  CHECK_THAT(thrown.could_not_grade[0], Catch::Contains("lab01: the grader could not build lab01: the build folder vanished"));
  CHECK(thrown.score() == 0);

  const SubmissionResult& crashed = out.results[2];
  CHECK(crashed.could_not_grade.empty());  // the lab's fault, not the grader's
  CHECK(crashed.score() < good.score());
  const SubmissionResult& hung = out.results[3];
  REQUIRE(hung.labs.size() == 1);
  CHECK(hung.labs[0].correctness.hung);
  CHECK(hung.score() < good.score());
}

TEST_CASE("class pipeline: --gpus names visible GPUs and children get the device the index means", "[grader][class]") {
  CHECK(select_gpus("", 2, std::nullopt).size() == 2);
  const auto masked = select_gpus("1", 3, std::string("4,6,7"));
  REQUIRE(masked.size() == 1);
  CHECK(masked[0].index == 1);
  CHECK(masked[0].visible_id == "6");  // the grader itself sees 4,6,7 as 0,1,2
  CHECK(select_gpus("0,2", 3, std::nullopt)[1].visible_id == "2");
  CHECK_THROWS_WITH(select_gpus("0,2", 2, std::nullopt), Catch::Contains("there is no GPU 2: the grader sees 2 GPUs"));
  CHECK_THROWS_WITH(select_gpus("0,x", 2, std::nullopt), Catch::Contains("'x' is not a GPU index"));
  CHECK_THROWS_WITH(select_gpus("1,1", 2, std::nullopt), Catch::Contains("GPU 1 is named twice"));
  CHECK_THROWS_WITH(select_gpus("-1", 2, std::nullopt), Catch::Contains("'-1' is not a GPU index"));
}

TEST_CASE("grader merge: a student's report read back gives the batch's CSV row", "[grader][class]") {
  FakeClass c("class-readback", {{"ana", "--fake wrong --fake-case k3_7x9"}, {"ben", "--fake-time-ms 2"}});
  const ClassOutcome out = grade_class(c.plan({{0, "0"}}, 1));
  std::vector<SubmissionResult> back;
  for (const SubmissionResult& s : out.results) {
    const fs::path file = c.tmp.path() / (s.name + ".json");
    std::ofstream(file) << grade_json(s, RunInfo{}).dump(2);
    back.push_back(read_student_file(file).result);
  }
  CHECK(batch_csv(back, {lab01()}) == batch_csv(out.results, {lab01()}));
  CHECK(batch_summary(back, {lab01()}, RunInfo{}) == batch_summary(out.results, {lab01()}, RunInfo{}));

  const fs::path broken = c.tmp.path() / "broken.json";
  std::ofstream(broken) << R"({"format": "convlab-grade", "version": 1, "run": {}, "submission": {"name": "x"}})";
  CHECK_THROWS_WITH(read_student_file(broken), Catch::Contains("broken.json: submission: no field \"kind\""));
}

TEST_CASE("grader slurm: the scripts ask one GPU per task, throttle the array, build the harness once and quote every "
          "name",
          "[grader][class]") {
  Roster roster;
  roster.class_dir = "/class";
  roster.submissions = {{"alice", "/class/alice"}, {"x'$(touch pwned)", "/class/x'$(touch pwned)"}};
  SlurmJob job;
  job.grader = "/opt/convlab/grader";
  job.out_dir = "/scratch/out";
  job.throttle = 5;
  job.partition = "gpu";
  job.labs = "01,03";
  const std::string array = array_script(roster, job);
  CHECK_THAT(array, Catch::Contains("#SBATCH --array=0-1%5\n"));
  CHECK_THAT(array, Catch::Contains("#SBATCH --gres=gpu:1\n"));
  CHECK_THAT(array, Catch::Contains("#SBATCH --partition=gpu\n"));
  CHECK_THAT(array, Catch::Contains("'/class/x'\\''$(touch pwned)'"));
  CHECK_THAT(array, Catch::Contains("grade --submission \"$folder\""));
  CHECK_THAT(array, Catch::Contains("--labs '01,03'"));
  // The tasks link the harness the harness job built once, on a GPU of the partition (or, with
  // --cuda-arch, on no GPU).
  CHECK_THAT(array, Catch::Contains("--harness '/scratch/out/harness'"));
  const std::string harness = harness_script(job);
  CHECK_THAT(harness, Catch::Contains("harness --out '/scratch/out/harness'"));
  CHECK_THAT(harness, Catch::Contains("#SBATCH --gres=gpu:1\n"));
  CHECK_THAT(harness, Catch::Contains("#SBATCH --partition=gpu\n"));
  job.cuda_arch = "90";
  CHECK_THAT(harness_script(job), !Catch::Contains("--gres") && Catch::Contains("--cuda-arch '90'"));
  const std::string merge = merge_script(job);
  CHECK_THAT(merge, Catch::Contains("merge '/scratch/out/results' --roster '/scratch/out/roster.json'"));
  // The quoted name is one word to the shell, whatever it holds.
  CHECK(shell_quote("it's") == "'it'\\''s'");
}
