#include "engine/grading_sandbox.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#if CONVLAB_GRADER_CUDA
#include <cuda_runtime.h>
#endif

#include "system/tool_paths.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

namespace {

// A program's install folder: <prefix>/bin/tool -> <prefix>, else the tool's own folder.
fs::path install_root(const fs::path& program) {
  std::error_code ec;
  fs::path real = fs::canonical(program, ec);
  if (ec) real = program;
  const fs::path folder = real.parent_path();
  return folder.filename() == "bin" ? folder.parent_path() : folder;
}

// Both a path and what its links resolve to (/usr/local/cuda -> /usr/local/cuda-12.4).
void add_with_target(std::vector<fs::path>& out, const fs::path& p) {
  out.push_back(p);
  std::error_code ec;
  const fs::path real = fs::canonical(p, ec);
  if (!ec && real != p) out.push_back(real);
}

}  // namespace

std::optional<SandboxSpec> make_lab_sandbox(const std::string& pci_bus_id, const std::vector<fs::path>& tools,
                                            std::string* problem, std::string* fix) {
  const SandboxProbe probe = probe_sandbox();
  if (!probe.ok()) {
    *problem = probe.problem;
    *fix = probe.fix;
    return std::nullopt;
  }
  SandboxSpec spec;
  spec.bwrap = *probe.bwrap;
#if CONVLAB_GRADER_CUDA
  // The driver creates /dev/nvidia-uvm on the first context of the machine; a node that does
  // not exist yet cannot be bound into the sandbox.
  if (const cudaError_t e = cudaFree(nullptr); e != cudaSuccess) {
    *problem = fmt::format("the GPU does not open: {} ({})", cudaGetErrorString(e), cudaGetErrorName(e));
    *fix = "check nvidia-smi";
    return std::nullopt;
  }
  cudaDeviceReset();  // the node stays; the grader keeps no context on the GPU it times on
#endif
  std::string nodes_error;
  spec.devices = gpu_device_nodes(pci_bus_id, &nodes_error);
  if (!nodes_error.empty()) {
    *problem = nodes_error;
    *fix = "make /proc/driver/nvidia/gpus/ visible, or leave one GPU in the container";
    return std::nullopt;
  }
  // The driver's libraries, wherever this machine keeps libcuda.so.1 (a container runtime
  // often mounts them outside /usr).
  if (const auto driver = library_folder("libcuda.so.1")) {
    add_with_target(spec.read_only, *driver);
    spec.library_path.push_back(*driver);
  }
  const fs::path cuda_bin = CONVLAB_CUDA_BIN_DIR;
  if (!cuda_bin.empty()) {
    add_with_target(spec.read_only, cuda_bin.parent_path());
    spec.path.push_back(cuda_bin);
  }
  for (const fs::path& t : tools) {
    const fs::path root = install_root(t);
    add_with_target(spec.read_only, root);
    // The toolkit's `ncu` is a script that runs <toolkit>/nsight-compute-VERSION/ncu, and that
    // folder is often a link out of the toolkit (to /opt/nvidia/nsight-compute/VERSION), or the
    // script looks in /opt/nvidia itself: bind each such folder and where it leads, or ncu finds
    // no Nsight Compute inside the sandbox.
    std::error_code ec;
    for (const fs::path& base : {root, root.parent_path(), fs::path("/opt/nvidia")}) {
      for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().filename().string().rfind("nsight-compute", 0) == 0) add_with_target(spec.read_only, it->path());
      }
    }
  }
  return spec;
}

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
  // What the lab targets compile and include: the harness (and its lab mains), lab 07's
  // autotuner headers, the CMake helpers, the offline dependency bundle if there is one.
  // (.deps is often a link to a bundle elsewhere: both paths are bound.)
  for (const char* part : {"harness", "model", "tools/autotune", "cmake", ".deps"}) {
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
  return spec;
}

std::string sandbox_description(bool sandboxed) {
  if (sandboxed) {
    return "sandboxed (bubblewrap): each compile and lab run saw only the system, the CUDA toolkit and driver, its "
           "own inputs and one fresh output folder; no network, no other process";
  }
  return "NOT SANDBOXED (--no-sandbox): the submissions' compiles and runs could read and write whatever this "
         "user can (datasets, expected outputs, other submissions, these reports)";
}

}  // namespace convlab::grader
