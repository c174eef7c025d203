#include "schedule/class_pipeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
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
      : plan_(plan), results_(plan.submissions.size()), schedule_(plan.submissions.size()) {}

  ClassOutcome run() {
    std::vector<std::thread> threads;
    const int builders = std::max(1, std::min<int>(plan_.build_workers, static_cast<int>(plan_.submissions.size())));
    builders_left_ = builders;
    for (int w = 0; w < builders; ++w) threads.emplace_back([this, w] { build_worker(w); });
    for (const GpuSlot& gpu : plan_.gpus) gpus_.push_back(std::make_unique<SharedGpu>(gpu));
    for (const std::unique_ptr<SharedGpu>& gpu : gpus_) {
      for (int w = 0; w < plan_.students_per_gpu; ++w) {
        threads.emplace_back([this, g = gpu.get(), w] { gpu_worker(*g, w); });
      }
    }
    for (std::thread& t : threads) t.join();

    ClassOutcome out;
    std::vector<std::size_t> order(plan_.submissions.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return plan_.submissions[a].name < plan_.submissions[b].name; });
    for (std::size_t i : order) {
      out.results.push_back(std::move(results_[i]));
      out.schedule.push_back(schedule_[i]);
    }
    return out;
  }

 private:
  double now_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  void build_worker(int worker) {
    SubmissionBuild build;
    std::string setup_error;
    try {
      build = plan_.make_build(worker);
    } catch (const std::exception& e) {
      setup_error = e.what();
    }
    for (std::size_t i = next_build_++; i < plan_.submissions.size(); i = next_build_++) {
      const ClassSubmission& s = plan_.submissions[i];
      ScheduleRecord& rec = schedule_[i];  // this thread owns entry i until it is queued
      rec.submission = s.name;
      rec.build_worker = worker;
      rec.build_start_s = now_s();
      Built b{i, plan_.work_dir / fmt::format("executables-{:04d}", i), {}};
      std::optional<std::string> error;
      if (!setup_error.empty()) error = setup_error;
      try {
        if (!error) {
          fs::remove_all(b.exe_dir);
          fs::create_directories(b.exe_dir);
          b.executables = build(s, b.exe_dir);
          if (b.executables.size() != plan_.labs.size()) error = "the build returned no executable for some lab";
        }
      } catch (const std::exception& e) {
        error = e.what();
      }
      rec.build_end_s = now_s();
      if (error) {
        finish(i, failed_result(s, *error));
        continue;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      ready_.push_back(std::move(b));
      ready_cv_.notify_one();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    --builders_left_;
    ready_cv_.notify_all();
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
  const Clock::time_point start_ = Clock::now();
  std::vector<SubmissionResult> results_;
  std::vector<ScheduleRecord> schedule_;
  std::vector<std::unique_ptr<SharedGpu>> gpus_;
  std::atomic<std::size_t> next_build_{0};
  std::mutex mutex_;
  std::condition_variable ready_cv_;
  std::deque<Built> ready_;
  int builders_left_ = 0;
  std::size_t done_ = 0;
};

}  // namespace

ClassOutcome grade_class(const ClassPlan& plan) {
  if (plan.gpus.empty()) throw std::invalid_argument("grading a class needs at least one GPU");
  if (plan.students_per_gpu < 1) throw std::invalid_argument("grading a class needs at least one student per GPU");
  fs::create_directories(plan.work_dir);
  // Built in name order: the same plan gives the same work to the same workers.
  ClassPlan sorted = plan;
  std::sort(sorted.submissions.begin(), sorted.submissions.end(),
            [](const ClassSubmission& a, const ClassSubmission& b) { return a.name < b.name; });
  return Pipeline(sorted).run();
}

}  // namespace convlab::grader
