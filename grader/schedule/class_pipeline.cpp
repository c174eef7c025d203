#include "schedule/class_pipeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "performance/performance_pass.hpp"
#include "system/child_environment.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

double ClassProgress::per_minute() const { return elapsed_s > 0 ? 60.0 * static_cast<double>(done) / elapsed_s : 0; }

std::optional<double> ClassProgress::eta_s() const {
  if (done == 0 || elapsed_s <= 0) return std::nullopt;
  return elapsed_s / static_cast<double>(done) * static_cast<double>(total - done);
}

std::string ClassProgress::line() const {
  std::string left = "done";
  if (done < total) {
    const double s = eta_s().value_or(0);
    left = s < 90 ? fmt::format("about {:.0f} s left", s) : fmt::format("about {:.0f} min left", std::ceil(s / 60));
  }
  return fmt::format("[{}/{}] {}: {:.1f}/{:g}{}{} | {:.1f} submissions/min, {}", done, total, submission, score,
                     max_score, could_not_grade ? " (could not grade everything)" : "",
                     gpu >= 0 ? fmt::format(" on GPU {}", gpu) : std::string(" (not built)"), per_minute(), left);
}

namespace {

using Clock = std::chrono::steady_clock;

// A submission between the stages.
struct Built {
  std::size_t index = 0;
  fs::path exe_dir;
  std::vector<LabExecutable> executables;
};

SubmissionResult failed_result(const ClassSubmission& s, const std::string& why) {
  SubmissionResult r;
  r.name = s.name;
  r.kind = "submission";
  r.path = fs::absolute(s.folder);
  r.could_not_grade.push_back(fmt::format("grading stopped with an error: {}", why));
  return r;
}

class Pipeline {
 public:
  explicit Pipeline(const ClassPlan& plan)
      : plan_(plan), results_(plan.submissions.size()), schedule_(plan.submissions.size()),
        students_(plan.submissions.size()) {}

