/// @file thread_pool.hpp
/// @brief A fixed pool of worker threads running submitted tasks in order, each task's result
///        handed back as a shared future. The autotuner compiles its NVRTC instantiations on it,
///        one per core, while the GPU measures the ones already compiled.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace convlab::lab07 {

class ThreadPool {
 public:
  /// Starts `threads` workers (at least one).
  explicit ThreadPool(int threads) {
    for (int i = 0; i < (threads > 0 ? threads : 1); ++i) workers_.emplace_back([this] { work(); });
  }
  /// Runs what is queued, then joins the workers.
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Queues `f`; its result (or exception) arrives through the future.
  template <class F>
  std::shared_future<std::invoke_result_t<F>> submit(F f) {
    using R = std::invoke_result_t<F>;
    auto task = std::make_shared<std::packaged_task<R()>>(std::move(f));
    std::shared_future<R> result = task->get_future().share();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.emplace_back([task] { (*task)(); });
    }
    cv_.notify_one();
    return result;
  }

 private:
  void work() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace convlab::lab07
