// Running a child process with a deadline: how the grader survives labs that crash or hang.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace convlab::grader {

/// How a child process ended.
struct ProcessResult {
  int exit_code = -1;      ///< valid when !signaled && !timed_out
  bool signaled = false;   ///< killed by a signal (a crash: SIGSEGV, SIGABRT...)
  int signal = 0;
  bool timed_out = false;  ///< ran past the deadline and was killed
  bool spawn_failed = false;
  std::string output;      ///< stdout and stderr, interleaved as written
  double seconds = 0;
  /// CPU seconds (user and system) the child and the descendants it waited for used: what a
  /// build step costs the machine's cores, whatever its wall time (0 when it never started).
  double cpu_seconds = 0;
  /// "exit 0", "killed by signal 11 (Segmentation fault)", "timed out after 30 s".
  [[nodiscard]] std::string describe() const;
};

/// The last `n` lines of a process's output (each with its newline), for error messages.
std::string last_lines(const std::string& text, std::size_t n);

/// Runs `argv` (argv[0] is a path) in its own process group, feeding it no input and
/// collecting its output, and kills the whole group after `timeout`. Never throws for the
/// child's failures: they are reported in the result.
ProcessResult run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                          const std::string& working_dir = "");

/// `argv` (argv[0] a path) to be run under the SCHED_IDLE policy, through util-linux's chrt: the
/// process and everything it starts run only on cores nothing else wants. Every build step of a
/// grading run (the harness, configuring a compile folder, a lab's compile) runs so, on every
/// core, and still never delays the GPU's runs: a timed runner whose host thread
/// waited for a core between its calls would show the grader's clock time that is not its
/// kernel's (performance/time_checks.hpp). `argv` unchanged where there is no chrt.
std::vector<std::string> at_idle_priority(std::vector<std::string> argv);

/// Answers one line of a child's output (stdout and stderr, without its newline) with text for
/// its stdin ("" for none). Called as each line arrives, so the caller can keep time by it.
using LineDialog = std::function<std::string(std::string_view line)>;

/// run_process() whose child reads `dialog`'s answers on its stdin (a socket: an answer to a
/// child that has gone is dropped, never a SIGPIPE for the grader).
ProcessResult run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                          const std::string& working_dir, const LineDialog& dialog);

}  // namespace convlab::grader
