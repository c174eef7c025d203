// grader_test_mode: the grader's commands (grade, batch, merge, slurm) on the GPU-free test
// double of a lab, so that whole runs — a pipelined batch over fake GPUs, a class submitted to
// a real Slurm — can be tested on a machine without a GPU or a CUDA toolkit. Only the platform
// differs from the real grader (schedule/platform.hpp):
//
//   - the device is "fake GPU (the grader's test double)"; CONVLAB_FAKE_GPUS GPUs are visible
//     (default 2);
//   - a submission is not compiled: lab NN-name/ of a submission "builds" into the fake lab
//     runner (tests/support/fake_lab.cpp) with the arguments in NN-name/fake.args, e.g.
//     "--fake-time-ms 2" or "--fake crash --fake-case k3_7x9"; a fake.args that says
//     "compile-error" fails to build with that message, and a missing lab folder is missing
//     files, as with the real build; fake.build_s makes the "compile" take that long and
//     fake.cores says how many cores it can use; the labs go through the real shared compile
//     store and core budget (schedule/lab_jobs.hpp);
//   - the harness is a folder with an export file, each build of it a line in
//     $CONVLAB_FAKE_HARNESS_LOG when that is set;
//   - the reference solution of every lab is the fake lab with --fake-time-ms 1, or, for lab NN
//     when $CONVLAB_FAKE_REFERENCE_NN is set, with the arguments it holds instead: a lab whose
//     variants solve two problems is played by, e.g., CONVLAB_FAKE_REFERENCE_08="--fake-time-ms 1
//     --fake-variants tf32,banded --fake-problem conv_layer,conv2d --fake-masks 9,10" (the
//     reference also lists the lab's variants, so a submission's fake.args names the same ones).
//
// The test-double runs are the real grader's otherwise: child processes, timeouts, judging,
// points, reports.
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "commands/commands.hpp"
#include "convlab/lab_registry.hpp"
#include "schedule/platform.hpp"
#include "run/reasons.hpp"

namespace fs = std::filesystem;
using namespace convlab;
using namespace convlab::grader;

