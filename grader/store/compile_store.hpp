// A lab compiled once per class when its files are byte-identical to another student's: a
// content-addressed store of compile results, kept by the grader outside every sandbox.
//
// Why sharing is safe. A lab's compile is a function of its inputs only: the lab folder's files,
// the harness it links, the project files its compile reads, the build rules (compilers, flags,
// architectures) and the tools' versions, lab 07's graded shapes, the sandbox and host-code
// settings. The key is the SHA-256 of all of them (the lab's files by path and bytes, length-
// prefixed, the rest through LabCompiler::context()), so two compiles share a key only when
// every input is the same. What the store holds under a key comes only from the grader's own
// compile of exactly those inputs: the bytes it read from the student's folder are the bytes it
// wrote into a compile folder restored to the grader's configured copy, compiled in a sandbox
// that shows that one folder writable and nothing of the store, one lab per sandbox; the grader
// then copies out plain files only and publishes them itself. A student can therefore put into
// the store nothing but the result of compiling their own bytes, and a student whose bytes are
// the same receives what their own compile would have given. A compile that failed (a compile
// error, a timeout, the grader's own failure) is not stored: it runs again for the next student.
//
// ccache is no substitute: it would run inside the student's sandbox, writable by the compile it
// caches, so one student's compile could leave an object for another's key; and it keys single
// compiler calls, not the executable, lab 07's precompiled cubins and the host-code verdict that
// grading uses.
#pragma once

#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "build/lab_compile.hpp"

namespace convlab::grader {

/// Where a lab's executable came from.
struct StoredCompile {
  LabExecutable exe;          ///< in the caller's folder
  bool shared = false;        ///< copied from the store: no compile ran for this student
  std::string compiled_for;   ///< the submission whose compile made it (this one when !shared)
  double core_s = 0;          ///< CPU seconds of the compile (0 when shared)
};

/// The compiles of a grading run (and of later runs that keep --build-dir), by key.
class CompileStore {
 public:
  /// @param dir the store's folder: the grader's, inside no compile folder and shown to no sandbox
  explicit CompileStore(std::filesystem::path dir);

  /// The key of `lab` under `context` (LabCompiler::context()).
  std::string key(const std::string& context, const StagedLab& lab) const;

  /// The lab's executable in `out_dir`: copied from the store when a compile of `key` is done,
  /// after waiting for it when it is under way; else `compile` runs (it fills `out_dir` and says
  /// what it spent) and, when it built an executable or refused one for its host code, its
  /// result is stored for the next student. One compile per key at a time. `not_compiling`, if
  /// given, is called before waiting or copying (the caller's job then needs no cores).
  StoredCompile get(const std::string& key, const std::string& submission, const std::filesystem::path& out_dir,
                    const std::function<LabExecutable(double* core_s)>& compile,
                    const std::function<void()>& not_compiling = {});

  /// Compiles this store ran through get() so far.
  [[nodiscard]] int compiles();

 private:
  struct Entry {
    LabExecutable exe;           ///< exe relative to the entry's files/ folder
    std::string compiled_for;
  };
  /// The entry of `key` published by an earlier run in this folder, if any.
  std::optional<Entry> load(const std::string& key) const;
  void publish(const std::string& key, const std::string& submission, const std::filesystem::path& out_dir,
               const LabExecutable& exe);
  LabExecutable take(const std::string& key, const Entry& e, const std::filesystem::path& out_dir) const;

  std::filesystem::path dir_;
  std::mutex mutex_;
  std::condition_variable done_;
  std::map<std::string, Entry> entries_;
  std::set<std::string> in_flight_;
  int compiles_ = 0;
};

}  // namespace convlab::grader
