// Building a student's submission out of tree with the project's own CMake: the submission's
// lab folders are copied into a staging folder that CONVLAB_LABS_DIR points at, a labs-only
// build folder is configured once against the harness built for the whole run
// (build/harness_build.hpp), and a submission's labs are compiled together, in one build that
// keeps going past a lab that does not compile; such a lab is then built once more on its own,
// so that it fails alone, with the compiler's message for it only.
//
// Configuring compiles nothing and runs outside the sandbox; each lab's compile reads the
// student's files, and runs inside it (build/compile_sandbox.hpp: the project's build inputs
// and the harness read-only, the build folder the one writable folder; never datasets/,
// solutions/ or another submission).
//
// One build folder serves a whole batch (or one build worker's share of a class): only the
// staged lab sources change from one submission to the next, and only files whose bytes
// changed are rewritten, so an unchanged lab is not recompiled.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
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

/// How submissions are built.
struct BuildSettings {
  std::filesystem::path source_dir;   ///< the project: CMakeLists.txt, common/, labs/
  std::filesystem::path build_dir;    ///< the out-of-tree build folder of the labs (kept, reused)
  std::shared_ptr<HarnessBuild> harness;  ///< what the labs link: built once, shared by every builder of a run
  std::string cuda_architectures;     ///< e.g. "90": the GPU's, from the device query
  int jobs = 0;                       ///< parallel compile jobs (0: one per core)
  std::function<void(const std::string&)> progress;
  /// The lab runs' sandbox (run/lab_sandbox.hpp): each lab's compile runs in its compile
  /// variant. nullopt: unsandboxed (--no-sandbox).
  std::optional<SandboxSpec> sandbox;
  bool check_host_code = true;  ///< refuse labs whose host code breaks build/host_code_rules.hpp
};

/// Builds submissions one after another in one build folder.
class SubmissionBuilder {
 public:
  /// @param all_labs every lab of the project (configuring needs every lab folder present).
  SubmissionBuilder(BuildSettings settings, std::vector<LabInfo> all_labs);

  /// Stages `submission`: the labs in `graded` come from it (when it has all their files),
  /// every other lab folder from the project's stubs.
  void stage(const std::filesystem::path& submission, const std::vector<LabInfo>& graded);

  /// Builds the staged labs `labs` at once (their compilations run side by side, up to
  /// BuildSettings::jobs) and copies the executables into `exe_dir`; a lab that failed is built
  /// again alone for its own message. One result per lab, in the order of `labs`.
  std::vector<LabExecutable> build_all(const std::vector<LabInfo>& labs, const std::filesystem::path& exe_dir);

 private:
  bool configure(std::string* error);
  /// Builds one staged lab alone and copies its executable into `exe_dir`.
  LabExecutable build(const LabInfo& lab, const std::filesystem::path& exe_dir);
  /// `cmake --build` of `targets`, sandboxed when the settings say so; `keep_going`: past failures.
  std::vector<std::string> build_command(const std::vector<std::string>& targets, bool keep_going) const;
  /// What the build of `lab` left in the build folder, copied into `exe_dir` (nullopt: nothing).
  std::optional<std::filesystem::path> take_executable(const LabInfo& lab, const std::filesystem::path& exe_dir) const;
  /// A lab that cannot be built: its missing files, or the harness's or the configure's failure.
  std::optional<LabExecutable> unbuildable(const LabInfo& lab);
  /// Refuses a built lab whose host code calls or defines what host_code_rules.hpp refuses:
  /// its executable is dropped, and the lab scores as one that does not build.
  void check_host_code_of(const LabInfo& lab, LabExecutable& built);

  BuildSettings settings_;
  std::vector<LabInfo> all_labs_;
  std::optional<std::set<std::string>> harness_symbols_;  // read once, on the first check
  std::filesystem::path submission_;
  bool configured_ = false;
  std::string configure_error_;
  std::map<std::string, std::string> link_errors_;  // lab number -> the staged submission's link out of it
};

/// The compiler's first errors in a build log (at most `max_lines` lines), with the staging
/// folder's path shortened to the submission's own ("01-naive/naive.cu(12): error: ...");
/// the log's last lines if no error line is found.
std::string first_compiler_errors(const std::string& log, const std::string& staging_prefix, std::size_t max_lines = 12);

/// Makes `dest` hold exactly the files of `src` (recursively; hidden files and build folders
/// left out), rewriting only files whose bytes differ. A link in `src` is read only when it
/// leads to a file inside `src` (contained_paths.hpp). @throws PathError naming a link that
/// leads out of `src`, dangles or loops (nothing of `src` is copied then)
void sync_folder(const std::filesystem::path& src, const std::filesystem::path& dest);

/// Replaces `to` with the plain files of the folder `from` (lab 07's precompiled cubins, beside
/// the built executable); removes `to` when `from` is not a folder.
void copy_precompiled(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace convlab::grader
