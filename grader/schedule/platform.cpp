#include "schedule/platform.hpp"

#include "system/tool_paths.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

namespace {

// The executable in the project's own build, if it is there.
std::optional<fs::path> project_exe(const std::string& name) {
  const fs::path p = bin_dir() / name;
  if (fs::exists(p)) return p;
  return std::nullopt;
}

class ProjectBuilder final : public LabBuilder {
 public:
  ProjectBuilder(const BuildSettings& settings, const std::vector<LabInfo>& all_labs) : compiler_(settings, all_labs) {}
  StagedLab stage(const fs::path& submission, const LabInfo& lab) override { return stage_lab(submission, lab); }
  bool prepare(std::string* error) override { return compiler_.prepare(error); }
  std::string context() override { return compiler_.context(); }
  int useful_cores(const StagedLab& lab) const override { return compiler_.useful_cores(lab); }
  LabExecutable compile(const StagedLab& lab, int cores, const fs::path& out_dir, double* core_s) override {
    return compiler_.compile(lab, cores, out_dir, core_s);
  }
  double setup_core_s() override { return compiler_.setup_core_s(); }

 private:
  LabCompiler compiler_;
};

GradingPlatform& current() {
  static GradingPlatform platform = real_grading_platform();
  return platform;
}

}  // namespace

GradingPlatform real_grading_platform() {
  GradingPlatform p;
  p.query_device = [](std::string* why) { return query_device(why); };
  p.count_gpus = [](std::string* why) { return visible_device_count(why); };
  p.reference_exe = [](const LabInfo& lab) { return project_exe("solution" + lab.number); };
  p.variants_exe = [](const LabInfo& lab) {
    if (auto s = project_exe("solution" + lab.number)) return s;
    return project_exe(lab.id());
  };
  p.make_builder = [](const BuildSettings& settings, const std::vector<LabInfo>& all_labs) -> std::unique_ptr<LabBuilder> {
    return std::make_unique<ProjectBuilder>(settings, all_labs);
  };
  p.make_sandbox = make_lab_sandbox;
  p.build_harness = build_harness_with_cmake;
  return p;
}

const GradingPlatform& grading_platform() { return current(); }

void set_grading_platform(GradingPlatform platform) { current() = std::move(platform); }

}  // namespace convlab::grader
