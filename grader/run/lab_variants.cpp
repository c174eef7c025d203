#include "run/lab_variants.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "convlab/json_file.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/lab_registry.hpp"
#include "convlab/limits.hpp"
#include "run/runner_call.hpp"
#include "system/subprocess.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;
using nlohmann::json;

bool VariantInfo::accepts(const CaseInfo& info) const {
  if (info.problem != problem) return false;
  if (problem == Problem::conv2d) {
    return mask_widths.contains(info.conv2d.mask_width);
  }
  return info.layer.mask_width <= max_mask_width;
}

std::vector<Problem> LabVariants::problems() const {
  std::vector<Problem> out;
  for (const VariantInfo& v : variants) {
    if (std::find(out.begin(), out.end(), v.problem) == out.end()) out.push_back(v.problem);
  }
  return out;
}

void LabVariants::keep_runnable_on(int cc) {
  std::vector<VariantInfo> runnable;
  for (VariantInfo& v : variants) (v.runs_on(cc) ? runnable : not_on_this_gpu).push_back(std::move(v));
  variants = std::move(runnable);
}

std::string LabVariants::names_of(Problem p) const {
  std::string out;
  for (const VariantInfo& v : variants) {
    if (v.problem == p) out += (out.empty() ? "" : ", ") + v.name;
  }
  return out;
}

LabVariants parse_lab_variants(const json& j) {
  if (j.value("format", "") != "convlab-lab-list" || j.value("version", 0) != 1) {
    throw std::runtime_error("not a convlab-lab-list version 1 document");
  }
  LabVariants listing;
  listing.lab = j.at("lab").get<std::string>();
  for (const json& v : j.at("variants")) {
    VariantInfo info;
    info.name = v.at("name").get<std::string>();
    const std::string problem = v.at("problem").get<std::string>();
    if (problem == "conv2d") {
      info.problem = Problem::conv2d;
      try {
        info.mask_widths = MaskWidths::of(v.at("mask_widths").get<std::vector<int>>());
      } catch (const std::invalid_argument& e) {
        throw std::runtime_error(fmt::format("variant {}: mask_widths: {}", info.name, e.what()));
      }
    } else if (problem == "conv_layer") {
      info.problem = Problem::conv_layer;
      info.max_mask_width = v.at("max_mask_width").get<int>();
    } else {
      throw std::runtime_error(fmt::format("variant {}: unknown problem '{}'", info.name, problem));
    }
    const std::string tol = v.at("tolerance").at("name").get<std::string>();
    if (tol == "fp32") {
      info.tolerance = Tolerance::fp32();
    } else if (tol == "tf32") {
      info.tolerance = Tolerance::tf32();
    } else if (tol == "tf32x1") {
      info.tolerance = Tolerance::tf32x1();
    } else {
      throw std::runtime_error(fmt::format("variant {}: unknown tolerance '{}'", info.name, tol));
    }
    info.tensor_cores = v.value("tensor_cores", false);
    if (const auto cc = v.find("compute_capability"); cc != v.end()) {
      // "9.0": one digit each side of the point
      const std::string text = cc->is_string() ? cc->get<std::string>() : "";
      if (text.size() != 3 || text[1] != '.' || text[0] < '1' || text[0] > '9' || text[2] < '0' || text[2] > '9') {
        throw std::runtime_error(fmt::format("variant {}: compute_capability: expected \"MAJOR.MINOR\" such as \"9.0\", "
                                             "got {}", info.name, cc->dump()));
      }
      info.compute_capability = 10 * (text[0] - '0') + (text[2] - '0');
    }
    listing.variants.push_back(std::move(info));
  }
  if (listing.variants.empty()) throw std::runtime_error("the lab lists no variants");
  std::set<std::string> names;
  for (const VariantInfo& v : listing.variants) {
    if (!names.insert(v.name).second) throw std::runtime_error(fmt::format("two variants are named '{}'", v.name));
  }
  return listing;
}

void check_problems_against_registry(const LabVariants& listing, const std::string& number) {
  const labs::LabEntry* lab = labs::find_lab("lab" + number);
  if (lab == nullptr) return;
  for (const VariantInfo& v : listing.variants) {
    if (!lab->solves(v.problem)) {
      throw std::runtime_error(fmt::format("variant {} claims to solve {}, which no variant of lab {} solves in the "
                                           "lab registry", v.name, problem_name(v.problem), number));
    }
  }
}

std::optional<LabVariants> list_lab(const fs::path& exe, const fs::path& work_dir, std::string* error,
                                   const std::optional<SandboxSpec>& sandbox) {
  fs::create_directories(work_dir);
  const fs::path json_path = work_dir / (exe.filename().string() + "-list.json");
  fs::remove(json_path);
  const ProcessResult p = run_process(
      lab_sandbox_argv(sandbox, exe, {}, work_dir, {exe.string(), "--list", "--json", json_path.string()}),
      std::chrono::seconds(60), work_dir.string());
  auto fail = [&](const std::string& why) -> std::optional<LabVariants> {
    if (error) *error = fmt::format("{} --list: {}", exe.filename().string(), why);
    return std::nullopt;
  };
  if (p.spawn_failed || p.signaled || p.timed_out || p.exit_code != 0) {
    return fail(fmt::format("{}: {}", p.describe(), p.output.substr(0, 300)));
  }
  std::error_code ec;
  if (!fs::exists(json_path, ec) && !fs::is_symlink(json_path, ec)) {
    return fail("wrote no list (an executable from before `--list --json`? rebuild it)");
  }
  try {
    return parse_lab_variants(parse_json(read_file(json_path, kMaxTextFileBytes), json_path.string()));
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

}  // namespace convlab::grader
