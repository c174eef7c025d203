#include "schedule/class_folder.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "convlab/contained_paths.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

std::vector<ClassSubmission> read_class_folder(const fs::path& dir, std::string_view role) {
  (void)given_folder(dir, role);
  std::vector<ClassSubmission> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code e;
    if (it->is_symlink(e)) {
      try {
        if (!fs::is_directory(resolve_inside(dir, it->path()), e)) continue;
      } catch (const PathError& refused) {
        out.push_back({name, it->path(), refused.what()});
        continue;
      }
    } else if (!it->is_directory(e)) {
      continue;
    }
    out.push_back({name, it->path(), ""});
  }
  if (ec) throw PathError(fmt::format("{} {}: cannot be read: {}", role, dir.string(), ec.message()));
  std::sort(out.begin(), out.end(), [](const ClassSubmission& a, const ClassSubmission& b) { return a.name < b.name; });
  return out;
}

}  // namespace convlab::grader
