// The grader's child processes: exit codes, crashes, hangs and missing programs are reported,
// never fatal; host work at idle priority on a thread of its own.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <fmt/format.h>

#include <future>
#include <stdexcept>
#include <string>
#include <thread>

#include "grader_test_support.hpp"
#include "system/idle_thread.hpp"
#include "system/subprocess.hpp"

using namespace convlab::grader;
using namespace std::chrono_literals;

TEST_CASE("subprocess: exit code and interleaved output", "[subprocess]") {
  const ProcessResult r = run_process({"/bin/sh", "-c", "echo out; echo err 1>&2; exit 3"}, 10s);
  CHECK(r.exit_code == 3);
  CHECK_FALSE(r.signaled);
  CHECK_FALSE(r.timed_out);
  CHECK(r.output == "out\nerr\n");
  CHECK(r.describe() == "exit 3");
}

TEST_CASE("subprocess: a crash is reported as a signal", "[subprocess]") {
  const ProcessResult r = run_process({"/bin/sh", "-c", "kill -SEGV $$"}, 10s);
  CHECK(r.signaled);
  CHECK(r.signal == 11);
  CHECK_THAT(r.describe(), Catch::Contains("signal 11"));
}

TEST_CASE("subprocess: a hang is killed at the deadline, with its children", "[subprocess]") {
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = run_process({"/bin/sh", "-c", "sleep 30 & sleep 30"}, 300ms);
  CHECK(r.timed_out);
  CHECK(std::chrono::steady_clock::now() - start < 5s);
  CHECK_THAT(r.describe(), Catch::Contains("timed out"));
}

TEST_CASE("subprocess: a program that does not exist", "[subprocess]") {
  const ProcessResult r = run_process({"/nonexistent/lab99"}, 10s);
  CHECK(r.spawn_failed);
  CHECK_THAT(r.describe(), Catch::Contains("No such file"));
}

TEST_CASE("subprocess: a child holds none of the grader's files, only its stdin, stdout and stderr", "[subprocess]") {
  // Another thread's file open for writing (a lab's executable being copied, a report being
  // written) when the child is forked: a child that kept it could write into another student's
  // executable, and while it runs, that executable cannot be started (ETXTBSY).
  convlab::grader::testing::TempDir tmp("subprocess-fds");
  const std::string file = (tmp.path() / "being-written").string();
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT, 0644);  // no O_CLOEXEC, as std::ofstream opens
  REQUIRE(fd > 2);
  const std::string list =
      fmt::format("for f in 0 1 2 {}; do [ -e /proc/self/fd/$f ] && echo \"$f open\"; done; true", fd);
  const ProcessResult r = run_process({"/bin/sh", "-c", list}, 10s);
  ::close(fd);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output == "0 open\n1 open\n2 open\n");
}

TEST_CASE("subprocess: a program that is still open for writing for a moment is started once it is closed, and one "
          "that stays open is a clear error",
          "[subprocess]") {
  // The moment a sibling forked by another thread still holds a copy of the writer's descriptor,
  // between its fork and its exec: execve says ETXTBSY ("Text file busy") until it is closed.
  convlab::grader::testing::TempDir tmp("subprocess-busy");
  const std::string exe = (tmp.path() / "lab").string();
  const std::string script = "#!/bin/sh\necho started\n";
  const auto open_for_writing = [&] {
    const int fd = ::open(exe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
    REQUIRE(fd >= 0);
    REQUIRE(::write(fd, script.data(), script.size()) == static_cast<ssize_t>(script.size()));
    return fd;
  };
  SECTION("closed after 200 ms: started") {
    const int fd = open_for_writing();
    auto run = std::async(std::launch::async, [&] { return run_process({exe}, 10s); });
    std::this_thread::sleep_for(200ms);
    ::close(fd);
    const ProcessResult r = run.get();
    INFO(r.describe() << ": " << r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output == "started\n");
  }
  SECTION("never closed: could not start, and why") {
    const int fd = open_for_writing();
    const auto start = std::chrono::steady_clock::now();
    const ProcessResult r = run_process({exe}, 10s);
    ::close(fd);
    CHECK(r.spawn_failed);
    CHECK_THAT(r.describe(), Catch::Contains("Text file busy"));
    CHECK(std::chrono::steady_clock::now() - start < 5s);  // it gave up, within its bound
  }
}

TEST_CASE("subprocess: CPU seconds count the child's waited-for descendants, not its sleep", "[subprocess]") {
  // A grandchild counts to 300000 in the shell, a fixed amount of CPU work (as a compiler under
  // ninja does work); the outer shell only waits for it.
  const ProcessResult busy =
      run_process({"/bin/sh", "-c", "/bin/sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'"}, 60s);
  REQUIRE(busy.exit_code == 0);
  CHECK(busy.cpu_seconds > 0.05);
  CHECK(busy.cpu_seconds <= busy.seconds + 0.05);  // one thread at a time: never more CPU than wall time
  const ProcessResult idle = run_process({"/bin/sh", "-c", "sleep 0.4"}, 30s);
  REQUIRE(idle.exit_code == 0);
  CHECK(idle.seconds >= 0.35);
  CHECK(idle.cpu_seconds < 0.05);
}

TEST_CASE("subprocess: a command at idle priority runs under SCHED_IDLE, and so does what it starts",
          "[subprocess]") {
  const std::vector<std::string> argv =
      at_idle_priority({"/bin/sh", "-c", "chrt -p $$; /bin/sh -c 'chrt -p $$'"});
  if (argv.front() == "/bin/sh") {
    WARN("SKIPPED: no chrt (util-linux) on this machine; compiles run at normal priority");
    return;
  }
  const ProcessResult r = run_process(argv, std::chrono::seconds(10));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // One line for the shell, one for its child.
  std::size_t lines = 0;
  for (std::size_t at = r.output.find("SCHED_IDLE"); at != std::string::npos; at = r.output.find("SCHED_IDLE", at + 1)) {
    ++lines;
  }
  CHECK(lines == 2);
  CHECK_THAT(r.output, !Catch::Contains("SCHED_OTHER"));
}

TEST_CASE("idle thread: host work runs under SCHED_IDLE with the threads it starts, and the caller keeps its policy",
          "[subprocess]") {
  const int caller = sched_getscheduler(0);
  REQUIRE(caller != SCHED_IDLE);
  int in_work = -1, in_child = -1;
  run_at_idle_priority([&] {
    in_work = sched_getscheduler(0);
    std::thread([&] { in_child = sched_getscheduler(0); }).join();  // as parallel_rows' threads
  });
  CHECK(in_work == SCHED_IDLE);
  CHECK(in_child == SCHED_IDLE);
  CHECK(sched_getscheduler(0) == caller);  // the runner processes it starts later inherit this one
  CHECK_THROWS_WITH(run_at_idle_priority([] { throw std::runtime_error("judging failed"); }), "judging failed");
}
