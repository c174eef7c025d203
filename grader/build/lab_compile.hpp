// One lab of one submission, compiled with the project's own CMake in a folder of its own.
//
// A student's lab is read once into memory (stage_lab: every file of the lab folder, links
// followed only inside the submission), and those bytes are what the compile gets and what the
// shared compile store's key names (store/compile_store.hpp). Each compile then runs in a
// compile folder from a pool: a labs-only build folder configured once against the harness
// built for the whole run (build/harness_build.hpp), and restored before every compile to the
// copy the grader took right after configuring it. Nothing a previous compile wrote there — an
// object, a build rule, a log entry, another student's source — survives into the next one,
// and each compile is one lab in one sandbox (build/compile_sandbox.hpp: the folder the one
// writable place), so a lab's compile cannot touch another lab's output either. That is what
// makes an executable safe to share between students whose lab folders are byte-identical.
//
// Configuring compiles nothing and runs outside the sandbox; the compile, lab 07's precompiled
// instantiations (lab07_precompile, run by the grader beside the compile) and the check of the
// lab's host code read the student's files, and run inside it.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "build/harness_build.hpp"
#include "build/lab_folders.hpp"
#include "system/sandbox.hpp"

namespace convlab::grader {

/// A lab's executable in one submission, or why there is none.
struct LabExecutable {
  std::optional<std::filesystem::path> exe;  ///< nullopt: not built
  std::vector<std::string> build_reasons;    ///< "missing file", "compile error"
  std::string build_message;                 ///< the missing files, the compiler's first errors
  std::string could_not_grade;               ///< the grader's own failure (a build that could not start)
  std::vector<std::string> notes;            ///< shown with the lab (a stale executable, ...)
};

/// A lab's files as the grader read them: path relative to the lab folder -> bytes.
using LabFiles = std::map<std::string, std::string>;

/// One lab of one submission, read for its compile.
struct StagedLab {
  LabInfo lab;
  LabFiles files;                            ///< what the compile gets, byte for byte
  std::optional<LabExecutable> unbuildable;  ///< a missing file or a link out: nothing to compile
};

/// Reads `submission/<lab.folder>/`: every file but hidden ones and build folders, a link read
/// only when it leads to a file inside the submission (contained_paths.hpp). A link out, a
/// dangling link or a loop makes the lab unbuildable ("link out of the submission", before a
/// missing file); so does a missing lab file ("missing file").
StagedLab stage_lab(const std::filesystem::path& submission, const LabInfo& lab);

/// Makes `dest` hold exactly `files`. @throws std::invalid_argument for a path that is absolute
/// or climbs out of `dest` (stage_lab never makes one)
void write_lab_files(const LabFiles& files, const std::filesystem::path& dest);

/// How labs are compiled.
struct BuildSettings {
  std::filesystem::path source_dir;   ///< the project: CMakeLists.txt, common/, labs/
  std::filesystem::path build_dir;    ///< the compile folders (compile-N/ and their configured copies)
  std::shared_ptr<HarnessBuild> harness;  ///< what the labs link: built once, shared by every compile of a run
  std::string cuda_architectures;     ///< e.g. "90": the GPU's, from the device query
  std::function<void(const std::string&)> progress;
  /// The lab runs' sandbox (run/lab_sandbox.hpp): each compile runs in its compile variant.
  /// nullopt: unsandboxed (--no-sandbox).
  std::optional<SandboxSpec> sandbox;
  bool check_host_code = true;  ///< refuse labs whose host code breaks build/host_code_rules.hpp
  /// lab07_precompile --shapes: the conv2d cases grading runs (MASK:WIDTH,...), so that only the
  /// instantiations those runs compile are compiled ahead; empty: every instantiation.
  std::string lab07_shapes;
};

/// Compiles labs, each in a compile folder of its own; safe to call from many threads at once.
class LabCompiler {
 public:
  /// @param all_labs every lab of the project (configuring needs every lab folder present).
  LabCompiler(BuildSettings settings, std::vector<LabInfo> all_labs);
  ~LabCompiler();

