#include "session/gpu_environment.hpp"

#include <fmt/format.h>

#include "convlab/datagen.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

GradingEnvironment::GradingEnvironment(CaseSet cases, Rubric rubric, GradeSettings settings, fs::path work_root,
                                       std::function<std::optional<fs::path>(const LabInfo&)> reference_exe,
                                       std::function<std::optional<fs::path>(const LabInfo&)> variants_exe,
                                       std::shared_ptr<HostTurns> host_turns)
    : cases_(std::move(cases)),
      rubric_(std::move(rubric)),
      settings_(std::move(settings)),
      work_root_(std::move(work_root)),
      reference_exe_(std::move(reference_exe)),
      variants_exe_(std::move(variants_exe)),
      gpu_turns_(std::move(host_turns)) {
  fs::create_directories(work_root_);
}

std::string GradingEnvironment::performance_case_id(const LabInfo& lab, Problem p) const {
  return rubric_.performance_case(lab.number, p).id();
}

const GradingCase& GradingEnvironment::performance_case(const LabInfo& lab, Problem p) {
  const PerformanceCase spec = rubric_.performance_case(lab.number, p);
  // Two labs' cases of one shape and one seed are one case; of one shape and two seeds, two
  // cases of one name, in folders of their own.
  const fs::path dir =
      work_root_ / "performance-cases" / fmt::format("seed-{}", spec.seed) / problem_name(p) / spec.name();
  const std::lock_guard<std::mutex> lock(made_mutex_);
  if (auto it = performance_cases_.find(dir.string()); it != performance_cases_.end()) return it->second;
  progress(fmt::format("generating the performance case {} (seed {})", spec.id(), spec.seed));
  if (p == Problem::conv2d) {
    write_inputs_only(dir, generate_case(Conv2dSpec{spec.name(), spec.conv2d, spec.seed, "the rubric's performance case"}));
  } else {
    write_inputs_only(dir, generate_case(ConvLayerSpec{spec.name(), spec.layer, spec.seed, "the rubric's performance case"}));
  }
  return performance_cases_.emplace(dir.string(), GradingCase{read_case_info(dir), dir}).first->second;
}

const LabVariants* GradingEnvironment::variants(const LabInfo& lab, const std::optional<fs::path>& fallback,
                                              std::string* error) {
  const std::lock_guard<std::mutex> lock(made_mutex_);
  if (auto it = variants_.find(lab.number); it != variants_.end()) return &it->second;
  std::string why;
  for (const std::optional<fs::path>& exe : {variants_exe_(lab), fallback}) {
    if (!exe) continue;
    if (auto l = list_lab(*exe, fresh_dir(lab.id() + "-list"), &why, settings_.sandbox)) {
      try {
        check_problems_against_registry(*l, lab.number);
      } catch (const std::exception& e) {
        why = fmt::format("{} --list: {}", exe->filename().string(), e.what());
        continue;
      }
      l->keep_runnable_on(settings_.compute_capability);
      if (l->variants.empty()) {
        if (error) *error = fmt::format("no variant of {} runs on this GPU ({})", lab.id(), settings_.device_name);
        return nullptr;
      }
      return &variants_.emplace(lab.number, std::move(*l)).first->second;
    }
  }
  if (error) *error = why.empty() ? fmt::format("no executable of {} to list its variants", lab.id()) : why;
  return nullptr;
}

const ReferenceTiming* GradingEnvironment::cached_reference(const LabInfo& lab) const {
  const std::lock_guard<std::mutex> lock(made_mutex_);
  const auto it = references_.find(lab.number);
  return it == references_.end() ? nullptr : &it->second;
}

const ReferenceTiming& GradingEnvironment::store_reference(const LabInfo& lab, ReferenceTiming timing) {
  const std::lock_guard<std::mutex> lock(made_mutex_);
  return references_.insert_or_assign(lab.number, std::move(timing)).first->second;
}

fs::path GradingEnvironment::fresh_dir(const std::string& name) {
  const fs::path dir = work_root_ / fmt::format("{:04d}-{}", ++dirs_, name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void GradingEnvironment::progress(const std::string& line) const {
  if (settings_.progress) settings_.progress(line);
}

}  // namespace convlab::grader
