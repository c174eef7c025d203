#include "build/lab_compile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <future>
#include <regex>
#include <sstream>

#include "convlab/atomic_file.hpp"
#include "convlab/autotune/kernel_source.hpp"
#include "convlab/contained_paths.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/limits.hpp"
#include "build/compile_sandbox.hpp"
#include "build/digest.hpp"
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
// Threads of lab 07's precompilation when the compile has cores to spare: with the public cases
// it compiles about 40 instantiations of a second or two each, beside a kernel file that takes
// one core 20-70 s, so four threads finish it well within the compile.
constexpr int kPrecompileThreads = 4;

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

}  // namespace

void copy_plain_tree(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  for (auto it = fs::recursive_directory_iterator(from); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path target = to / fs::relative(it->path(), from);
    const fs::file_status st = it->symlink_status();
    if (fs::is_directory(st)) {
      fs::create_directories(target);
    } else if (fs::is_regular_file(st)) {
      fs::copy_file(it->path(), target, fs::copy_options::overwrite_existing);
      fs::permissions(target, st.permissions());
      // The original's time, not the copy's: a restored build folder must look to Ninja as it
      // did when it was configured. Copied in directory order, a fresh build.ninja could be older
      // than the CMakeCache.txt copied after it, and Ninja would re-run CMake.
      fs::last_write_time(target, fs::last_write_time(it->path()));
    }
  }
}

namespace {

bool is_lab07_kernel_lab(const StagedLab& lab) { return lab.files.count(lab07::kKernelFileName) > 0; }

// The text of a file, with `folder`'s own path replaced: build rules that name the folder they
// sit in are the same rules in every compile folder.
std::string normalized(const fs::path& file, const fs::path& folder) {
  return replace_all(convlab::read_file(file, kMaxTextFileBytes), folder.string(), "@FOLDER@");
}

// Every regular file below `root` (nothing when it is missing), sorted.
std::vector<fs::path> all_files(const fs::path& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::follow_directory_symlink, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The harness's files a lab links or runs: every absolute path its export file names.
std::vector<fs::path> harness_files(const fs::path& harness_dir) {
  const fs::path exported = harness_dir / "convlab-harness-targets.cmake";
  std::vector<fs::path> out = {exported};
  const std::string text = convlab::read_file(exported, kMaxTextFileBytes);
  const std::regex quoted("\"(/[^\"]+)\"");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), quoted); it != std::sregex_iterator(); ++it) {
    const fs::path p = (*it)[1].str();
    if (fs::is_regular_file(p)) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// "PATH SHA256" lines for `files`.
std::string digest_lines(const std::vector<fs::path>& files) {
  const std::vector<std::string> digests = sha256_of_files(files);
  std::string out;
  for (std::size_t i = 0; i < files.size(); ++i) out += fmt::format("{} {}\n", files[i].string(), digests[i]);
  return out;
}

}  // namespace

StagedLab stage_lab(const fs::path& submission, const LabInfo& lab) {
  StagedLab staged{lab, {}, std::nullopt};
  const fs::path folder = submission / lab.folder;
  try {
    // A link out of the submission (the lab's folder itself, or a file in it) is named before a
    // missing file: the walk checks every link.
    if (std::error_code ec; fs::symlink_status(folder, ec).type() != fs::file_type::not_found) {
      (void)resolve_inside(submission, folder);
      for (const fs::path& rel : files_inside(folder, [](const fs::path& r) { return skipped_name(r.filename()); })) {
        // A regular file (not a FIFO a student planted) of bounded size.
        staged.files[rel.generic_string()] = convlab::read_file(folder / rel, kMaxTextFileBytes);
      }
    }
  } catch (const PathError& e) {
    staged.files.clear();
    staged.unbuildable = LabExecutable{std::nullopt, {reason::kLinkOutside}, e.what(), "", {}};
    return staged;
  }
  std::vector<std::string> missing;
  for (const std::string& f : lab.files) {
    if (!staged.files.count(f)) missing.push_back(lab.folder + "/" + f);
  }
  if (!missing.empty()) {
    staged.unbuildable = LabExecutable{
        std::nullopt,
        {reason::kMissingFile},
        fmt::format("missing file{}: {} (a submission holds the same files as labs/)", missing.size() == 1 ? "" : "s",
                    fmt::join(missing, ", ")),
        "",
        {}};
  }
  return staged;
}

