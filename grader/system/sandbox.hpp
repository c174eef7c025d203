// The sandbox every step a student controls runs in (the submission's compile, each lab run,
// compute-sanitizer and Nsight Compute around it): bubblewrap (bwrap) with new user, PID,
// network, IPC and UTS namespaces, no capabilities, a cleared environment, and a file system
// made of exactly what the step needs (docs/design.md, "Grader contract").
//
// Inside, the child sees
//   read-only   /usr, /bin /sbin /lib* (or their merged-/usr links), the /etc pieces the
//               loader and the toolchain read, the CUDA toolkit, the driver's libraries
//               (wherever libcuda.so.1 lives), /sys, and each path of SandboxSpec::read_only
//   writable    SandboxSpec::writable (one fresh folder) and a private, empty /tmp; the root
//               that holds the mount points is remounted read-only
//   devices     bwrap's minimal /dev (null, zero, full, random, urandom, tty, ptmx, pts, shm)
//               plus SandboxSpec::devices
//               (the one GPU's nodes) bound as they are
//   /proc       of its own PID namespace: the grader and every other process are invisible
// and nothing else: not the repository, not the datasets, not other submissions, not the
// grader's work and report folders. Every path is bound at the same path it has outside, so
// the command line of the step is the same with and without the sandbox.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace convlab::grader {

/// What one sandboxed step may see besides the system folders.
struct SandboxSpec {
  std::filesystem::path bwrap;                       ///< the bubblewrap executable
  std::vector<std::filesystem::path> read_only;      ///< files and folders, bound read-only
  std::filesystem::path writable;                    ///< the one writable folder (may be empty: none)
  std::vector<std::filesystem::path> devices;        ///< device nodes, bound with --dev-bind
  std::vector<std::filesystem::path> path;           ///< PATH inside (the system's bin folders are added)
  std::vector<std::filesystem::path> library_path;   ///< LD_LIBRARY_PATH inside (the driver's folder)
  std::filesystem::path working_dir;                 ///< --chdir (empty: the writable folder, else /)
  /// The command is the PID namespace's first process (--as-pid-1), waited for by bwrap itself,
  /// so that the grader's wait4 counts its CPU time (under bwrap's own init the time is lost).
  /// For commands that wait for every process they start (a compile); a lab run keeps the init,
  /// which reaps whatever a student's program leaves behind.
  bool command_as_pid_1 = false;

  /// A copy with `more` added read-only.
  [[nodiscard]] SandboxSpec with_read_only(const std::vector<std::filesystem::path>& more) const;
};

/// The argv that runs `command` inside the sandbox `spec` describes. Paths that do not exist
/// are left out (a toolkit without ncu, a machine without /dev/nvidia-uvm-tools); binds are
/// ordered parents first, so a read-only folder inside the writable one stays read-only.
std::vector<std::string> sandbox_argv(const SandboxSpec& spec, const std::vector<std::string>& command);

/// The system folders every sandbox binds read-only (/usr, /lib*, /etc pieces, /sys) and
/// the links of a merged /usr, as bwrap arguments; exposed for the tests and the README.
std::vector<std::string> system_binds();

/// Why the sandbox cannot start here, and how to fix it.
struct SandboxProbe {
  std::optional<std::filesystem::path> bwrap;  ///< found, when it is installed
  std::string problem;                         ///< empty: the sandbox works
  std::string fix;                             ///< what the instructor can do about it
  [[nodiscard]] bool ok() const { return problem.empty(); }
};

/// Finds bwrap and starts `true` in an empty sandbox (every namespace, no capabilities) to see
/// whether this machine allows it: no bwrap, no user namespaces (a kernel setting, or a
/// container that forbids them) and a setuid-less bwrap under a restricted kernel each get
/// their own message.
SandboxProbe probe_sandbox();

/// A program's install folder: <prefix>/bin/tool -> <prefix>, else the tool's own folder.
std::filesystem::path install_root(const std::filesystem::path& program);

/// Appends `p` and, when links lead elsewhere, what it resolves to (/usr/local/cuda ->
/// /usr/local/cuda-13.0): a sandbox binds both, or a path through the link finds nothing.
void add_with_target(std::vector<std::filesystem::path>& out, const std::filesystem::path& p);

/// The folder that holds the shared library `soname` as the dynamic loader would find it:
/// the one already loaded into this process (dl_iterate_phdr), else `ldconfig -p`'s entry.
std::optional<std::filesystem::path> library_folder(const std::string& soname);

/// /dev/nvidiactl, /dev/nvidia-uvm, /dev/nvidia-uvm-tools and the node of the GPU at PCI bus
/// `pci_bus_id` ("0000:3B:00.0"; found through /proc/driver/nvidia/gpus/*/information, or the
/// only /dev/nvidiaN there is). Sets `error` and returns what it has when the GPU's node
/// cannot be told apart from the others.
std::vector<std::filesystem::path> gpu_device_nodes(const std::string& pci_bus_id, std::string* error);

}  // namespace convlab::grader
