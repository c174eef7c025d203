// The cores a grading run's compiles share, handed out in line: a class's first students' labs
// before the later ones', so that the first students reach the GPUs early, built with as many
// cores as their labs can use, while the later ones are built as cores free up.
//
// A job takes its place in line when it is handed out (line_up, in the students' order), before
// it reads anything or looks in the compile store, so that the order of the grants is the order
// of the jobs and not of the threads' wake-ups. A job that turns out to need no compile (its lab
// is in the store, or compiling for another student) leaves the line; one that compiles asks for
// the cores it can keep busy and gets what is free, at least one, once it is first in line.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>
#include <utility>

namespace convlab::grader {

/// The cores of a run's compiles.
class CoreBudget {
 public:
  /// A place in line; leaving it (cancel, or its end) lets the next one through.
  class Ticket {
   public:
    Ticket() = default;
    Ticket(Ticket&& other) noexcept;
    Ticket& operator=(Ticket&& other) noexcept;
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    ~Ticket() { cancel(); }
    /// Leaves the line (nothing when it has left already or holds no place).
    void cancel();
    /// Whether it still holds its place.
    [[nodiscard]] bool in_line() const { return budget_ != nullptr; }
    /// The priority it lined up with.
    [[nodiscard]] std::uint64_t priority() const { return place_.first; }

   private:
    friend class CoreBudget;
    Ticket(CoreBudget* budget, std::pair<std::uint64_t, std::uint64_t> place) : budget_(budget), place_(place) {}
    CoreBudget* budget_ = nullptr;
    std::pair<std::uint64_t, std::uint64_t> place_{};  ///< (priority, arrival)
  };

  /// A share of the cores, held while it lives.
  class Grant {
   public:
    Grant(Grant&& other) noexcept;
    Grant(const Grant&) = delete;
    Grant& operator=(const Grant&) = delete;
    Grant& operator=(Grant&&) = delete;
    ~Grant();
    [[nodiscard]] int cores() const { return cores_; }

   private:
    friend class CoreBudget;
    Grant(CoreBudget* budget, int cores) : budget_(budget), cores_(cores) {}
    CoreBudget* budget_;
    int cores_;
  };

  /// @param cores at least 1
  explicit CoreBudget(int cores);

  /// A place in line for a job of `priority` (a lower number goes first; equal ones in the
  /// order they lined up).
  [[nodiscard]] Ticket line_up(std::uint64_t priority);
  /// Waits until a core is free and `ticket` is first in line, then grants min(`want`, free)
  /// cores (at least 1); the ticket leaves the line.
  [[nodiscard]] Grant take(Ticket& ticket, int want);

  [[nodiscard]] int total() const { return total_; }
  /// The most cores granted at once so far.
  [[nodiscard]] int peak();

 private:
  void leave(std::pair<std::uint64_t, std::uint64_t> place);
  void give_back(int cores);

  const int total_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int free_;
  int peak_ = 0;
  std::uint64_t arrivals_ = 0;
  std::set<std::pair<std::uint64_t, std::uint64_t>> line_;  ///< (priority, arrival): who is first
};

}  // namespace convlab::grader