void write_lab_files(const LabFiles& files, const fs::path& dest) {
  fs::remove_all(dest);
  fs::create_directories(dest);
  for (const auto& [name, bytes] : files) {
    const fs::path rel = fs::path(name).lexically_normal();
    if (rel.empty() || rel.is_absolute() || *rel.begin() == "..") {
      throw std::invalid_argument(fmt::format("a lab file's path leads out of its folder: {}", name));
    }
    fs::create_directories((dest / rel).parent_path());
    write_file_atomically(dest / rel, bytes, Durability::scratch);  // read by this compile alone
  }
}

void copy_precompiled(const fs::path& from, const fs::path& to) {
  fs::remove_all(to);  // never a previous submission's cubins
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(from, ec))) return;
  fs::create_directories(to);
  for (fs::directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec)) {
    // The folder is the compile's own, but only its plain files travel: a link would be
    // followed by the copy.
    if (fs::is_regular_file(it->symlink_status())) fs::copy_file(it->path(), to / it->path().filename());
  }
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

LabCompiler::LabCompiler(BuildSettings settings, std::vector<LabInfo> all_labs)
    : settings_(std::move(settings)), all_labs_(std::move(all_labs)) {}

LabCompiler::~LabCompiler() = default;

std::string LabCompiler::build_rules(const Folder& folder) const {
  std::string text;
  for (const char* rules : {"build.ninja", "CMakeFiles/rules.ninja"}) {
    text += fmt::format("{}:\n{}\n", rules, normalized(folder.dir / rules, folder.dir));
  }
  return text;
}

std::optional<LabCompiler::Folder> LabCompiler::configure_folder(std::string* error) {
  int n = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    n = folders_made_++;
  }
  const Folder folder{settings_.build_dir / fmt::format("compile-{}", n),
                      settings_.build_dir / fmt::format("compile-{}.configured", n)};
  fs::remove_all(folder.dir);
  fs::remove_all(folder.pristine);
  // Configuring reads every lab folder: the stubs stand in until a compile writes its lab.
  for (const LabInfo& lab : all_labs_) {
    LabFiles stub;
    for (const std::string& f : lab.files) {
      stub[f] = convlab::read_file(settings_.source_dir / "labs" / lab.folder / f, kMaxTextFileBytes);
    }
    write_lab_files(stub, folder.dir / "submission" / lab.folder);
  }
  std::vector<std::string> argv = grader_configure_command(settings_.source_dir, folder.dir, settings_.cuda_architectures);
  // No regeneration rule: a compile never re-runs CMake. Inside the sandbox CMake would not see
  // the project's labs/ (grader/README.md, "The sandbox") and would stop the lab's build; and
  // what a compile folder's rules are is fixed here, where the store's key reads them.
  argv.insert(argv.end(), {"-DCONVLAB_LABS_DIR=" + (folder.dir / "submission").string(),
                           "-DCONVLAB_PREBUILT_HARNESS=" + settings_.harness->dir().string(),
                           "-DCMAKE_SUPPRESS_REGENERATION=ON"});
  if (settings_.progress) settings_.progress(fmt::format("configuring a compile folder, {}", folder.dir.string()));
  const ProcessResult conf = run_process(at_idle_priority(argv), 600s);  // while other students are graded
  {
    std::lock_guard<std::mutex> lock(mutex_);
    setup_core_s_ += conf.cpu_seconds;
  }
  if (conf.exit_code != 0) {
    *error = fmt::format("cmake could not configure the submission build ({}):\n{}", conf.describe(),
                         last_lines(conf.output, 15));
    return std::nullopt;
  }
  // Every folder must compile under the same rules, the ones the store's keys name (context()).
  const std::string rules = build_rules(folder);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (rules_.empty()) rules_ = rules;
    if (rules != rules_) {
      *error = fmt::format("the compile folder {} was configured with other build rules than the first one",
                           folder.dir.string());
      return std::nullopt;
    }
  }
  // Taken before any compile ran there, and shown to no sandbox: what every compile starts from.
  copy_plain_tree(folder.dir, folder.pristine);
  return folder;
}

