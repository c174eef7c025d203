// Turns on one GPU for the students graded on it at once (grader batch --students-per-gpu).
// Their correctness and sanitizer runs may share the GPU: a correct kernel is correct whatever
// runs beside it. Their timed runs (and Nsight Compute's) may not: a timed run has the GPU to
// itself, with no other student's process alive on it, or the times would measure the
// neighbours. So each GPU has one reader-writer lock whose readers are checking students and
// whose writer is the one student being timed.
//
// Writers go first: once a student waits to be timed, no new student starts checking. A student
// takes shared turns for its labs' correctness (one, or one per lot of labs when they reach the
// GPU as they are built) and then one turn alone for every lab's timing, so with writers first
// the students on a GPU fall into step: they check together, then are timed one after another,
// then the next ones check together. With readers first,
// a student that starts checking while the others wait would keep them all waiting, alone.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace convlab::grader {

/// One GPU's turns.
class GpuTurns {
 public:
  /// A turn, held while it lives; it knows how long it waited for the GPU and has held it.
  class Turn {
   public:
    Turn(Turn&& other) noexcept;
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;
    Turn& operator=(Turn&&) = delete;
    ~Turn();
    [[nodiscard]] double waited_s() const { return waited_s_; }
    [[nodiscard]] double held_s() const;

   private:
    friend class GpuTurns;
    Turn(GpuTurns* turns, bool alone, std::chrono::steady_clock::time_point asked);
    GpuTurns* turns_;
    bool alone_;
    std::chrono::steady_clock::time_point taken_;
    double waited_s_;
  };

  /// A turn shared with other students' shared turns (correctness, sanitizers).
  [[nodiscard]] Turn shared();
  /// A turn with the GPU to this student alone (timing, profiling).
  [[nodiscard]] Turn alone();

  /// Seconds during which at least one turn was held (a turn still held counts up to now): the
  /// GPU time a class needed, whatever the wall time, for the bound that class_speedup.sh
  /// prints. Waiting for a turn is not busy time.
  [[nodiscard]] double busy_s();

 private:
  void release(bool alone);
  void taken();  ///< under the lock, after a turn is counted in

  std::mutex mutex_;
  std::condition_variable changed_;
  int sharing_ = 0;          ///< students in a shared turn
  bool taken_alone_ = false; ///< a student is in its turn alone
  int waiting_alone_ = 0;    ///< students waiting for a turn alone: no new shared turn starts
  std::chrono::steady_clock::time_point busy_since_;  ///< when the turns held went from none to one
  double busy_s_ = 0;        ///< busy time of the periods that have ended
};

}  // namespace convlab::grader
