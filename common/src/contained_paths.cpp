#include "convlab/contained_paths.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace convlab {
namespace fs = std::filesystem;

namespace {

bool is_loop(const std::error_code& ec) { return ec == std::errc::too_many_symbolic_link_levels; }

/// Whether canonical `p` is `root` or lies below it (both canonical).
bool within(const fs::path& root, const fs::path& p) {
  auto r = root.begin();
  auto q = p.begin();
  for (; r != root.end(); ++r, ++q) {
    if (q == p.end() || *q != *r) return false;
  }
  return true;
}

/// Where the link `link` (which exists) leads, checked; `shown` is how the user named it.
fs::path follow_link(const fs::path& root, const fs::path& link, const fs::path& shown, const fs::path& folder) {
  std::error_code ec;
  const fs::path target = fs::canonical(link, ec);
  if (is_loop(ec)) throw PathError(fmt::format("{}: a loop of symbolic links; not followed", shown.string()));
  if (ec) {
    std::error_code ignored;
    throw PathError(fmt::format("{}: a symbolic link to {}, which does not exist ({}); not followed", shown.string(),
                                fs::read_symlink(link, ignored).string(), ec.message()));
  }
  if (!within(root, target)) {
    throw PathError(fmt::format("{}: a symbolic link to {}, outside {}; not followed (what a command reads and "
                                "writes stays inside the folder it was given)",
                                shown.string(), target.string(), folder.string()));
  }
  return target;
}

}  // namespace

fs::path given_folder(const fs::path& folder, std::string_view role) {
  std::error_code ec;
  const fs::path real = fs::canonical(folder, ec);
  if (is_loop(ec)) throw PathError(fmt::format("{} {}: a loop of symbolic links", role, folder.string()));
  if (ec) throw PathError(fmt::format("{} {}: no such folder", role, folder.string()));
  if (!fs::is_directory(real, ec)) throw PathError(fmt::format("{} {}: is a file, not a folder", role, folder.string()));
  return real;
}

fs::path resolve_inside(const fs::path& folder, const fs::path& path) {
  std::error_code ec;
  const fs::path root = fs::canonical(folder, ec);
  if (is_loop(ec)) throw PathError(fmt::format("{}: a loop of symbolic links", folder.string()));
  if (ec) throw PathError(fmt::format("{}: cannot be resolved: {}", folder.string(), ec.message()));
  const fs::path base = fs::absolute(folder).lexically_normal();
  const fs::path rel = fs::absolute(path).lexically_normal().lexically_relative(base);
  if (rel.empty() || *rel.begin() == "..") {
    throw PathError(fmt::format("{}: is not inside {}", path.string(), folder.string()));
  }
  fs::path at = root;        // resolved so far
  fs::path shown = folder;   // the same, as the user would name it
  for (auto it = rel.begin(); it != rel.end(); ++it) {
    if (*it == "." || it->empty()) continue;
    shown /= *it;
    const fs::path next = at / *it;
    const fs::file_status st = fs::symlink_status(next, ec);
    if (st.type() == fs::file_type::not_found) {
      for (; it != rel.end(); ++it) at /= *it;  // not written yet
      return at;
    }
    if (ec) throw PathError(fmt::format("{}: cannot be read: {}", shown.string(), ec.message()));
    at = fs::is_symlink(st) ? follow_link(root, next, shown, folder) : next;
  }
  return at;
}

fs::path output_inside(const fs::path& folder, const fs::path& file) {
  const fs::path dir = resolve_inside(folder, file.parent_path());
  fs::create_directories(dir);
  // Created now, the folders on the way hold no link: the resolved path is the one to use.
  return dir / file.filename();
}

std::vector<fs::path> files_inside(const fs::path& folder, const SkipEntry& skip) {
  const fs::path root = resolve_inside(folder, folder);
  std::vector<fs::path> files;
  std::vector<fs::path> pending{fs::path()};  // relative folders still to read
  while (!pending.empty()) {
    const fs::path rel_dir = pending.back();
    pending.pop_back();
    std::error_code ec;
    fs::directory_iterator it(root / rel_dir, ec);
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
      const fs::path rel = rel_dir / it->path().filename();
      if (skip && skip(rel)) continue;
      std::error_code e;
      fs::file_status st = it->symlink_status(e);
      if (fs::is_symlink(st)) {
        const fs::path target = follow_link(root, it->path(), folder / rel, folder);
        st = fs::status(target, e);
        if (fs::is_regular_file(st)) files.push_back(rel);
        continue;  // a linked folder: its files are listed where they lie
      }
      if (fs::is_directory(st)) pending.push_back(rel);
      if (fs::is_regular_file(st)) files.push_back(rel);
    }
    if (ec) throw PathError(fmt::format("{}: cannot be read: {}", (folder / rel_dir).string(), ec.message()));
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace convlab
