#include "step_splice.hpp"

#include <fmt/format.h>

#include <regex>

namespace convlab::testing {

std::map<int, StepRegion> find_steps(const std::string& text, const std::string& name) {
  static const std::regex marker(R"(// ==== (BEGIN|END) STEP (\d+)(?:: ([^\n]*?))? ====[^\n]*\n)");
  std::map<int, StepRegion> steps;
  int open = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), marker); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    const int n = std::stoi(m[2]);
    const std::size_t at = static_cast<std::size_t>(m.position(0));
    if (m[1] == "BEGIN") {
      if (open != 0) throw std::runtime_error(fmt::format("{}: step {} begins inside step {}", name, n, open));
      if (steps.count(n)) throw std::runtime_error(fmt::format("{}: step {} is marked twice", name, n));
      steps[n] = {m[3], at + static_cast<std::size_t>(m.length(0)), 0};
      open = n;
    } else {
      if (open != n) throw std::runtime_error(fmt::format("{}: END STEP {} without its BEGIN", name, n));
      steps[n].body_end = at;
      open = 0;
    }
  }
  if (open != 0) throw std::runtime_error(fmt::format("{}: step {} is never closed (no END STEP {})", name, open, open));
  return steps;
}

std::string splice_steps(const std::string& skeleton, const std::string& solution, const std::set<int>& steps) {
  const std::map<int, StepRegion> from = find_steps(solution, "the solution");
  const std::map<int, StepRegion> into = find_steps(skeleton, "the skeleton");
  std::string out = skeleton;
  // Last step first, so that earlier offsets stay valid.
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    const int n = *it;
    if (!from.count(n)) throw std::runtime_error(fmt::format("the solution marks no step {}", n));
    if (!into.count(n)) throw std::runtime_error(fmt::format("the skeleton marks no step {}", n));
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

std::string without_step_bodies(const std::string& text, const std::string& name) {
  const std::map<int, StepRegion> steps = find_steps(text, name);
  std::string out = text;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    out.erase(it->second.body_begin, it->second.body_end - it->second.body_begin);
  }
  return out;
}

}  // namespace convlab::testing
