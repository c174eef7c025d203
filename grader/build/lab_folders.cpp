#include "build/lab_folders.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "convlab/lab_registry.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

namespace {

bool is_source(const fs::path& p) {
  static const char* const kExtensions[] = {".cu", ".cuh", ".cpp", ".hpp", ".h", ".cc", ".c"};
  const std::string ext = p.extension().string();
  return std::find(std::begin(kExtensions), std::end(kExtensions), ext) != std::end(kExtensions);
}

}  // namespace

std::vector<LabInfo> discover_labs(const fs::path& labs_dir) {
  // The folders a lab folder's name could be; each must be a lab of the registry.
  const std::regex name(R"((\d\d)-[A-Za-z0-9_-]+)");
  std::error_code ec;
  bool any = false;
  for (const auto& entry : fs::directory_iterator(labs_dir, ec)) {
    const std::string folder = entry.path().filename().string();
    if (!entry.is_directory() || !std::regex_match(folder, name)) continue;
    // A folder with nothing to compile is reading, not a lab (00-start, the start page).
    bool has_source = false;
    for (const auto& f : fs::directory_iterator(entry.path(), ec)) has_source |= f.is_regular_file() && is_source(f.path());
    if (!has_source) continue;
    any = true;
    const bool known = std::any_of(labs::kLabs.begin(), labs::kLabs.end(),
                                   [&](const labs::LabEntry& l) { return folder == l.folder; });
    if (!known) {
      throw std::runtime_error(fmt::format("{} is not a lab of the lab registry (convlab/lab_registry.hpp)",
                                           (labs_dir / folder).string()));
    }
  }
  if (!any) {
    throw std::runtime_error(fmt::format("no lab folders (NN-name/) in {}{}", labs_dir.string(),
                                         ec ? ": " + ec.message() : ""));
  }
  std::vector<LabInfo> out;
  for (const labs::LabEntry& l : labs::kLabs) {  // in number order
    const fs::path dir = labs_dir / l.folder;
    if (!fs::is_directory(dir)) {
      throw std::runtime_error(fmt::format("{} is missing (the lab registry lists lab {} there)", dir.string(),
                                           l.number_text()));
    }
    LabInfo lab{l.number_text(), l.folder, {}};
    for (const auto& f : fs::directory_iterator(dir)) {
      if (f.is_regular_file() && is_source(f.path())) lab.files.push_back(f.path().filename().string());
    }
    std::sort(lab.files.begin(), lab.files.end());
    out.push_back(std::move(lab));
  }
  return out;
}

std::vector<LabInfo> select_labs(const std::vector<LabInfo>& all, const std::string& spec) {
  if (spec.empty() || spec == "all") return all;
  std::vector<LabInfo> chosen;
  std::stringstream items(spec);
  std::string item;
  const std::regex form(R"((?:lab)?0*(\d{1,2}))");
  while (std::getline(items, item, ',')) {
    std::smatch m;
    if (!std::regex_match(item, m, form)) {
      throw std::invalid_argument(fmt::format("--labs: '{}' is not a lab number (e.g. 01 or lab01)", item));
    }
    const std::string number = fmt::format("{:02d}", std::stoi(m[1]));
    const auto it = std::find_if(all.begin(), all.end(), [&](const LabInfo& l) { return l.number == number; });
    if (it == all.end()) {
      std::string known;
      for (const LabInfo& l : all) known += (known.empty() ? "" : ", ") + l.number;
      throw std::invalid_argument(fmt::format("--labs: there is no lab {} (the labs are {})", item, known));
    }
    if (std::none_of(chosen.begin(), chosen.end(), [&](const LabInfo& l) { return l.number == number; })) {
      chosen.push_back(*it);
    }
  }
  std::sort(chosen.begin(), chosen.end(), [](const LabInfo& a, const LabInfo& b) { return a.number < b.number; });
  return chosen;
}

std::vector<std::string> missing_files(const fs::path& submission, const LabInfo& lab) {
  std::vector<std::string> missing;
  for (const std::string& f : lab.files) {
    std::error_code ec;  // a loop of links reads as missing here; staging names it (contained_paths.hpp)
    if (!fs::is_regular_file(submission / lab.folder / f, ec)) missing.push_back(lab.folder + "/" + f);
  }
  return missing;
}

}  // namespace convlab::grader
