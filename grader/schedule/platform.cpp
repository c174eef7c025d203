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
  ProjectBuilder(const BuildSettings& settings, const std::vector<LabInfo>& all_labs) : builder_(settings, all_labs) {}
  void stage(const fs::path& submission, const std::vector<LabInfo>& graded) override {
    builder_.stage(submission, graded);
  }
  std::vector<LabExecutable> build_all(const std::vector<LabInfo>& labs, const fs::path& exe_dir) override {
    return builder_.build_all(labs, exe_dir);
  }

 private:
  SubmissionBuilder builder_;
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
  return p;
}

const GradingPlatform& grading_platform() { return current(); }

void set_grading_platform(GradingPlatform platform) { current() = std::move(platform); }

}  // namespace convlab::grader
