#include "system/gnuplot_run.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <system_error>

#include "convlab/contained_paths.hpp"
#include "convlab/gnuplot_text.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

GnuplotRun run_gnuplot(const fs::path& gnuplot, const fs::path& dir, const std::string& script,
                       std::chrono::seconds timeout) {
  const fs::path folder = given_folder(dir, "the results folder");
  std::string pattern = (folder / ".gnuplot-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw fs::filesystem_error("cannot make gnuplot's private folder", fs::path(pattern),
                               std::error_code(errno, std::generic_category()));
  }
  const fs::path work = pattern;  // new, empty, ours: nothing in it to write through
  GnuplotRun out;
  out.process = run_process({gnuplot.string(), "-e", "set loadpath " + gnuplot_string(folder.string()),
                             (folder / script).string()},
                            timeout, work.string());
  std::error_code ec;
  for (fs::directory_iterator it(work, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code e;
    if (it->path().extension() != ".png" || !fs::is_regular_file(it->symlink_status(e))) continue;
    fs::rename(it->path(), folder / it->path().filename(), e);
    if (!e) out.drawn.push_back(it->path().filename().string());
  }
  fs::remove_all(work, ec);
  std::sort(out.drawn.begin(), out.drawn.end());
  return out;
}

}  // namespace convlab::grader
