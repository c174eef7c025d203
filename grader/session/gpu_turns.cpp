#include "session/gpu_turns.hpp"

namespace convlab::grader {

GpuTurns::Turn::Turn(GpuTurns* turns, bool alone, std::chrono::steady_clock::time_point asked)
    : turns_(turns),
      alone_(alone),
      taken_(std::chrono::steady_clock::now()),
      waited_s_(std::chrono::duration<double>(taken_ - asked).count()) {}

GpuTurns::Turn::Turn(Turn&& other) noexcept
    : turns_(other.turns_), alone_(other.alone_), taken_(other.taken_), waited_s_(other.waited_s_) {
  other.turns_ = nullptr;
}

double GpuTurns::Turn::held_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - taken_).count();
}

GpuTurns::Turn::~Turn() {
  if (turns_ != nullptr) turns_->release(alone_);
}

GpuTurns::Turn GpuTurns::shared() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return !taken_alone_ && waiting_alone_ == 0; });
  ++sharing_;
  return Turn(this, false, start);
}

GpuTurns::Turn GpuTurns::alone() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  ++waiting_alone_;
  changed_.wait(lock, [&] { return !taken_alone_ && sharing_ == 0; });
  --waiting_alone_;
  taken_alone_ = true;
  return Turn(this, true, start);
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