std::optional<LabCompiler::Folder> LabCompiler::acquire(std::string* error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_.empty()) {
      Folder f = free_.back();
      free_.pop_back();
      return f;
    }
  }
  return configure_folder(error);
}

void LabCompiler::release(Folder folder) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back(std::move(folder));
}

bool LabCompiler::prepare(std::string* error) {
  std::call_once(prepared_, [this] {
    // The harness first, shared and built once: if it does not build, no lab is to blame.
    if (!settings_.harness->ensure_built(&prepare_error_)) return;
    std::optional<Folder> first = configure_folder(&prepare_error_);
    if (!first) return;
    try {
      std::string text = "convlab-compile-context 1\n";
      text += fmt::format("architectures {}\nlab07 shapes {}\nsandboxed {}\nhost code checked {}\n",
                          settings_.cuda_architectures, settings_.lab07_shapes, settings_.sandbox.has_value(),
                          settings_.check_host_code);
      // The project's files a compile can read (the sandbox shows common/, cmake/, .deps/ and
      // CMake's inputs), the harness it links, its build rules, and the tools by version.
      std::vector<fs::path> read = harness_files(settings_.harness->dir());
      for (const char* part : {"common", "cmake", ".deps"}) {
        const std::vector<fs::path> files = all_files(settings_.source_dir / part);
        read.insert(read.end(), files.begin(), files.end());
      }
      for (const fs::path& f : build_rerun_inputs(first->dir)) read.push_back(f);
      text += digest_lines(read);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        text += rules_;
      }
      std::vector<fs::path> tools = configured_compilers(first->dir);
      tools.push_back(cmake_program());
      if (const auto ninja = find_tool("ninja")) tools.push_back(*ninja);
      for (const fs::path& tool : tools) {
        text += fmt::format("{}: {}\n", tool.string(), run_process({tool.string(), "--version"}, 60s).output);
      }
      context_ = sha256_of_bytes(text, settings_.build_dir / "digests");
      release(*first);
    } catch (const std::exception& e) {
      prepare_error_ = fmt::format("the inputs of the labs' compiles could not be named: {}", e.what());
    }
  });
  if (!prepare_error_.empty()) *error = prepare_error_;
  return prepare_error_.empty();
}

std::string LabCompiler::context() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (context_.empty()) throw std::runtime_error("LabCompiler::context() before prepare()");
  return context_;
}

double LabCompiler::setup_core_s() {
  std::lock_guard<std::mutex> lock(mutex_);
  return setup_core_s_;
}

int LabCompiler::useful_cores(const StagedLab& lab) const {
  int units = 0;
  for (const auto& [name, bytes] : lab.files) units += fs::path(name).extension() == ".cu" ? 1 : 0;
  if (is_lab07_kernel_lab(lab)) {
    // Its precompilation, when any step is written (the stub's kernel precompiles nothing).
    const std::vector<int> unwritten = lab07::unwritten_steps(lab.files.at(lab07::kKernelFileName));
    if (unwritten.size() < 5) units += kPrecompileThreads;
  }
  return std::max(1, units);
}

std::vector<std::string> LabCompiler::sandboxed(const Folder& folder, std::vector<std::string> argv,
                                                const std::vector<fs::path>& programs) const {
  // At idle priority (system/subprocess.hpp): the class's compiles take every core the GPUs'
  // runs leave, and never one they want.
  if (!settings_.sandbox) return at_idle_priority(std::move(argv));
  return at_idle_priority(sandbox_argv(
      compile_sandbox(*settings_.sandbox, settings_.source_dir, settings_.harness->dir(), folder.dir, programs), argv));
}