  ClassOutcome run() {
    std::vector<std::thread> threads;
    const std::size_t jobs = plan_.submissions.size() * plan_.labs.size();
    const int builders = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(plan_.build_threads, jobs)));
    builders_left_ = builders;
    if (plan_.submissions.empty()) builders_left_ = 0;
    for (int w = 0; w < builders && !plan_.submissions.empty(); ++w) threads.emplace_back([this] { build_thread(); });
    for (const GpuSlot& gpu : plan_.gpus) gpus_.push_back(std::make_unique<SharedGpu>(gpu));
    for (const std::unique_ptr<SharedGpu>& gpu : gpus_) {
      for (int w = 0; w < plan_.students_per_gpu; ++w) {
        threads.emplace_back([this, g = gpu.get(), w] { gpu_worker(*g, w); });
      }
    }
    for (std::thread& t : threads) t.join();
    return outcome();
  }

 private:
  double now_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  // One student's builds, between being opened (its labs read) and handed to the GPUs.
  struct Student {
    bool opened = false;
    std::vector<StagedLab> staged;  ///< in the order to build them
    std::string error;              ///< its folder or a build threw: not graded
    std::size_t left = 0;           ///< labs not built yet
    std::vector<LabBuild> builds;   ///< in the run's lab order
  };

  // Under the dispatch lock, when the student's first job is handed out: reads its labs.
  void open(std::size_t i) {
    Student& st = students_[i];
    if (st.opened) return;
    st.opened = true;
    st.builds.resize(plan_.labs.size());
    st.left = plan_.labs.size();
    try {
      if (!plan_.submissions[i].refused.empty()) throw std::runtime_error(plan_.submissions[i].refused);
      st.staged = plan_.stage(plan_.submissions[i]);
      if (st.staged.size() != plan_.labs.size()) throw std::runtime_error("the build staged another number of labs");
      const fs::path exe_dir = exe_dir_of(i);
      fs::remove_all(exe_dir);
      fs::create_directories(exe_dir);
    } catch (const std::exception& e) {
      st.error = e.what();
    }
  }

  fs::path exe_dir_of(std::size_t i) const { return plan_.work_dir / fmt::format("executables-{:04d}", i); }

  // Every lab of every student, in the students' order: the first students' labs take cores
  // first, and a student's labs are built side by side. A job is handed out with its place in
  // the cores' line, and a student's labs are read before its first job is handed out, so the
  // line's order is the students' whatever the threads do next.
  void build_thread() {
    for (;;) {
      std::size_t i = 0, j = 0;
      CoreBudget::Ticket ticket;
      {
        std::lock_guard<std::mutex> lock(dispatch_mutex_);
        if (next_student_ >= plan_.submissions.size()) break;
        i = next_student_;
        j = next_lab_++;
        if (next_lab_ == plan_.labs.size()) {
          next_lab_ = 0;
          ++next_student_;
        }
        open(i);
        if (plan_.line_up) ticket = plan_.line_up(i * plan_.labs.size() + j);
      }
      build_one(i, j, std::move(ticket));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    --builders_left_;
    ready_cv_.notify_all();
  }

  void build_one(std::size_t i, std::size_t j, CoreBudget::Ticket ticket) {
    Student& st = students_[i];
    LabBuild b;
    std::string error;
    const bool failed = [&] {
      std::lock_guard<std::mutex> lock(mutex_);
      return !st.error.empty();  // its folder, or another of its labs, failed: this one is not built
    }();
    if (!failed) {
      try {
        b = plan_.build(plan_.submissions[i], st.staged[j], exe_dir_of(i), std::move(ticket));
      } catch (const std::exception& e) {
        error = e.what();
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (!error.empty() && st.error.empty()) st.error = error;
    if (st.error.empty()) {
      const auto at = std::find_if(plan_.labs.begin(), plan_.labs.end(),
                                   [&](const LabInfo& l) { return l.id() == st.staged[j].lab.id(); });
      st.builds[static_cast<std::size_t>(at - plan_.labs.begin())] = std::move(b);
    }
    if (--st.left == 0) student_built(i);
  }

  // Under the lock: the student's last lab is built.
  void student_built(std::size_t i) {
    Student& st = students_[i];
    ScheduleRecord& rec = schedule_[i];
    rec.submission = plan_.submissions[i].name;
    rec.build_start_s = -1;
    for (const LabBuild& b : st.builds) {
      if (rec.build_start_s < 0 || b.start_s < rec.build_start_s) rec.build_start_s = b.start_s;
      rec.build_end_s = std::max(rec.build_end_s, b.end_s);
      rec.build_core_s += b.core_s;
    }
    rec.build_start_s = std::max(0.0, rec.build_start_s);
    for (const LabBuild& b : st.builds) {
      if (!b.lab.empty()) rec.labs.push_back(b);  // a student whose folder failed has none
    }
    if (!st.error.empty()) {
      rec.build_end_s = std::max(rec.build_end_s, now_s());
      finish_locked(i, failed_result(plan_.submissions[i], st.error));
      return;
    }
    Built b{i, exe_dir_of(i), {}};
    for (const LabBuild& lb : st.builds) b.executables.push_back(lb.exe);
    ready_.push_back(std::move(b));
    ready_cv_.notify_one();
  }

  ClassOutcome outcome() {
    ClassOutcome out;
    std::vector<std::size_t> order(plan_.submissions.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return plan_.submissions[a].name < plan_.submissions[b].name; });
    for (std::size_t i : order) {
      out.results.push_back(std::move(results_[i]));
      out.schedule.push_back(schedule_[i]);
    }
    out.cost.wall_s = now_s();
    for (const ScheduleRecord& r : out.schedule) {
      if (r.gpu >= 0 && (out.cost.first_on_gpu_s < 0 || r.gpu_start_s < out.cost.first_on_gpu_s)) {
        out.cost.first_on_gpu_s = r.gpu_start_s;
      }
      for (const LabBuild& b : r.labs) {
        out.cost.compiles += b.compiled ? 1 : 0;
        out.cost.shared += b.shared_from.empty() ? 0 : 1;
      }
    }
    for (const std::unique_ptr<SharedGpu>& g : gpus_) out.cost.gpu_busy_s.push_back(g->env ? g->env->gpu_turns().busy_s() : 0.0);
    return out;
  }

  std::optional<Built> next_built() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_cv_.wait(lock, [&] { return !ready_.empty() || builders_left_ == 0; });
    if (ready_.empty()) return std::nullopt;
    Built b = std::move(ready_.front());
    ready_.pop_front();
    return b;
  }

  // One GPU, shared by its workers.
  struct SharedGpu {
    explicit SharedGpu(GpuSlot g) : slot(std::move(g)) {}
    GpuSlot slot;
    std::once_flag made;
    std::unique_ptr<GradingEnvironment> env;
    std::string setup_error;
  };

  void gpu_worker(SharedGpu& shared, int worker) {
    const GpuSlot& gpu = shared.slot;
    // Every child this thread starts sees this GPU only.
    const ScopedChildEnvironment device({{"CUDA_VISIBLE_DEVICES", gpu.visible_id}});
    std::call_once(shared.made, [&] {
      try {
        shared.env = plan_.make_environment(gpu);
        // While the first builds run, the GPU would be idle: the references are timed now.
        time_references_ahead(plan_.labs, *shared.env);
      } catch (const std::exception& e) {
        shared.setup_error = e.what();
      }
    });
    GradingEnvironment* env = shared.env.get();
    while (std::optional<Built> b = next_built()) {
      const ClassSubmission& s = plan_.submissions[b->index];
      {
        std::lock_guard<std::mutex> lock(mutex_);
        schedule_[b->index].gpu = gpu.index;
        schedule_[b->index].gpu_worker = worker;
        schedule_[b->index].gpu_start_s = now_s();
      }
      SubmissionResult r;
      GpuPhases phases;
      try {
        if (!env) {
          throw std::runtime_error(fmt::format("GPU {} could not be set up: {}", gpu.index, shared.setup_error));
        }
        r = grade_submission(s.name, "submission", fs::absolute(s.folder), plan_.labs, b->executables, *env, &phases);
      } catch (const std::exception& e) {  // the grader's own failure on this folder: note it, go on
        r = failed_result(s, e.what());
      }
      std::error_code ec;
      fs::remove_all(b->exe_dir, ec);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        schedule_[b->index].gpu_end_s = now_s();
        schedule_[b->index].phases = phases;
      }
      finish(b->index, std::move(r), gpu.index);
    }
  }

  void finish(std::size_t index, SubmissionResult r, int gpu = -1) {
    std::lock_guard<std::mutex> lock(mutex_);
    finish_locked(index, std::move(r), gpu);
  }

  void finish_locked(std::size_t index, SubmissionResult r, int gpu = -1) {
    ClassProgress p;
    p.done = ++done_;
    p.total = plan_.submissions.size();
    p.elapsed_s = now_s();
    p.submission = r.name;
    p.gpu = gpu;
    p.score = r.score();
    p.max_score = r.max_score();
    p.could_not_grade = !r.could_not_grade.empty();
    results_[index] = std::move(r);
    if (plan_.on_progress) plan_.on_progress(p);
  }

  const ClassPlan& plan_;
  const Clock::time_point start_ = plan_.start;
  std::vector<SubmissionResult> results_;
  std::vector<ScheduleRecord> schedule_;
  std::vector<std::unique_ptr<SharedGpu>> gpus_;
  std::vector<Student> students_;
  std::mutex dispatch_mutex_;                    // guards the next build job
  std::size_t next_student_ = 0, next_lab_ = 0;
  std::mutex mutex_;
  std::condition_variable ready_cv_;
  std::deque<Built> ready_;
  int builders_left_ = 0;
  std::size_t done_ = 0;
};

}  // namespace

double ClassCost::gpu_s() const {
  double total = 0;
  for (const double s : gpu_busy_s) total += s;
  return total;
}

double ClassCost::bound_s() const {
  const double builds = cores > 0 ? build_core_s / cores : 0;
  const double gpus = gpu_busy_s.empty() ? 0 : gpu_s() / static_cast<double>(gpu_busy_s.size());
  return std::max(builds, gpus);
}

ClassOutcome grade_class(const ClassPlan& plan) {
  if (plan.gpus.empty()) throw std::invalid_argument("grading a class needs at least one GPU");
  if (plan.students_per_gpu < 1) throw std::invalid_argument("grading a class needs at least one student per GPU");
  if (plan.labs.empty()) throw std::invalid_argument("grading a class needs at least one lab");
  fs::create_directories(plan.work_dir);
  // Built in name order: the same plan gives the same work in the same order.
  ClassPlan sorted = plan;
  std::sort(sorted.submissions.begin(), sorted.submissions.end(),
            [](const ClassSubmission& a, const ClassSubmission& b) { return a.name < b.name; });
  return Pipeline(sorted).run();
}

}  // namespace convlab::grader
