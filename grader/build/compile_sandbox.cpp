#include "build/compile_sandbox.hpp"

#include <fstream>

namespace convlab::grader {
namespace fs = std::filesystem;

std::vector<fs::path> build_rerun_inputs(const fs::path& build_dir) {
  std::ifstream in(build_dir / "build.ninja");
  std::string line;
  std::vector<fs::path> inputs;
  while (std::getline(in, line)) {
    if (line.rfind("build build.ninja", 0) != 0 || line.find("RERUN_CMAKE") == std::string::npos) continue;
    const auto bar = line.find(" | ");
    if (bar == std::string::npos) break;
    // Ninja escapes a space in a path as "$ " and a colon as "$:".
    std::string token;
    const std::string rest = line.substr(bar + 3);
    for (std::size_t i = 0; i <= rest.size(); ++i) {
      if (i < rest.size() && rest[i] == '$' && i + 1 < rest.size()) {
        token += rest[++i];
      } else if (i == rest.size() || rest[i] == ' ') {
        if (!token.empty() && token[0] == '/') inputs.emplace_back(token);
        token.clear();
      } else {
        token += rest[i];
      }
    }
    break;
  }
  return inputs;
}

std::vector<fs::path> configured_compilers(const fs::path& build_dir) {
  std::vector<fs::path> out;
  std::ifstream cache(build_dir / "CMakeCache.txt");
  for (std::string line; std::getline(cache, line);) {
    for (const char* key : {"CMAKE_CXX_COMPILER:", "CMAKE_C_COMPILER:", "CMAKE_CUDA_COMPILER:",
                            "CMAKE_CUDA_HOST_COMPILER:"}) {
      if (line.rfind(key, 0) != 0) continue;
      const auto eq = line.find('=');
      if (eq == std::string::npos || eq + 1 >= line.size()) continue;
      const fs::path p = line.substr(eq + 1);
      if (p.is_absolute() && fs::exists(p)) out.push_back(p);
    }
  }
  return out;
}

SandboxSpec compile_sandbox(const SandboxSpec& labs, const fs::path& source_dir, const fs::path& harness_dir,
                            const fs::path& build_dir, const std::vector<fs::path>& programs) {
  SandboxSpec spec = labs;
  spec.devices.clear();
  // What the lab targets compile and include: common/ (the harness, its lab mains, lab 07's
  // autotuner headers), the CMake helpers, the offline dependency bundle if there is one.
  // (.deps is often a link to a bundle elsewhere: both paths are bound.)
  for (const char* part : {"common", "cmake", ".deps"}) {
    add_with_target(spec.read_only, source_dir / part);
  }
  // The libraries the labs link and lab 07's precompiler, shared by every submission: read-only.
  add_with_target(spec.read_only, harness_dir);
  for (const fs::path& f : build_rerun_inputs(build_dir)) spec.read_only.push_back(f);
  for (const fs::path& p : programs) add_with_target(spec.read_only, install_root(p));
  // The compilers the build was configured with, wherever they are installed (a machine may
  // keep its g++ in /opt, outside the /usr every sandbox sees).
  for (const fs::path& p : configured_compilers(build_dir)) add_with_target(spec.read_only, install_root(p));
  spec.writable = build_dir;
  spec.working_dir = build_dir;
  spec.command_as_pid_1 = true;  // CMake, Ninja and the compilers wait for all they start: count their time
  return spec;
}

}  // namespace convlab::grader