std::vector<std::string> LabCompiler::build_command(const Folder& folder, const std::string& target, int jobs) const {
  std::vector<fs::path> programs = {cmake_program()};
  if (const auto ninja = find_tool("ninja")) programs.push_back(*ninja);
  if (const auto nvcc = cuda_compiler()) programs.push_back(*nvcc);
  return sandboxed(folder,
                   {cmake_program().string(), "--build", folder.dir.string(), "--target", target, "-j",
                    std::to_string(std::max(1, jobs))},
                   programs);
}

std::vector<std::string> LabCompiler::precompile_command(const Folder& folder, const StagedLab& lab, int jobs) const {
  std::vector<std::string> argv = {
      (settings_.harness->dir() / "bin" / "lab07_precompile").string(),
      "--kernel", (folder.dir / "submission" / lab.lab.folder / lab07::kKernelFileName).string(),
      "--origin", "labs", "--arch", settings_.cuda_architectures,
      "--out", (folder.dir / "bin" / (lab.lab.id() + lab07::kPrecompiledSuffix)).string(),
      "--jobs", std::to_string(std::max(1, jobs))};
  if (!settings_.lab07_shapes.empty()) argv.insert(argv.end(), {"--shapes", settings_.lab07_shapes});
  // NVRTC is the CUDA toolkit's: the sandbox shows the toolkit nvcc is in.
  std::vector<fs::path> programs;
  if (const auto nvcc = cuda_compiler()) programs.push_back(*nvcc);
  return sandboxed(folder, argv, programs);
}

std::optional<fs::path> LabCompiler::take_executable(const Folder& folder, const LabInfo& lab, const fs::path& out_dir) const {
  // Plain files only: a link left in the compile folder would have the grader copy what it
  // points at.
  const fs::path built = folder.dir / "bin" / lab.id();
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(built, ec))) return std::nullopt;
  fs::create_directories(out_dir);
  const fs::path exe = out_dir / lab.id();
  fs::copy_file(built, exe, fs::copy_options::overwrite_existing);
  // Lab 07's copy of its kernel source, which it compiles configurations from at run time, and
  // the cubins compiled from it ahead.
  if (const fs::path kernel = built.string() + lab07::kKernelCopySuffix; fs::is_regular_file(fs::symlink_status(kernel, ec))) {
    fs::copy_file(kernel, exe.string() + lab07::kKernelCopySuffix, fs::copy_options::overwrite_existing);
  }
  copy_precompiled(built.string() + lab07::kPrecompiledSuffix, exe.string() + lab07::kPrecompiledSuffix);
  return exe;
}

LabExecutable LabCompiler::run_compile(const Folder& folder, const StagedLab& lab, int cores, const fs::path& out_dir,
                                       double* core_s) {
  LabExecutable result;
  // Lab 07's instantiations are compiled from the kernel file alone, so beside the compile of
  // its launcher (one translation unit), not after its link: the longer of the two is the lab's
  // time, not their sum.
  const bool precompile = is_lab07_kernel_lab(lab);
  const int compile_jobs = precompile ? 1 : cores;
  std::future<ProcessResult> pre;
  if (precompile) {
    pre = std::async(std::launch::async, [argv = precompile_command(folder, lab, cores - 1)] {
      return run_process(argv, kBuildTimeout);
    });
  }
  const ProcessResult p = run_process(build_command(folder, lab.lab.id(), compile_jobs), kBuildTimeout);
  *core_s += p.cpu_seconds;
  ProcessResult pre_result;
  if (precompile) {
    pre_result = pre.get();
  } else {
    pre_result.exit_code = 0;  // nothing to precompile: nothing failed
  }
  *core_s += pre_result.cpu_seconds;
  const std::string staging = (folder.dir / "submission").string() + "/";
  if (p.exit_code != 0) {
    result.build_reasons = {reason::kCompileError};
    result.build_message = fmt::format("does not compile ({}):\n{}", p.describe(), first_compiler_errors(p.output, staging));
    return result;
  }
  if (pre_result.exit_code != 0) {  // the tool itself failed (an instantiation NVRTC rejects does not)
    result.build_reasons = {reason::kCompileError};
    result.build_message = fmt::format("lab 07's instantiations could not be compiled ahead ({}):\n{}",
                                       pre_result.describe(), last_lines(replace_all(pre_result.output, staging, ""), 10));
    return result;
  }
  result.exe = take_executable(folder, lab.lab, out_dir);
  if (!result.exe) {
    result.build_reasons = {reason::kCompileError};
    result.build_message = "does not compile: the build left no executable";
  }
  return result;
}

