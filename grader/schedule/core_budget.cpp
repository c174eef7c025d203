#include "schedule/core_budget.hpp"

#include <algorithm>
#include <stdexcept>

namespace convlab::grader {

CoreBudget::Ticket::Ticket(Ticket&& other) noexcept : budget_(other.budget_), place_(other.place_) {
  other.budget_ = nullptr;
}

CoreBudget::Ticket& CoreBudget::Ticket::operator=(Ticket&& other) noexcept {
  if (this != &other) {
    cancel();
    budget_ = other.budget_;
    place_ = other.place_;
    other.budget_ = nullptr;
  }
  return *this;
}

void CoreBudget::Ticket::cancel() {
  if (budget_ != nullptr) budget_->leave(place_);
  budget_ = nullptr;
}

CoreBudget::Grant::Grant(Grant&& other) noexcept : budget_(other.budget_), cores_(other.cores_) {
  other.budget_ = nullptr;
}

CoreBudget::Grant::~Grant() {
  if (budget_ != nullptr) budget_->give_back(cores_);
}

CoreBudget::CoreBudget(int cores) : total_(cores), free_(cores) {
  if (cores < 1) throw std::invalid_argument("a core budget needs at least one core");
}

CoreBudget::Ticket CoreBudget::line_up(std::uint64_t priority) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::pair<std::uint64_t, std::uint64_t> place{priority, arrivals_++};
  line_.insert(place);
  return Ticket(this, place);
}

CoreBudget::Grant CoreBudget::take(Ticket& ticket, int want) {
  if (ticket.budget_ != this) throw std::invalid_argument("a core budget's grant needs a ticket of its own line");
  std::unique_lock<std::mutex> lock(mutex_);
  const auto place = ticket.place_;
  changed_.wait(lock, [&] { return free_ > 0 && *line_.begin() == place; });
  line_.erase(place);
  ticket.budget_ = nullptr;  // it has left the line
  const int cores = std::clamp(want, 1, free_);
  free_ -= cores;
  peak_ = std::max(peak_, total_ - free_);
  changed_.notify_all();  // the next in line may take what is left
  return Grant(this, cores);
}

int CoreBudget::peak() {
  std::lock_guard<std::mutex> lock(mutex_);
  return peak_;
}

void CoreBudget::leave(std::pair<std::uint64_t, std::uint64_t> place) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    line_.erase(place);
  }
  changed_.notify_all();
}

void CoreBudget::give_back(int cores) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    free_ += cores;
  }
  changed_.notify_all();
}

}  // namespace convlab::grader
