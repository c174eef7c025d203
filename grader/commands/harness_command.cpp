// grader harness --out DIR: builds the lab harness (what every lab links, and lab 07's
// precompiler: build/harness_build.hpp) once, for any number of later runs that name it with
// `--harness DIR`: the tasks of a Slurm job (`grader slurm` submits this first, and its tasks
// wait for it), or the runs of one class timed on one machine (scripts/class_speedup.sh). It is
// built for this machine's GPU, or for --cuda-arch on a machine without one. Prints what it did
// as JSON: {"harness", "cuda_architectures", "core_s", "seconds"}.
#include <fmt/format.h>

#include <chrono>

#include "build/harness_build.hpp"
#include "build/lab_folders.hpp"
#include "commands/commands.hpp"
#include "schedule/platform.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

namespace {

struct HarnessOptions {
  std::string out, cuda_arch;
  int jobs = 0;
  bool quiet = false;
};

int run(const HarnessOptions& o) {
  std::string arch = o.cuda_arch;
  if (arch.empty()) {
    std::string why;
    const auto device = grading_platform().query_device(&why);
    if (!device) {
      fmt::print(stderr, "grader: cannot build the harness for this machine's GPU: {}; name the GPU's architecture "
                         "with --cuda-arch (90 for an H100 or H200, 80 for an A100)\n", why);
      return kCouldNotGrade;
    }
    arch = fmt::format("{}{}", device->cc_major, device->cc_minor);
  }
  HarnessSettings h;
  h.source_dir = source_dir();
  h.build_dir = fs::absolute(o.out);
  h.cuda_architectures = arch;
  h.jobs = o.jobs;
  for (const LabInfo& lab : discover_labs(source_dir() / "labs")) h.labs.push_back(lab.number);
  if (!o.quiet) h.progress = [](const std::string& line) { fmt::print(stderr, "  {}\n", line); };
  HarnessBuild harness(h, grading_platform().build_harness);
  const auto start = std::chrono::steady_clock::now();
  std::string error;
  if (!harness.ensure_built(&error)) {
    fmt::print(stderr, "grader: {}\n", error);
    return kCouldNotGrade;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Structured, for scripts and the Slurm log.
  fmt::print("{{\"harness\": \"{}\", \"cuda_architectures\": \"{}\", \"core_s\": {:.1f}, \"seconds\": {:.1f}}}\n",
             h.build_dir.string(), arch, harness.core_s(), seconds);
  return kGraded;
}

}  // namespace

void add_harness_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "harness", "build the lab harness once, for later runs that link against it (--harness DIR): a Slurm job's tasks, "
                 "or several batches of one class");
  auto o = std::make_shared<HarnessOptions>();
  cmd->add_option("--out", o->out, "the harness's build folder (on storage every node sees, for a cluster)")->required();
  cmd->add_option("--cuda-arch", o->cuda_arch,
                  "build for this GPU architecture, e.g. 90 (default: the GPU of this machine)")
      ->check(CLI::Validator(
          [](std::string& v) {
            const bool digits = v.size() >= 2 && v.size() <= 3 &&
                                std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
            return digits ? std::string() : fmt::format("'{}' is not a CUDA architecture such as 90", v);
          },
          "ARCH"));
  cmd->add_option("--jobs,-j", o->jobs, "cores to build with (default: every core)")->check(CLI::Range(0, 1024));
  cmd->add_flag("--quiet,-q", o->quiet, "no progress lines");
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace convlab::grader
