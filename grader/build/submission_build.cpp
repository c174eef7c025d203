#include "build/submission_build.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "convlab/atomic_file.hpp"
#include "convlab/autotune/kernel_source.hpp"
#include "convlab/contained_paths.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/limits.hpp"
#include "build/compile_sandbox.hpp"
#include "build/host_code_check.hpp"
#include "run/reasons.hpp"
#include "system/subprocess.hpp"
#include "system/tool_paths.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// A lab's compile is killed after this: a template that never finishes instantiating.
constexpr std::chrono::seconds kBuildTimeout{900};

// A file of the submission: a regular file (not a FIFO a student planted) of bounded size.
std::string read_file(const fs::path& p) { return convlab::read_file(p, kMaxTextFileBytes); }

bool skipped_name(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.empty() || name[0] == '.' || name.rfind("build", 0) == 0;
}


std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (std::size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

// The files of `src` that staging copies. Only files inside `src`: a student's link out of the
// submission (to the hidden datasets, to a home folder) would otherwise be read by the grader
// itself, outside the sandbox, and copied into the build.
std::vector<fs::path> staged_files(const fs::path& src) {
  return files_inside(src, [](const fs::path& rel) { return skipped_name(rel.filename()); });
}

}  // namespace

void copy_precompiled(const fs::path& from, const fs::path& to) {
  fs::remove_all(to);  // never a previous submission's cubins
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(from, ec))) return;
  fs::create_directories(to);
  for (fs::directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec)) {
    // The folder is the build's own (lab07_precompile's), but only its plain files travel:
    // a link would be followed by the copy.
    if (fs::is_regular_file(it->symlink_status())) fs::copy_file(it->path(), to / it->path().filename());
  }
}

void sync_folder(const fs::path& src, const fs::path& dest) {
  fs::create_directories(dest);
  const std::vector<fs::path> files = staged_files(src);
  const std::set<fs::path> wanted(files.begin(), files.end());
  for (const fs::path& rel : files) {
    const fs::path target = dest / rel;
    const std::string bytes = read_file(src / rel);
    std::error_code ec;
    if (fs::is_regular_file(fs::symlink_status(target, ec)) && read_file(target) == bytes) continue;  // keep its time stamp
    fs::create_directories(target.parent_path());
    write_file_atomically(target, bytes);
  }
  std::vector<fs::path> stale;
  for (auto it = fs::recursive_directory_iterator(dest); it != fs::recursive_directory_iterator(); ++it) {
    if (!it->is_directory() && !wanted.count(fs::relative(it->path(), dest))) stale.push_back(it->path());
  }
  for (const fs::path& p : stale) fs::remove(p);
}

std::string first_compiler_errors(const std::string& log, const std::string& staging_prefix, std::size_t max_lines) {
  std::vector<std::string> lines;
  std::istringstream in(replace_all(log, staging_prefix, ""));
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  auto is_error = [](const std::string& l) {
    return l.find("error:") != std::string::npos || l.find("): error") != std::string::npos ||
           l.find("error :") != std::string::npos || l.find("undefined reference") != std::string::npos;
  };
  auto is_noise = [](const std::string& l) {
    return l.rfind("FAILED:", 0) == 0 || l.rfind("ninja:", 0) == 0 || l.rfind("[", 0) == 0 ||
           l.find("/nvcc ") != std::string::npos || l.find("/c++ ") != std::string::npos;
  };
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lines.size() && out.size() < max_lines; ++i) {
    if (!is_error(lines[i]) || is_noise(lines[i])) continue;
    out.push_back(lines[i]);
    // The compiler's context: the source line and the caret under it.
    for (std::size_t k = i + 1; k < lines.size() && k <= i + 2 && out.size() < max_lines; ++k) {
      if (is_error(lines[k]) || is_noise(lines[k]) || lines[k].empty()) break;
      out.push_back(lines[k]);
      i = k;
    }
  }
  if (out.empty()) return last_lines(replace_all(log, staging_prefix, ""), 10);
  std::string text;
  for (const std::string& l : out) text += l + "\n";
  return text;
}

SubmissionBuilder::SubmissionBuilder(BuildSettings settings, std::vector<LabInfo> all_labs)
    : settings_(std::move(settings)), all_labs_(std::move(all_labs)) {}

