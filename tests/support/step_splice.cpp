#include "step_splice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <vector>

namespace convlab::testing {

std::map<std::string, StepRegion> find_steps(const std::string& text, const std::string& name) {
  static const std::regex marker(R"(// ==== (BEGIN|END) STEP (\d+[a-z]?)(?:: ([^\n]*?))? ====[^\n]*\n)");
  std::map<std::string, StepRegion> steps;
  std::string open;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), marker); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    const std::string n = m[2];
    const std::size_t at = static_cast<std::size_t>(m.position(0));
    if (m[1] == "BEGIN") {
      if (!open.empty()) throw std::runtime_error(fmt::format("{}: step {} begins inside step {}", name, n, open));
      if (steps.count(n)) throw std::runtime_error(fmt::format("{}: step {} is marked twice", name, n));
      steps[n] = {m[3], at + static_cast<std::size_t>(m.length(0)), 0};
      open = n;
    } else {
      if (open != n) throw std::runtime_error(fmt::format("{}: END STEP {} without its BEGIN", name, n));
      steps[n].body_end = at;
      open.clear();
    }
  }
  if (!open.empty()) throw std::runtime_error(fmt::format("{}: step {} is never closed (no END STEP {})", name, open, open));
  return steps;
}

std::string splice_steps(const std::string& skeleton, const std::string& solution, const std::set<std::string>& steps) {
  const std::map<std::string, StepRegion> from = find_steps(solution, "the solution");
  const std::map<std::string, StepRegion> into = find_steps(skeleton, "the skeleton");
  // Last region first, so that earlier offsets stay valid.
  std::vector<std::string> order(steps.begin(), steps.end());
  for (const std::string& n : order) {
    if (!from.count(n)) throw std::runtime_error(fmt::format("the solution marks no step {}", n));
    if (!into.count(n)) throw std::runtime_error(fmt::format("the skeleton marks no step {}", n));
  }
  std::sort(order.begin(), order.end(),
            [&](const std::string& a, const std::string& b) { return into.at(a).body_begin > into.at(b).body_begin; });
  std::string out = skeleton;
  for (const std::string& n : order) {
    const StepRegion& s = from.at(n);
    const StepRegion& d = into.at(n);
    if (s.title != d.title) {
      throw std::runtime_error(fmt::format("step {} is \"{}\" in the skeleton but \"{}\" in the solution", n, d.title,
                                           s.title));
    }
    out.replace(d.body_begin, d.body_end - d.body_begin, solution.substr(s.body_begin, s.body_end - s.body_begin));
  }
  return out;
}

std::string splice_all_steps(const std::string& skeleton, const std::string& solution) {
  std::set<std::string> all;
  for (const auto& [id, region] : find_steps(skeleton, "the skeleton")) all.insert(id);
  return splice_steps(skeleton, solution, all);
}

std::string without_step_bodies(const std::string& text, const std::string& name) {
  std::vector<StepRegion> regions;
  for (const auto& [id, region] : find_steps(text, name)) regions.push_back(region);
  // Last region first, so that earlier offsets stay valid.
  std::sort(regions.begin(), regions.end(),
            [](const StepRegion& a, const StepRegion& b) { return a.body_begin > b.body_begin; });
  std::string out = text;
  for (const StepRegion& r : regions) out.erase(r.body_begin, r.body_end - r.body_begin);
  return out;
}

std::string code_of(const std::string& text, const std::string& name) {
  const std::size_t include = text.find("\n#include");
  const std::size_t pragma = text.find("\n#pragma once");
  const std::size_t at = std::min(include, pragma);
  if (at == std::string::npos) throw std::runtime_error(name + ": no #include or #pragma once line");
  const std::size_t beyond = text.find("\n// ---- Beyond the lab ----");
  return text.substr(at, beyond == std::string::npos ? std::string::npos : beyond - at);
}

std::map<std::string, bool> written_flags(const std::string& text) {
  static const std::regex flag(R"(constexpr\s+bool\s+kStep(\d+[a-z]?)Written\s*=\s*(true|false)\s*;)");
  std::map<std::string, bool> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), flag); it != std::sregex_iterator(); ++it) {
    out[(*it)[1]] = (*it)[2] == "true";
  }
  return out;
}

}  // namespace convlab::testing
