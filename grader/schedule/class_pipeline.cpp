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

// A submission handed to the GPUs: its first lab is built, the rest follow (Student::pending).
struct Built {
  std::size_t index = 0;
  fs::path exe_dir;
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
      threads.emplace_back([this, g = gpu.get()] { set_up_gpu(*g); });
      for (int w = 0; w < plan_.students_per_gpu; ++w) {
        threads.emplace_back([this, g = gpu.get(), w] { gpu_worker(*g, w); });
      }
    }
    for (std::thread& t : threads) t.join();
    return outcome();
  }

 private:
  double now_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  // One student's builds, from being opened (its labs read) to its last lab handed to a GPU.
  struct Student {
    bool opened = false;
    std::vector<StagedLab> staged;  ///< in the order to build them
    std::string error;              ///< its folder could not be read: not graded
    std::size_t left = 0;           ///< labs not built yet
    std::vector<LabBuild> builds;   ///< in the run's lab order
    bool handed = false;            ///< on the GPUs' queue, or taken by a GPU worker
    std::vector<std::size_t> pending;  ///< built labs (positions in the run's order) its worker has not taken yet
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

  // A lab goes to the GPUs as soon as it is built: a student is handed to a GPU worker with its
  // first lab, and its other labs follow while the worker checks it (grade_submission_as_built),
  // so a GPU starts on the first student after its quickest lab's compile, not its slowest's.
  void build_one(std::size_t i, std::size_t j, CoreBudget::Ticket ticket) {
    Student& st = students_[i];
    const bool unreadable = [&] {
      std::lock_guard<std::mutex> lock(mutex_);
      return !st.error.empty();  // its folder could not be read: nothing of it is built
    }();
    LabBuild b;
    if (!unreadable) {
      try {
        b = plan_.build(plan_.submissions[i], st.staged[j], exe_dir_of(i), std::move(ticket));
      } catch (const std::exception& e) {  // the grader's own failure: this lab alone is not graded
        b = LabBuild{};
        b.lab = st.staged[j].lab.id();
        b.start_s = b.end_s = now_s();
        b.exe.could_not_grade = fmt::format("the grader could not build {}: {}", b.lab, e.what());
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (st.error.empty()) {
      const auto at = std::find_if(plan_.labs.begin(), plan_.labs.end(),
                                   [&](const LabInfo& l) { return l.id() == st.staged[j].lab.id(); });
      const auto position = static_cast<std::size_t>(at - plan_.labs.begin());
      st.builds[position] = std::move(b);
      st.pending.push_back(position);
      if (!st.handed) {
        st.handed = true;
        ready_.push_back(Built{i, exe_dir_of(i)});
        ready_cv_.notify_one();
      }
    }
    if (--st.left == 0) student_built(i);
    built_cv_.notify_all();
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
    }
  }

  // For the GPU worker grading student i: the labs built since the last call, waiting for one.
  std::vector<std::pair<std::size_t, LabExecutable>> take_built(std::size_t i) {
    Student& st = students_[i];
    std::unique_lock<std::mutex> lock(mutex_);
    built_cv_.wait(lock, [&] { return !st.pending.empty() || st.left == 0; });
    std::vector<std::pair<std::size_t, LabExecutable>> lot;
    for (const std::size_t position : st.pending) lot.emplace_back(position, st.builds[position].exe);
    st.pending.clear();
    return lot;
  }

  // Waits until student i has no build running: its executables' folder is no longer written.
  void wait_until_built(std::size_t i) {
    std::unique_lock<std::mutex> lock(mutex_);
    built_cv_.wait(lock, [&] { return students_[i].left == 0; });
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
    for (const std::unique_ptr<SharedGpu>& g : gpus_) {
      out.cost.gpu_busy_s.push_back(g->env ? g->env->gpu_turns().busy_s() : 0.0);
      out.cost.gpu_turns.push_back(g->env ? turn_spans(g->env->gpu_turns(), start_) : std::vector<TurnSpan>{});
    }
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
    std::mutex mutex;
    std::condition_variable made_cv;
    bool made = false;  ///< set_up_gpu has made env, or failed to (setup_error)
    std::unique_ptr<GradingEnvironment> env;
    std::string setup_error;
  };

  // Each GPU's grading environment, made once; then, while the first builds run, its reference
  // solutions are timed, each lab in a turn alone, so that the first students' checks can come
  // between them (time_references_ahead).
  void set_up_gpu(SharedGpu& shared) {
    const ScopedChildEnvironment device({{"CUDA_VISIBLE_DEVICES", shared.slot.visible_id}});
    {
      std::lock_guard<std::mutex> lock(shared.mutex);
      try {
        shared.env = plan_.make_environment(shared.slot);
      } catch (const std::exception& e) {
        shared.setup_error = e.what();
      }
      shared.made = true;
    }
    shared.made_cv.notify_all();
    if (!shared.env) return;
    try {
      time_references_ahead(plan_.labs, *shared.env);
    } catch (const std::exception&) {
      // A reference that cannot be timed now is timed, or reported, by its lab's first student.
    }
  }

  GradingEnvironment* environment_of(SharedGpu& shared) {
    std::unique_lock<std::mutex> lock(shared.mutex);
    shared.made_cv.wait(lock, [&] { return shared.made; });
    return shared.env.get();
  }

  void gpu_worker(SharedGpu& shared, int worker) {
    const GpuSlot& gpu = shared.slot;
    // Every child this thread starts sees this GPU only.
    const ScopedChildEnvironment device({{"CUDA_VISIBLE_DEVICES", gpu.visible_id}});
    GradingEnvironment* env = environment_of(shared);
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
        r = grade_submission_as_built(s.name, "submission", fs::absolute(s.folder), plan_.labs,
                                      [this, i = b->index] { return take_built(i); }, *env, &phases);
      } catch (const std::exception& e) {  // the grader's own failure on this folder: note it, go on
        r = failed_result(s, e.what());
      }
      wait_until_built(b->index);
      std::error_code ec;
      fs::remove_all(b->exe_dir, ec);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ScheduleRecord& rec = schedule_[b->index];
        // On the GPU from its first check (before it, the worker waited for a turn).
        if (phases.first_check) rec.gpu_start_s = std::chrono::duration<double>(*phases.first_check - start_).count();
        rec.gpu_end_s = now_s();
        rec.phases = phases;
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
  std::condition_variable ready_cv_;  // a student handed to the GPUs, or the builders done
  std::condition_variable built_cv_;  // a lab built
  std::deque<Built> ready_;
  int builders_left_ = 0;
  std::size_t done_ = 0;
};

}  // namespace

std::vector<TurnSpan> turn_spans(GpuTurns& turns, Clock::time_point start) {
  std::vector<TurnSpan> out;
  for (const GpuTurns::Span& s : turns.spans()) {
    out.push_back({s.alone, std::chrono::duration<double>(s.taken - start).count(),
                   std::chrono::duration<double>(s.released - start).count()});
  }
  return out;
}

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