void SubmissionBuilder::stage(const fs::path& submission, const std::vector<LabInfo>& graded) {
  submission_ = submission;
  const fs::path staging = settings_.build_dir / "submission";
  link_errors_.clear();
  for (const LabInfo& lab : all_labs_) {
    const bool graded_lab = std::any_of(graded.begin(), graded.end(), [&](const LabInfo& g) { return g.number == lab.number; });
    if (graded_lab) {
      try {
        // A link out of the submission (the lab's folder itself, or a file in it) is named
        // before a missing file: sync_folder walks the folder and checks its links.
        if (std::error_code ec; fs::symlink_status(submission / lab.folder, ec).type() != fs::file_type::not_found) {
          (void)resolve_inside(submission, submission / lab.folder);
          if (missing_files(submission, lab).empty()) {
            sync_folder(submission / lab.folder, staging / lab.folder);
            continue;
          }
          (void)staged_files(submission / lab.folder);
        }
      } catch (const PathError& e) {
        link_errors_[lab.number] = e.what();  // the lab scores as one that does not build
      }
    }
    sync_folder(settings_.source_dir / "labs" / lab.folder, staging / lab.folder);  // the stub: configures, is not built
  }
}

bool SubmissionBuilder::configure(std::string* error) {
  if (configured_ || !configure_error_.empty()) {
    *error = configure_error_;
    return configured_;
  }
  // The harness first, shared and built once: if it does not build, no lab is to blame.
  if (!settings_.harness->ensure_built(&configure_error_)) {
    *error = configure_error_;
    return false;
  }
  const fs::path build = settings_.build_dir;
  fs::create_directories(build);
  std::vector<std::string> argv = grader_configure_command(settings_.source_dir, build, settings_.cuda_architectures);
  argv.insert(argv.end(), {"-DCONVLAB_LABS_DIR=" + (build / "submission").string(),
                           "-DCONVLAB_PREBUILT_HARNESS=" + settings_.harness->dir().string()});
  if (settings_.progress) settings_.progress(fmt::format("configuring the submission build in {}", build.string()));
  const ProcessResult conf = run_process(argv, 600s);
  if (conf.exit_code != 0) {
    configure_error_ = fmt::format("cmake could not configure the submission build ({}):\n{}", conf.describe(),
                                   last_lines(conf.output, 15));
    *error = configure_error_;
    return false;
  }
  configured_ = true;
  return true;
}

std::vector<std::string> SubmissionBuilder::build_command(const std::vector<std::string>& targets,
                                                          bool keep_going) const {
  std::vector<std::string> argv = {cmake_program().string(), "--build", settings_.build_dir.string(), "--target"};
  argv.insert(argv.end(), targets.begin(), targets.end());
  argv.insert(argv.end(), {"-j", std::to_string(compile_jobs(settings_.jobs))});
  if (keep_going) {
    // The native tool's own flag: ninja stops after this many failures (0: never); make keeps
    // going with -k alone.
    if (fs::exists(settings_.build_dir / "build.ninja")) {
      argv.insert(argv.end(), {"--", "-k", "0"});
    } else {
      argv.insert(argv.end(), {"--", "-k"});
    }
  }
  if (!settings_.sandbox) return argv;
  std::vector<fs::path> programs = {cmake_program()};
  if (const auto ninja = find_tool("ninja")) programs.push_back(*ninja);
  if (const auto nvcc = cuda_compiler()) programs.push_back(*nvcc);
  return sandbox_argv(
      compile_sandbox(*settings_.sandbox, settings_.source_dir, settings_.harness->dir(), settings_.build_dir, programs),
      argv);
}

std::optional<fs::path> SubmissionBuilder::take_executable(const LabInfo& lab, const fs::path& exe_dir) const {
  const fs::path built = settings_.build_dir / "bin" / lab.id();
  if (!fs::exists(built)) return std::nullopt;
  fs::create_directories(exe_dir);
  const fs::path exe = exe_dir / lab.id();
  fs::copy_file(built, exe, fs::copy_options::overwrite_existing);
  // Lab 07's copy of its kernel source, which it compiles configurations from at run time, and
  // the cubins the build compiled from it ahead.
  if (const fs::path kernel = built.string() + lab07::kKernelCopySuffix; fs::is_regular_file(kernel)) {
    fs::copy_file(kernel, exe.string() + lab07::kKernelCopySuffix, fs::copy_options::overwrite_existing);
  }
  copy_precompiled(built.string() + lab07::kPrecompiledSuffix, exe.string() + lab07::kPrecompiledSuffix);
  return exe;
}

std::optional<LabExecutable> SubmissionBuilder::unbuildable(const LabInfo& lab) {
  LabExecutable result;
  if (const auto link = link_errors_.find(lab.number); link != link_errors_.end()) {
    result.build_reasons = {reason::kLinkOutside};
    result.build_message = link->second;
    return result;
  }
  const std::vector<std::string> missing = missing_files(submission_, lab);
  if (!missing.empty()) {
    result.build_reasons = {reason::kMissingFile};
    std::string list;
    for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
    result.build_message = fmt::format("missing file{}: {} (a submission holds the same files as labs/)",
                                       missing.size() == 1 ? "" : "s", list);
    return result;
  }
  std::string error;
  if (!configure(&error)) {
    result.could_not_grade = error;
    return result;
  }
  return std::nullopt;
}

