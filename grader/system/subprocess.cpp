#include "system/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#if __has_include(<linux/close_range.h>)
#include <linux/close_range.h>  // CLOSE_RANGE_CLOEXEC (Linux 5.11)
#endif

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "system/child_environment.hpp"
#include "system/tool_paths.hpp"

namespace convlab::grader {

std::vector<std::string> at_idle_priority(std::vector<std::string> argv) {
  static const std::optional<std::filesystem::path> chrt = find_tool("chrt");
  if (chrt) argv.insert(argv.begin(), {chrt->string(), "--idle", "0"});
  return argv;
}

std::string last_lines(const std::string& text, std::size_t n) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  std::string out;
  for (std::size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i) out += lines[i] + "\n";
  return out;
}

std::string ProcessResult::describe() const {
  if (spawn_failed) return "could not start: " + output;
  if (timed_out) return fmt::format("timed out after {:.0f} s and was killed", seconds);
  if (signaled) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exit {}", exit_code);
}

ProcessResult run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                          const std::string& working_dir) {
  return run_process(argv, timeout, working_dir, LineDialog{});
}

namespace {

// Feeds complete lines of the child's output to the dialog and sends its answers.
class DialogFeed {
 public:
  DialogFeed(const LineDialog& dialog, int socket) : dialog_(dialog), socket_(socket) {}
  void add(const char* data, std::size_t n) {
    if (!dialog_) return;
    pending_.append(data, n);
    std::size_t start = 0;
    for (std::size_t nl; (nl = pending_.find('\n', start)) != std::string::npos; start = nl + 1) {
      const std::string answer = dialog_(std::string_view(pending_).substr(start, nl - start));
      if (!answer.empty()) send_all(answer);
    }
    pending_.erase(0, start);
    if (pending_.size() > 65536) pending_.clear();  // a line that long is no line of the dialog
  }

 private:
  void send_all(const std::string& text) const {
    for (std::size_t sent = 0; sent < text.size();) {
      const ssize_t n = send(socket_, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return;  // the child closed its stdin or exited: it will not read the answer
      sent += static_cast<std::size_t>(n);
    }
  }
  const LineDialog& dialog_;
  int socket_;
  std::string pending_;
};

// Reads the child's output until it closes it or the deadline passes (then kills the group).
void pump_output(int fd, pid_t pid, std::chrono::steady_clock::time_point deadline, ProcessResult& result,
                 DialogFeed& feed) {
  char buf[65536];
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      kill(-pid, SIGKILL);
      result.timed_out = true;
      return;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    pollfd pfd{fd, POLLIN, 0};
    const int ready = poll(&pfd, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) return;
    if (ready <= 0) continue;
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return;  // EOF: the child closed its output (it exited)
    result.output.append(buf, static_cast<std::size_t>(n));
    feed.add(buf, static_cast<std::size_t>(n));
  }
}

double cpu_seconds(const rusage& u) {
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// Waits for the child: after EOF it may still be running briefly (or forever, if it closed its
// output). Returns its wait status; its CPU time goes into the result (wait4's rusage counts the
// descendants it waited for: a build's compilers, a sandbox's child).
int reap(pid_t pid, std::chrono::steady_clock::time_point deadline, ProcessResult& result) {
  int status = 0;
  rusage usage{};
  for (;;) {
    const pid_t w = wait4(pid, &status, WNOHANG, &usage);
    if (w == pid) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(-pid, SIGKILL);
      result.timed_out = true;
      wait4(pid, &status, 0, &usage);
      break;
    }
    usleep(2000);
  }
  result.cpu_seconds = cpu_seconds(usage);
  return status;
}

// The grader's open descriptors, listed before a fork (the child may not allocate): the
// fallback of close_range where the kernel lacks CLOSE_RANGE_CLOEXEC.
std::vector<int> open_descriptors() {
  std::vector<int> fds;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    const std::string name = e.path().filename().string();
    if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos) fds.push_back(std::stoi(name));
  }
  return fds;
}

