#include "run/lab_sandbox.hpp"

#include <fmt/format.h>

#if CONVLAB_GRADER_CUDA
#include <cuda_runtime.h>
#endif

#include "system/tool_paths.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

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

std::string sandbox_description(bool sandboxed) {
  if (sandboxed) {
    return "sandboxed (bubblewrap): each compile and lab run saw only the system, the CUDA toolkit and driver, its "
           "own inputs and one fresh output folder; no network, no other process";
  }
  return "NOT SANDBOXED (--no-sandbox): the submissions' compiles and runs could read and write whatever this "
         "user can (datasets, expected outputs, other submissions, these reports)";
}

}  // namespace convlab::grader