namespace {

// A one-line script that runs the fake lab with `args` added.
fs::path fake_script(const fs::path& path, const std::string& args) {
  fs::create_directories(path.parent_path());
  const fs::path tmp = path.string() + ".tmp";
  std::ofstream(tmp) << fmt::format("#!/bin/sh\nexec '{}' \"$@\" {}\n", CONVLAB_FAKE_LAB, args);
  chmod(tmp.c_str(), 0755);
  fs::rename(tmp, path);
  return path;
}

std::string read_args(const fs::path& file) {
  std::ifstream in(file);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Whether this run made a sandbox: then every build must be given it too.
bool g_sandboxed = false;

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// The test double's compiler: a lab folder's fake.args becomes a script that runs the fake lab
// with them. Its files are staged, keyed and shared like a real lab's (the shared compile store
// is the real one); fake.build_s holds the seconds its "compile" takes, and every compile that
// runs appends "LAB START_NS END_NS CORES" to $CONVLAB_FAKE_COMPILE_LOG when that is set.
class FakeBuilder final : public LabBuilder {
 public:
  explicit FakeBuilder(const BuildSettings& settings) : settings_(settings) {}

  StagedLab stage(const fs::path& submission, const LabInfo& lab) override {
    StagedLab s{lab, {}, std::nullopt};
    const fs::path folder = submission / lab.folder;
    if (!fs::is_regular_file(folder / "fake.args")) {
      s.unbuildable = LabExecutable{std::nullopt, {reason::kMissingFile}, fmt::format("missing: {}/fake.args", lab.folder), "", {}};
      return s;
    }
    for (const auto& f : fs::directory_iterator(folder)) {
      if (f.is_regular_file()) s.files[f.path().filename().string()] = read_args(f.path());
    }
    return s;
  }
  bool prepare(std::string* error) override { return settings_.harness->ensure_built(error); }
  std::string context() override { return "the grader's test double"; }
  int useful_cores(const StagedLab& lab) const override {
    const auto cores = lab.files.find("fake.cores");
    return cores == lab.files.end() ? 1 : std::max(1, std::atoi(cores->second.c_str()));
  }
  LabExecutable compile(const StagedLab& lab, int cores, const fs::path& out_dir, double* core_s) override {
    *core_s = 0;
    LabExecutable e;
    if (g_sandboxed && !settings_.sandbox) {  // a student's compile would have run outside the sandbox
      e.build_reasons = {reason::kCompileError};
      e.build_message = "the grader built this submission outside its sandbox";
      return e;
    }
    const auto start = std::chrono::system_clock::now();
    if (const auto s = lab.files.find("fake.build_s"); s != lab.files.end()) {
      std::this_thread::sleep_for(std::chrono::duration<double>(std::atof(s->second.c_str())));
    }
    if (const char* log = std::getenv("CONVLAB_FAKE_COMPILE_LOG")) {
      static std::mutex mutex;
      const std::lock_guard<std::mutex> lock(mutex);
      const auto ns = [](std::chrono::system_clock::time_point t) {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
      };
      std::ofstream(log, std::ios::app) << fmt::format("{} {} {} {}\n", lab.lab.id(), ns(start),
                                                       ns(std::chrono::system_clock::now()), cores);
    }
    const std::string text = trimmed(lab.files.at("fake.args"));
    if (text.rfind("compile-error", 0) == 0) {
      e.build_reasons = {reason::kCompileError};
      e.build_message = fmt::format("{}/fake.cu(1): error: {}", lab.lab.folder, text);
      return e;
    }
    e.exe = fake_script(out_dir / lab.lab.id(), text);
    return e;
  }
  double setup_core_s() override { return 0; }

 private:
  BuildSettings settings_;
};

// The test double's harness: a folder with an export file; every build appends its folder to
// $CONVLAB_FAKE_HARNESS_LOG when that is set, so that a test can count them wherever they ran.
bool fake_harness(const HarnessSettings& s, double* core_s, std::string*) {
  *core_s = 0;
  fs::create_directories(s.build_dir);
  std::ofstream(s.build_dir / "convlab-harness-targets.cmake") << "# the grader's test double: nothing to link\n";
  if (const char* log = std::getenv("CONVLAB_FAKE_HARNESS_LOG")) {
    std::ofstream(log, std::ios::app) << s.build_dir.string() << "\n";
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const fs::path scripts = fs::temp_directory_path() / fmt::format("convlab-test-mode-{}", getpid());
  const fs::path reference = fake_script(scripts / "reference", "--fake-time-ms 1");
  // Each lab's own reference, made here once: the grading threads only read them.
  std::map<std::string, fs::path> references;
  for (const labs::LabEntry& lab : labs::kLabs) {
    const char* extra = std::getenv(("CONVLAB_FAKE_REFERENCE_" + lab.number_text()).c_str());
    if (extra != nullptr) {
      references[lab.number_text()] = fake_script(scripts / ("reference" + lab.number_text()), extra);
    }
  }

  GradingPlatform p;
  p.query_device = [](std::string*) {
    DeviceInfo d;
    d.name = "fake GPU (the grader's test double)";
    d.cc_major = 9;
    d.cc_minor = 0;
    return std::optional<DeviceInfo>(d);
  };
  p.count_gpus = [](std::string*) {
    const char* n = std::getenv("CONVLAB_FAKE_GPUS");
    return n ? std::atoi(n) : 2;
  };
  p.reference_exe = [reference, references](const LabInfo& lab) {
    const auto own = references.find(lab.number);
    return std::optional<fs::path>(own != references.end() ? own->second : reference);
  };
  p.variants_exe = p.reference_exe;
  p.make_builder = [](const BuildSettings& settings, const std::vector<LabInfo>&) -> std::unique_ptr<LabBuilder> {
    return std::make_unique<FakeBuilder>(settings);
  };
  p.build_harness = fake_harness;
  // The sandbox without a GPU: no device nodes; the test double's labs are scripts that run the
  // fake lab of the build tree, so its folder is shown read-only.
  p.make_sandbox = [](const std::string&, const std::vector<fs::path>&, std::string* problem, std::string* fix) {
    const SandboxProbe probe = probe_sandbox();
    if (!probe.ok()) {
      *problem = probe.problem;
      *fix = probe.fix;
      return std::optional<SandboxSpec>();
    }
    SandboxSpec spec;
    spec.bwrap = *probe.bwrap;
    spec.read_only.push_back(fs::path(CONVLAB_FAKE_LAB).parent_path());
    g_sandboxed = true;
    return std::optional<SandboxSpec>(spec);
  };
  set_grading_platform(std::move(p));

  CLI::App app{"the grader's commands on the GPU-free test double of a lab (tests only)"};
  app.require_subcommand(1);
  int exit_code = kGraded;
  add_grade_command(app, exit_code);
  add_batch_command(app, exit_code);
  add_merge_command(app, exit_code);
  add_slurm_command(app, exit_code);
  add_harness_command(app, exit_code);
  const int rc = run_command_line(app, argc, argv, exit_code);
  std::error_code ec;
  fs::remove_all(scripts, ec);
  return rc;
}
