#include "system/child_environment.hpp"

#include <unistd.h>

namespace convlab::grader {

namespace {
thread_local std::map<std::string, std::string> t_overrides;
}  // namespace

ScopedChildEnvironment::ScopedChildEnvironment(std::map<std::string, std::string> overrides)
    : previous_(t_overrides) {
  for (auto& [name, value] : overrides) t_overrides[name] = std::move(value);
}

ScopedChildEnvironment::~ScopedChildEnvironment() { t_overrides = std::move(previous_); }

const std::map<std::string, std::string>& child_environment_overrides() { return t_overrides; }

std::vector<std::string> child_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    if (t_overrides.count(name) == 0) out.push_back(entry);
  }
  for (const auto& [name, value] : t_overrides) out.push_back(name + "=" + value);
  return out;
}

}  // namespace convlab::grader