// In the child, between fork and exec: every descriptor above stderr closes at exec. The
// grader's other threads open files without O_CLOEXEC (std::ofstream, std::filesystem::copy_file
// do); a child that kept one could write into another student's executable or report, and while
// it ran that executable could not be started (ETXTBSY). Async-signal-safe calls only.
void close_inherited_at_exec(const std::vector<int>& listed) {
#if defined(SYS_close_range) && defined(CLOSE_RANGE_CLOEXEC)
  if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
#endif
  for (const int fd : listed) {
    if (fd > STDERR_FILENO) fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
}

// A started child: its pid, the read end of its output, the grader's end of its stdin socket
// (-1 without a dialog); or, pid -1, why it did not start (exec_errno: execve's error).
struct Spawned {
  pid_t pid = -1;
  int output = -1;
  int input = -1;
  int exec_errno = 0;
  std::string error;
};

Spawned spawn(const std::vector<std::string>& argv, const std::string& working_dir, bool with_dialog) {
  Spawned child;
  int out_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    child.error = std::strerror(errno);
    return child;
  }
  // A second pipe reports an exec failure to the parent (it closes silently on success).
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    child.error = std::strerror(errno);
    close(out_pipe[0]);
    close(out_pipe[1]);
    return child;
  }
  // The dialog's channel to the child's stdin; without a dialog, stdin is /dev/null.
  int in_socket[2] = {-1, -1};
  if (with_dialog && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_socket) != 0) {
    child.error = std::strerror(errno);
    close(out_pipe[0]);
    close(out_pipe[1]);
    close(err_pipe[0]);
    close(err_pipe[1]);
    return child;
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The environment and the descriptor list are built here, not in the child: after fork only
  // exec-safe calls.
  const std::vector<std::string> environment = child_environment();
  std::vector<char*> envp;
  for (const std::string& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const std::vector<int> listed = open_descriptors();

  const pid_t pid = fork();
  const int fork_errno = errno;
  if (pid == 0) {
    setpgid(0, 0);  // own group: a timeout kills the lab and anything it started
    if (in_socket[1] >= 0) {
      dup2(in_socket[1], STDIN_FILENO);
    } else {
      const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
      dup2(devnull, STDIN_FILENO);  // the copy on stdin keeps no O_CLOEXEC
    }
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(out_pipe[1], STDERR_FILENO);
    close_inherited_at_exec(listed);
    if (!working_dir.empty() && chdir(working_dir.c_str()) != 0) {
      const int e = errno;
      ssize_t ignored = write(err_pipe[1], &e, sizeof e);
      (void)ignored;
      _exit(127);
    }
    execve(args[0], args.data(), envp.data());
    const int e = errno;
    ssize_t ignored = write(err_pipe[1], &e, sizeof e);
    (void)ignored;
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (in_socket[1] >= 0) close(in_socket[1]);
  if (pid < 0) {
    child.error = std::strerror(fork_errno);
    if (in_socket[0] >= 0) close(in_socket[0]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    return child;
  }
  int exec_errno = 0;
  const bool failed = read(err_pipe[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
  close(err_pipe[0]);
  if (failed) {
    if (in_socket[0] >= 0) close(in_socket[0]);
    close(out_pipe[0]);
    waitpid(pid, nullptr, 0);
    child.exec_errno = exec_errno;
    child.error = fmt::format("{}: {}", argv.empty() ? "" : argv[0], std::strerror(exec_errno));
    return child;
  }
  child.pid = pid;
  child.output = out_pipe[0];
  child.input = in_socket[0];
  return child;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                          const std::string& working_dir, const LineDialog& dialog) {
  ProcessResult result;
  const auto start = std::chrono::steady_clock::now();
  // ETXTBSY is a moment's: a sibling forked by another thread holds the writer's descriptor from
  // its fork to its exec. Tried again for up to about a second; a program still open for writing
  // after that is reported.
  Spawned child = spawn(argv, working_dir, static_cast<bool>(dialog));
  for (int wait_ms = 5; child.exec_errno == ETXTBSY && wait_ms <= 640; wait_ms *= 2) {
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
    child = spawn(argv, working_dir, static_cast<bool>(dialog));
  }
  if (child.pid < 0) {
    result.spawn_failed = true;
    result.output = child.error;
    return result;
  }
  const pid_t pid = child.pid;
  DialogFeed feed(dialog, child.input);

  const auto deadline = start + timeout;
  pump_output(child.output, pid, deadline, result, feed);
  close(child.output);
  if (child.input >= 0) close(child.input);
  const int status = reap(pid, deadline, result);
  kill(-pid, SIGKILL);  // anything the child left behind in its group
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result.timed_out) {
    if (WIFSIGNALED(status)) {
      result.signaled = true;
      result.signal = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
      result.exit_code = WEXITSTATUS(status);
    }
  }
  return result;
}

}  // namespace convlab::grader
