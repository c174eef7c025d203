#include "wrong_submissions.hpp"

#include <chrono>

#include "system/tool_paths.hpp"

namespace convlab::testing {

grader::ProcessResult make_wrong_submissions(const std::filesystem::path& dest, const std::vector<std::string>& names) {
  const auto bash = grader::find_tool("bash");
  std::vector<std::string> argv = {bash ? bash->string() : "/bin/bash",
                                   (std::filesystem::path(CONVLAB_SOURCE_DIR) / "scripts" / "wrong-submissions.sh").string(),
                                   dest.string()};
  argv.insert(argv.end(), names.begin(), names.end());
  return grader::run_process(argv, std::chrono::seconds(120));
}

}  // namespace convlab::testing
