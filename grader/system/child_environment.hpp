// The environment of the grader's child processes, per thread: what lets one grader process
// drive several GPUs at once. A GPU worker of `grader batch` is a thread; every child it starts
// (the lab runner, compute-sanitizer, ncu) must see only that worker's GPU, which CUDA reads
// from CUDA_VISIBLE_DEVICES in the child's environment. setenv() would change it for every
// thread, so the override lives in a thread-local table that run_process() merges into the
// environment it hands to exec, and the grader's own environment never changes.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace convlab::grader {

/// While it lives, children started by run_process() on this thread get `overrides` (NAME ->
/// value) on top of the grader's environment. Scopes nest; the inner one wins.
class ScopedChildEnvironment {
 public:
  explicit ScopedChildEnvironment(std::map<std::string, std::string> overrides);
  ~ScopedChildEnvironment();
  ScopedChildEnvironment(const ScopedChildEnvironment&) = delete;
  ScopedChildEnvironment& operator=(const ScopedChildEnvironment&) = delete;

 private:
  std::map<std::string, std::string> previous_;
};

/// The overrides in force on this thread.
const std::map<std::string, std::string>& child_environment_overrides();

/// The grader's environment with this thread's overrides applied, as "NAME=value" strings
/// for execve (built before fork: the child must not allocate).
std::vector<std::string> child_environment();

}  // namespace convlab::grader