LabExecutable SubmissionBuilder::build(const LabInfo& lab, const fs::path& exe_dir) {
  if (std::optional<LabExecutable> cannot = unbuildable(lab)) return *cannot;
  LabExecutable result;
  fs::remove(settings_.build_dir / "bin" / lab.id());  // never grade an executable left by the previous submission
  if (settings_.progress) settings_.progress(fmt::format("{}: compiling {}", lab.id(), (submission_ / lab.folder).string()));
  const ProcessResult p = run_process(build_command({lab.id()}, false), kBuildTimeout);
  const std::optional<fs::path> exe = p.exit_code == 0 ? take_executable(lab, exe_dir) : std::nullopt;
  if (!exe) {
    result.build_reasons = {reason::kCompileError};
    result.build_message = fmt::format("does not compile ({}):\n{}", p.describe(),
                                       first_compiler_errors(p.output, (settings_.build_dir / "submission").string() + "/"));
    return result;
  }
  result.exe = exe;
  check_host_code_of(lab, result);
  return result;
}

void SubmissionBuilder::check_host_code_of(const LabInfo& lab, LabExecutable& built) {
  if (!built.exe || !settings_.check_host_code) return;
  // The tools read the submission's objects inside the compile sandbox, as its compiler did.
  std::vector<fs::path> programs;
  for (const char* tool : {"nm", "objdump", "c++filt"}) {
    if (const auto p = find_tool(tool)) programs.push_back(*p);
  }
  const ToolRunner run = [&](const std::vector<std::string>& argv, std::string* error) {
    std::vector<std::string> resolved = argv;
    if (const auto p = find_tool(argv.front())) resolved.front() = p->string();
    if (settings_.sandbox) {
      resolved = sandbox_argv(compile_sandbox(*settings_.sandbox, settings_.source_dir, settings_.harness->dir(),
                                              settings_.build_dir, programs),
                              resolved);
    }
    const ProcessResult p = run_process(resolved, 120s);
    if (p.exit_code != 0 && error->empty()) *error = fmt::format("{} {}: {}", argv.front(), p.describe(), last_lines(p.output, 3));
    return p.output;
  };
  if (!harness_symbols_) harness_symbols_ = harness_symbols(settings_.harness->dir(), run);
  const HostCodeReport report = check_host_code(lab_objects(settings_.build_dir, lab.id()), *harness_symbols_, run);
  if (report.clean()) return;
  built.exe.reset();
  built.build_reasons = {reason::kForbiddenHostCode};
  built.build_message = "forbidden host code: the lab's host code may call what a lab needs and nothing else "
                        "(grader/README.md, \"What a timed run cannot fake\"):\n" +
                        report.describe();
}

std::vector<LabExecutable> SubmissionBuilder::build_all(const std::vector<LabInfo>& labs, const fs::path& exe_dir) {
  std::vector<LabExecutable> out(labs.size());
  std::vector<std::size_t> buildable;
  std::vector<std::string> targets;
  for (std::size_t i = 0; i < labs.size(); ++i) {
    if (std::optional<LabExecutable> cannot = unbuildable(labs[i])) {
      out[i] = std::move(*cannot);
      continue;
    }
    fs::remove(settings_.build_dir / "bin" / labs[i].id());  // never grade an executable left by the previous submission
    buildable.push_back(i);
    targets.push_back(labs[i].id());
  }
  if (targets.empty()) return out;
  if (settings_.progress) settings_.progress(fmt::format("compiling {} of {}", fmt::join(targets, ", "), submission_.string()));
  // Lab 07 alone compiles for about 23 s (an H200 machine's 16 cores): side by side, the other
  // labs finish meanwhile.
  const ProcessResult together = run_process(build_command(targets, true), kBuildTimeout);
  for (std::size_t i : buildable) {
    if (together.exit_code == 0) {
      if (std::optional<fs::path> exe = take_executable(labs[i], exe_dir)) {
        out[i].exe = std::move(exe);
        check_host_code_of(labs[i], out[i]);
        continue;
      }
    }
    if (together.timed_out) {
      // Building it again would wait as long again: the labs left unbuilt share the blame.
      out[i].build_reasons = {reason::kCompileError};
      out[i].build_message = fmt::format("does not compile: the build of the submission's labs {}", together.describe());
    } else {
      // Something failed, and an executable left behind may be a failed step's (lab 07's
      // precompilation runs after its link): each lab again, alone. The compiled objects of
      // those that built are kept, and a lab that failed gets a message that is its own.
      out[i] = build(labs[i], exe_dir);
    }
  }
  return out;
}

}  // namespace convlab::grader
