#include "session/gpu_turns.hpp"

namespace convlab::grader {

GpuTurns::GpuTurns(std::shared_ptr<HostTurns> host) : host_(std::move(host)) {}

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
  if (turns_ != nullptr) turns_->release(alone_, taken_);
}

GpuTurns::Turn GpuTurns::shared() {
  const auto start = std::chrono::steady_clock::now();
  HostTurns& host = *host_;
  std::unique_lock<std::mutex> lock(host.mutex_);
  host.changed_.wait(lock, [&] { return host.alone_ == 0 && host.waiting_alone_ == 0; });
  ++host.sharing_;
  ++sharing_;
  taken();
  return Turn(this, false, start);
}

GpuTurns::Turn GpuTurns::alone() {
  const auto start = std::chrono::steady_clock::now();
  HostTurns& host = *host_;
  std::unique_lock<std::mutex> lock(host.mutex_);
  ++host.waiting_alone_;
  host.changed_.wait(lock, [&] { return !taken_alone_ && host.sharing_ == 0; });
  --host.waiting_alone_;
  ++host.alone_;
  taken_alone_ = true;
  taken();
  return Turn(this, true, start);
}

void GpuTurns::taken() {
  if ((taken_alone_ ? 1 : 0) + sharing_ == 1) busy_since_ = std::chrono::steady_clock::now();
}

double GpuTurns::busy_s() {
  std::lock_guard<std::mutex> lock(host_->mutex_);
  const bool busy = taken_alone_ || sharing_ > 0;
  return busy_s_ + (busy ? std::chrono::duration<double>(std::chrono::steady_clock::now() - busy_since_).count() : 0.0);
}

std::vector<GpuTurns::Span> GpuTurns::spans() {
  std::lock_guard<std::mutex> lock(host_->mutex_);
  return spans_;
}

void GpuTurns::release(bool alone, std::chrono::steady_clock::time_point taken) {
  HostTurns& host = *host_;
  {
    std::lock_guard<std::mutex> lock(host.mutex_);
    spans_.push_back({alone, taken, std::chrono::steady_clock::now()});
    if (alone) {
      taken_alone_ = false;
      --host.alone_;
    } else {
      --sharing_;
      --host.sharing_;
    }
    if (!taken_alone_ && sharing_ == 0) {
      busy_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - busy_since_).count();
    }
  }
  host.changed_.notify_all();
}

}  // namespace convlab::grader
