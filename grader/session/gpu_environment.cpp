#include "session/gpu_environment.hpp"

#include <fmt/format.h>

#include "convlab/datagen.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

GradingEnvironment::GradingEnvironment(CaseSet cases, Rubric rubric, GradeSettings settings, fs::path work_root,
                                       std::function<std::optional<fs::path>(const LabInfo&)> reference_exe,
                                       std::function<std::optional<fs::path>(const LabInfo&)> variants_exe)
    : cases_(std::move(cases)),
      rubric_(std::move(rubric)),
      settings_(std::move(settings)),
      work_root_(std::move(work_root)),
      reference_exe_(std::move(reference_exe)),
      variants_exe_(std::move(variants_exe)) {
  fs::create_directories(work_root_);
}

namespace {

std::string conv2d_case_name(const Conv2dShape& s) { return fmt::format("perf_{}x{}_k{}", s.height, s.width, s.mask_width); }

std::string layer_case_name(const ConvLayerShape& s) {
  return fmt::format("perf_b{}_c{}_m{}_{}x{}_k{}_s{}_p{}_d{}", s.batch, s.channels, s.filters, s.height, s.width,
                     s.mask_width, s.stride, s.padding, s.dilation);
}

}  // namespace

std::string GradingEnvironment::performance_case_id(Problem p) const {
  return std::string(problem_name(p)) + "/" +
         (p == Problem::conv2d ? conv2d_case_name(rubric_.conv2d_case) : layer_case_name(rubric_.conv_layer_case));
}

const GradingCase& GradingEnvironment::performance_case(Problem p) {
  const std::lock_guard<std::mutex> lock(made_mutex_);
  if (auto it = performance_cases_.find(p); it != performance_cases_.end()) return it->second;
  const fs::path root = work_root_ / "performance-cases";
  fs::path dir;
  if (p == Problem::conv2d) {
    const Conv2dShape& s = rubric_.conv2d_case;
    Conv2dSpec spec{conv2d_case_name(s), s, rubric_.conv2d_seed, "the rubric's performance case"};
    progress(fmt::format("generating the performance case conv2d/{} (seed {})", spec.name, spec.seed));
    dir = root / "conv2d" / spec.name;
    write_inputs_only(dir, generate_case(spec));
  } else {
    const ConvLayerShape& s = rubric_.conv_layer_case;
    ConvLayerSpec spec{layer_case_name(s), s, rubric_.conv_layer_seed, "the rubric's performance case"};
    progress(fmt::format("generating the performance case conv_layer/{} (seed {})", spec.name, spec.seed));
    dir = root / "conv_layer" / spec.name;
    write_inputs_only(dir, generate_case(spec));
  }
  return performance_cases_.emplace(p, GradingCase{read_case_info(dir), dir}).first->second;
}

const LabVariants* GradingEnvironment::variants(const LabInfo& lab, const std::optional<fs::path>& fallback,
                                              std::string* error) {
  const std::lock_guard<std::mutex> lock(made_mutex_);
  if (auto it = variants_.find(lab.number); it != variants_.end()) return &it->second;
  std::string why;
  for (const std::optional<fs::path>& exe : {variants_exe_(lab), fallback}) {
    if (!exe) continue;
    if (auto l = list_lab(*exe, fresh_dir(lab.id() + "-list"), &why, settings_.sandbox)) {
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
