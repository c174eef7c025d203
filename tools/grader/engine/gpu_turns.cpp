#include "engine/gpu_turns.hpp"

namespace convlab::grader {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

GpuTurns::Turn::Turn(Turn&& other) noexcept
    : turns_(other.turns_), alone_(other.alone_), waited_s_(other.waited_s_) {
  other.turns_ = nullptr;
}

GpuTurns::Turn::~Turn() {
  if (turns_ != nullptr) turns_->release(alone_);
}

GpuTurns::Turn GpuTurns::shared() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return !taken_alone_ && waiting_alone_ == 0; });
  ++sharing_;
  return Turn(this, false, seconds_since(start));
}

GpuTurns::Turn GpuTurns::alone() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  ++waiting_alone_;
  changed_.wait(lock, [&] { return !taken_alone_ && sharing_ == 0; });
  --waiting_alone_;
  taken_alone_ = true;
  return Turn(this, true, seconds_since(start));
}

void GpuTurns::release(bool alone) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (alone) {
      taken_alone_ = false;
    } else {
      --sharing_;
    }
  }
  changed_.notify_all();
}

}  // namespace convlab::grader
