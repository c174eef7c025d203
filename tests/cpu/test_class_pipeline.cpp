// A class graded as a pipeline (engine/class_pipeline.hpp) on two fake GPUs with the fake lab
// runner: the reports do not depend on the order in which students finish, no two students'
// runs ever share a GPU and every child sees only its own, the reference is timed once per GPU,
// and a build that throws, a crash or a hang costs only its student. Plus the pieces of a
// Slurm run that need no Slurm: --gpus, the per-student report read back, the scripts.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "engine/class_pipeline.hpp"
#include "engine/gpu_slots.hpp"
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

// A fake lab wrapped in a script that logs each run: "DEVICE WHO START_NS END_NS LIST".
fs::path logged_lab(const fs::path& dir, const std::string& who, const std::string& args, const fs::path& log) {
  fs::create_directories(dir);
  const fs::path script = dir / who;
  std::ofstream(script) << fmt::format(
      "#!/bin/sh\n"
      "start=$(date +%s%N)\n"
      "sleep 0.02\n"
      "'{}' \"$@\" {}\n"
      "rc=$?\n"
      "case \" $* \" in *\" --list \"*) list=list ;; *) list=run ;; esac\n"
      "echo \"${{CUDA_VISIBLE_DEVICES:-none}} {} $start $(date +%s%N) $list\" >> '{}'\n"
      "exit $rc\n",
      CONVLAB_FAKE_LAB, args, who, log.string());
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

  ClassPlan plan(std::vector<GpuSlot> gpus, int build_workers, std::function<void(const std::string&)> before_build = {}) {
    ClassPlan p;
    for (const auto& [name, _] : args) {
      fs::create_directories(tmp.path() / "class" / name);
      p.submissions.push_back({name, tmp.path() / "class" / name});
    }
    std::reverse(p.submissions.begin(), p.submissions.end());  // the grader sorts; the order given must not matter
    p.labs = {lab01()};
    p.gpus = std::move(gpus);
    p.build_workers = build_workers;
    p.work_dir = tmp.path() / "work";
    p.make_build = [this, before_build](int) -> SubmissionBuild {
      return [this, before_build](const ClassSubmission& s, const fs::path& exe_dir) {
        if (before_build) before_build(s.name);
        return std::vector<LabExecutable>{executable(logged_lab(exe_dir, s.name, args.at(s.name), log))};
      };
    };
    p.make_environment = [this](const GpuSlot& gpu) {
      const fs::path reference = logged_lab(tmp.path() / fmt::format("ref-{}", gpu.index), "reference",
                                            "--fake-time-ms 1", log);
      return make_env(cases, tmp.path() / fmt::format("gpu-{}", gpu.index), reference);
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

TEST_CASE("class pipeline: a GPU grades one student at a time, and each child sees only its GPU", "[grader][class]") {
  std::map<std::string, std::string> args;
  for (int i = 0; i < 8; ++i) args[fmt::format("s{}", i)] = "--fake-time-ms 1";
  FakeClass c("class-exclusive", args);
  const ClassOutcome out = grade_class(c.plan(kTwoFakeGpus, 4));

  // From the pipeline's time stamps: per GPU, the students' intervals do not overlap.
  std::map<int, std::vector<const ScheduleRecord*>> by_gpu;
  for (const ScheduleRecord& r : out.schedule) {
    REQUIRE(r.gpu >= 0);
    CHECK(r.build_end_s <= r.gpu_start_s);  // built before it was graded
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
  // From the children themselves: each saw one device, the one its student was graded on,
  // and no two children on one device ran at the same time.
  const std::vector<ChildRun> runs = read_log(c.log);
  std::map<std::string, std::string> device_of;  // student -> the device its children saw
  for (const ScheduleRecord& r : out.schedule) device_of[r.submission] = kTwoFakeGpus.at(static_cast<std::size_t>(r.gpu)).visible_id;
  std::map<std::string, std::vector<ChildRun>> on_device;
  std::map<std::string, int> reference_timings;
  for (const ChildRun& r : runs) {
    CHECK((r.device == "7" || r.device == "3"));
    if (r.who == "reference") {
      if (r.kind == "run") ++reference_timings[r.device];
    } else {
      CHECK(r.device == device_of.at(r.who));
    }
    on_device[r.device].push_back(r);
  }
  for (auto& [device, list] : on_device) {
    std::sort(list.begin(), list.end(), [](const ChildRun& a, const ChildRun& b) { return a.start < b.start; });
    for (std::size_t i = 1; i < list.size(); ++i) {
      INFO("device " << device << ": " << list[i - 1].who << " then " << list[i].who);
      CHECK(list[i - 1].end <= list[i].start);
    }
  }
  // The reference solution was timed once on each GPU, not once per student.
  CHECK(reference_timings == std::map<std::string, int>{{"3", 1}, {"7", 1}});
}

TEST_CASE("class pipeline: a build that throws, a crash and a hang cost only their student", "[grader][class]") {
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
  CHECK(thrown.labs.empty());
  REQUIRE(thrown.could_not_grade.size() == 1);
  CHECK_THAT(thrown.could_not_grade[0], Catch::Contains("the build folder vanished"));
  CHECK(out.schedule[1].gpu == -1);  // it never took a GPU

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

TEST_CASE("grader slurm: the scripts ask one GPU per task, throttle the array and quote every name", "[grader][class]") {
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
  const std::string merge = merge_script(job);
  CHECK_THAT(merge, Catch::Contains("merge '/scratch/out/results' --roster '/scratch/out/roster.json'"));
  // The quoted name is one word to the shell, whatever it holds.
  CHECK(shell_quote("it's") == "'it'\\''s'");
}