  /// Builds the harness and configures the first compile folder, once; false: `*error` says
  /// why no lab can be compiled (every later call returns the same).
  bool prepare(std::string* error);
  /// A digest of everything a compile reads besides the lab's own files: the harness's files,
  /// the compile folder's build rules (compiler paths, flags, architectures), the compilers'
  /// versions, lab 07's shapes, the sandbox and host-code settings. Part of every store key.
  /// @throws std::runtime_error before prepare() succeeded
  std::string context();
  /// How many cores a compile of `lab` keeps busy: one per translation unit, and for lab 07
  /// its precompiled instantiations' threads.
  [[nodiscard]] int useful_cores(const StagedLab& lab) const;
  /// Compiles `lab` with `cores` cores in a restored compile folder, and copies what grading
  /// runs (the executable; for lab 07 its kernel copy and precompiled cubins) into `out_dir`;
  /// `*core_s` gets the CPU seconds of the compile and the host-code check.
  LabExecutable compile(const StagedLab& lab, int cores, const std::filesystem::path& out_dir, double* core_s);
  /// CPU seconds spent configuring compile folders so far.
  [[nodiscard]] double setup_core_s();

 private:
  struct Folder {
    std::filesystem::path dir;        ///< where a compile runs
    std::filesystem::path pristine;   ///< the grader's copy of it, taken right after configuring
  };
  /// A free compile folder, configured first when none is free. nullopt: `*error` says why.
  std::optional<Folder> acquire(std::string* error);
  void release(Folder folder);
  std::optional<Folder> configure_folder(std::string* error);
  /// The folder's build rules (build.ninja, rules.ninja) with its own path replaced: the same
  /// text for every compile folder of a run, or the store's keys would not name the compile.
  std::string build_rules(const Folder& folder) const;
  /// `cmake --build` of `targets` in `folder` with `jobs` jobs, sandboxed when the settings say so.
  std::vector<std::string> build_command(const Folder& folder, const std::string& target, int jobs) const;
  /// lab07_precompile of the staged kernel into bin/lab07.jit-cache with `jobs` threads.
  std::vector<std::string> precompile_command(const Folder& folder, const StagedLab& lab, int jobs) const;
  /// `argv` inside the compile sandbox of `folder` (as it is without a sandbox), at idle priority.
  std::vector<std::string> sandboxed(const Folder& folder, std::vector<std::string> argv,
                                     const std::vector<std::filesystem::path>& programs) const;
  /// Runs the compile (and lab 07's precompilation beside it); the combined outcome.
  LabExecutable run_compile(const Folder& folder, const StagedLab& lab, int cores, const std::filesystem::path& out_dir,
                            double* core_s);
  /// What the build left in `folder`, copied into `out_dir` (nullopt: nothing, or not a plain file).
  std::optional<std::filesystem::path> take_executable(const Folder& folder, const LabInfo& lab,
                                                       const std::filesystem::path& out_dir) const;
  /// Refuses a built lab whose host code calls or defines what host_code_rules.hpp refuses.
  void check_host_code_of(const Folder& folder, const LabInfo& lab, LabExecutable& built, double* core_s);

  BuildSettings settings_;
  std::vector<LabInfo> all_labs_;
  std::once_flag prepared_;
  std::string prepare_error_;
  std::mutex mutex_;                          // guards what follows
  std::vector<Folder> free_;
  int folders_made_ = 0;
  double setup_core_s_ = 0;
  std::string context_;
  std::string rules_;  ///< build_rules() of the first folder
  std::optional<std::set<std::string>> harness_symbols_;
};

/// The compiler's first errors in a build log (at most `max_lines` lines), with the staging
/// folder's path shortened to the submission's own ("01-naive/naive.cu(12): error: ...");
/// the log's last lines if no error line is found.
std::string first_compiler_errors(const std::string& log, const std::string& staging_prefix, std::size_t max_lines = 12);

/// Copies the folder `from` into `to` as plain files and folders only (a link is left out, not
/// followed): for folders the grader made or took out of a compile folder. The copy shares no
/// inode with the original, so writing into one leaves the other as it was; each file keeps its
/// modification time, so a restored build folder is as up to date for Ninja as the original.
void copy_plain_tree(const std::filesystem::path& from, const std::filesystem::path& to);

/// Replaces `to` with the plain files of the folder `from` (lab 07's precompiled cubins, beside
/// the built executable); removes `to` when `from` is not a folder.
void copy_precompiled(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace convlab::grader