LabExecutable LabCompiler::compile(const StagedLab& lab, int cores, const fs::path& out_dir, double* core_s) {
  *core_s = 0;
  if (lab.unbuildable) return *lab.unbuildable;
  LabExecutable result;
  std::string error;
  if (!prepare(&error)) {
    result.could_not_grade = error;
    return result;
  }
  std::optional<Folder> folder = acquire(&error);
  if (!folder) {
    result.could_not_grade = error;
    return result;
  }
  try {
    // Back to what the configure left, then this lab's files: nothing of an earlier compile stays.
    fs::remove_all(folder->dir);
    copy_plain_tree(folder->pristine, folder->dir);
    write_lab_files(lab.files, folder->dir / "submission" / lab.lab.folder);
    if (settings_.progress) settings_.progress(fmt::format("{}: compiling on {} cores", lab.lab.id(), cores));
    result = run_compile(*folder, lab, cores, out_dir, core_s);
    check_host_code_of(*folder, lab.lab, result, core_s);
  } catch (const std::exception& e) {
    result = LabExecutable{};
    result.could_not_grade = fmt::format("the grader could not compile {}: {}", lab.lab.id(), e.what());
  }
  release(std::move(*folder));
  return result;
}

void LabCompiler::check_host_code_of(const Folder& folder, const LabInfo& lab, LabExecutable& built, double* core_s) {
  if (!built.exe || !settings_.check_host_code) return;
  // The tools read the submission's objects inside the compile sandbox, as its compiler did.
  std::vector<fs::path> programs;
  for (const char* tool : {"nm", "objdump", "c++filt"}) {
    if (const auto p = find_tool(tool)) programs.push_back(*p);
  }
  double spent = 0;
  const ToolRunner run = [&](const std::vector<std::string>& argv, std::string* error) {
    std::vector<std::string> resolved = argv;
    if (const auto p = find_tool(argv.front())) resolved.front() = p->string();
    const ProcessResult p = run_process(sandboxed(folder, resolved, programs), 120s);
    spent += p.cpu_seconds;
    if (p.exit_code != 0 && error->empty()) *error = fmt::format("{} {}: {}", argv.front(), p.describe(), last_lines(p.output, 3));
    return p.output;
  };
  std::set<std::string> harness;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (harness_symbols_) harness = *harness_symbols_;
  }
  if (harness.empty()) {  // read once; a race reads it twice, to the same result
    harness = harness_symbols(settings_.harness->dir(), run);
    std::lock_guard<std::mutex> lock(mutex_);
    harness_symbols_ = harness;
  }
  const HostCodeReport report = check_host_code(lab_objects(folder.dir, lab.id()), harness, run);
  *core_s += spent;
  if (report.clean()) return;
  fs::remove_all(built.exe->parent_path());  // what was taken out for grading: nothing of it runs
  built.exe.reset();
  built.build_reasons = {reason::kForbiddenHostCode};
  built.build_message = "forbidden host code: the lab's host code may call what a lab needs and nothing else "
                        "(grader/README.md, \"What a timed run cannot fake\"):\n" +
                        report.describe();
}

}  // namespace convlab::grader
