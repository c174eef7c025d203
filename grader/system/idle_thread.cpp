#include "system/idle_thread.hpp"

#include <sched.h>

#include <exception>
#include <thread>

namespace convlab::grader {

void run_at_idle_priority(const std::function<void()>& work) {
  std::exception_ptr failure;
  std::thread worker([&] {
    // On Linux, pid 0 is the calling thread: this thread alone, and the threads it starts.
    const sched_param param{};
    (void)sched_setscheduler(0, SCHED_IDLE, &param);  // lowering a thread's policy needs no privilege
    try {
      work();
    } catch (...) {
      failure = std::current_exception();
    }
  });
  worker.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace convlab::grader
