// Turns on the GPUs of one host for the students graded on them (grader batch
// --students-per-gpu). Their correctness and sanitizer runs may share a GPU: a correct kernel is
// correct whatever runs beside it. Their timed runs (and Nsight Compute's) may not: a timed run
// has its GPU to itself, with no other student's process alive on it, or the times would
// measure the neighbours.
//
// Nor may a timed run overlap another GPU's shared turns. On a 2 × H100 host, a runner process
// that times a lab on one GPU took 1.6-2.6 times as long, start to exit, while the other GPU
// started and ended one CUDA process after another (checks do: a process per lab and student,
// four students at once), and 1.0-1.4 times as long while the other GPU timed too, one process
// at a time; the timed calls inside were unchanged (scripts/gpu_interference.sh, grader/README.md
// "Measuring it on a GPU machine"). A process's CUDA start-up and teardown go through the
// driver, which the host's GPUs share. So the host keeps one reader-writer rule across its GPUs:
// shared turns, on any GPU, are the readers; a turn alone is a writer that excludes every shared
// turn on the host but not other GPUs' turns alone. The host's GPUs check together, then time
// together.
//
// Writers go first: once a student waits to be timed on any GPU, no new student starts checking
// on any. A student takes shared turns for its labs' correctness (one, or one per lot of labs
// when they reach the GPU as they are built) and then one turn alone for every lab's timing, so
// with writers first the students on a GPU fall into step: they check together, then are timed
// one after another, then the next ones check together. With readers first, a student that
// starts checking while the others wait would keep them all waiting, alone.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

namespace convlab::grader {

/// The rule the GPUs of one host keep together: every GpuTurns made with the same HostTurns.
class HostTurns {
 private:
  friend class GpuTurns;
  std::mutex mutex_;
  std::condition_variable changed_;
  int sharing_ = 0;        ///< shared turns held, on every GPU
  int alone_ = 0;          ///< turns alone held, at most one a GPU
  int waiting_alone_ = 0;  ///< students waiting for a turn alone, on every GPU: no new shared turn starts
};

/// One GPU's turns.
class GpuTurns {
 public:
  /// A GPU alone on its host, or one of the GPUs that share `host`.
  explicit GpuTurns(std::shared_ptr<HostTurns> host = std::make_shared<HostTurns>());

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

  /// A turn shared with other students' shared turns (correctness, sanitizers), on this GPU and
  /// the host's others.
  [[nodiscard]] Turn shared();
  /// A turn with this GPU to this student alone (timing, profiling), and no shared turn on the host.
  [[nodiscard]] Turn alone();

  /// Seconds during which at least one turn was held on this GPU (a turn still held counts up to
  /// now): the GPU time a class needed, whatever the wall time, for the bound that
  /// class_speedup.sh prints. Waiting for a turn is not busy time.
  [[nodiscard]] double busy_s();

  /// A turn held on this GPU: alone or shared, from when it was taken to its release.
  struct Span {
    bool alone = false;
    std::chrono::steady_clock::time_point taken, released;
  };
  /// Every turn released on this GPU so far, in the order released: the GPU's timeline, from which
  /// class_speedup.sh tells what a GPU waited for while it was idle (the other GPUs' turns, or none).
  [[nodiscard]] std::vector<Span> spans();

 private:
  void release(bool alone, std::chrono::steady_clock::time_point taken);
  void taken();  ///< under the host's lock, after a turn is counted in

  std::shared_ptr<HostTurns> host_;  ///< its mutex guards the members below too
  int sharing_ = 0;                  ///< students in a shared turn on this GPU
  bool taken_alone_ = false;         ///< a student is in its turn alone on this GPU
  std::chrono::steady_clock::time_point busy_since_;  ///< when this GPU's turns held went from none to one
  double busy_s_ = 0;                ///< busy time of the periods that have ended
  std::vector<Span> spans_;          ///< the turns released
};

}  // namespace convlab::grader
