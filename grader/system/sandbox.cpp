#include "system/sandbox.hpp"

#include <link.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "system/subprocess.hpp"
#include "system/tool_paths.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

namespace {

// The /etc pieces the dynamic loader, the compiler driver (/etc/alternatives: c++, cc) and
// tools that look their user up (getpwuid) read. Not /etc as a whole: no hostnames, no
// credentials of other services.
const char* const kEtcPieces[] = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
                                  "/etc/passwd",      "/etc/group",      "/etc/nsswitch.conf"};
// Top-level folders that hold programs and libraries: bound, or recreated as the links a
// merged /usr makes of them.
const char* const kTopLevelSystem[] = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};

bool path_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

// `p` is `root` or lies inside it (lexically).
bool inside(const fs::path& p, const fs::path& root) {
  const fs::path a = p.lexically_normal(), b = root.lexically_normal();
  auto ai = a.begin();
  for (auto bi = b.begin(); bi != b.end(); ++bi, ++ai) {
    if (bi->empty()) continue;  // the trailing "" of "/usr/"
    if (ai == a.end() || *ai != *bi) return false;
  }
  return true;
}

std::size_t depth(const fs::path& p) { return static_cast<std::size_t>(std::distance(p.begin(), p.end())); }

std::string join(const std::vector<fs::path>& dirs) {
  std::string s;
  for (const fs::path& d : dirs) s += (s.empty() ? "" : ":") + d.string();
  return s;
}

// "0000:3B:00.0" and "00000000:3b:00.0" name the same GPU: compare the numbers.
std::optional<std::array<unsigned, 4>> parse_bus_id(const std::string& s) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  if (std::sscanf(s.c_str(), "%x:%x:%x.%x", &domain, &bus, &device, &function) != 4) return std::nullopt;
  return std::array<unsigned, 4>{domain, bus, device, function};
}

}  // namespace

SandboxSpec SandboxSpec::with_read_only(const std::vector<fs::path>& more) const {
  SandboxSpec s = *this;
  s.read_only.insert(s.read_only.end(), more.begin(), more.end());
  return s;
}

std::vector<std::string> system_binds() {
  std::vector<std::string> a = {"--ro-bind", "/usr", "/usr"};
  for (const char* top : kTopLevelSystem) {
    std::error_code ec;
    if (fs::is_symlink(top, ec)) {
      a.insert(a.end(), {"--symlink", fs::read_symlink(top, ec).string(), top});
    } else if (fs::is_directory(top, ec)) {
      a.insert(a.end(), {"--ro-bind", top, top});
    }
  }
  for (const char* piece : kEtcPieces) {
    if (path_exists(piece)) a.insert(a.end(), {"--ro-bind", piece, piece});
  }
  // The CUDA driver and NVML read the GPU's PCI topology from /sys; it holds no files of users.
  if (path_exists("/sys")) a.insert(a.end(), {"--ro-bind", "/sys", "/sys"});
  return a;
}

std::vector<std::string> sandbox_argv(const SandboxSpec& spec, const std::vector<std::string>& command) {
  std::vector<std::string> a = {spec.bwrap.string(),
                                "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                                "--die-with-parent", "--new-session", "--clearenv", "--cap-drop", "ALL"};
  if (spec.command_as_pid_1) a.push_back("--as-pid-1");
  std::vector<fs::path> path = spec.path;
  for (const char* d : {"/usr/local/bin", "/usr/bin", "/bin"}) path.emplace_back(d);
  a.insert(a.end(), {"--setenv", "PATH", join(path), "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp"});
  if (!spec.library_path.empty()) a.insert(a.end(), {"--setenv", "LD_LIBRARY_PATH", join(spec.library_path)});

  const std::vector<std::string> system = system_binds();
  a.insert(a.end(), system.begin(), system.end());
  a.insert(a.end(), {"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"});
  for (const fs::path& d : spec.devices) {
    if (path_exists(d)) a.insert(a.end(), {"--dev-bind", d.string(), d.string()});
  }

  // Parents before children: a read-only case folder inside the writable folder stays
  // read-only, and a bind under /tmp lands on the private /tmp rather than under it.
  struct Bind {
    fs::path path;
    bool writable;
  };
  // A read-only path inside a folder that is already read-only (the system's /usr, /lib..., or
  // another entry) is there already; binding it again would fail where it is a link, as
  // /usr/local/cuda -> /usr/local/cuda-13.0 is (bwrap cannot mount onto a link of a read-only
  // tree).
  std::vector<fs::path> read_only_roots = {"/usr", "/sys"};
  for (const char* top : kTopLevelSystem) read_only_roots.emplace_back(top);
  for (const char* piece : kEtcPieces) read_only_roots.emplace_back(piece);
  auto covered = [&](const fs::path& p) {
    for (const fs::path& r : read_only_roots) {
      if (inside(p, r)) return true;
    }
    for (const fs::path& q : spec.read_only) {
      if (q.lexically_normal() != p.lexically_normal() && inside(p, q) && path_exists(q)) return true;
    }
    return false;
  };
  std::vector<Bind> binds;
  std::vector<fs::path> bound;
  for (const fs::path& p : spec.read_only) {
    if (!path_exists(p) || covered(p)) continue;
    if (std::find(bound.begin(), bound.end(), p.lexically_normal()) != bound.end()) continue;  // listed twice
    bound.push_back(p.lexically_normal());
    binds.push_back({p, false});
  }
  if (!spec.writable.empty()) binds.push_back({spec.writable, true});
  std::stable_sort(binds.begin(), binds.end(), [](const Bind& x, const Bind& y) { return depth(x.path) < depth(y.path); });
  for (const Bind& b : binds) a.insert(a.end(), {b.writable ? "--bind" : "--ro-bind", b.path.string(), b.path.string()});

  // The root itself (a tmpfs holding the mount points) read-only: nothing is writable but the
  // one folder and /tmp.
  a.insert(a.end(), {"--remount-ro", "/"});
  const fs::path chdir = !spec.working_dir.empty() ? spec.working_dir : !spec.writable.empty() ? spec.writable : fs::path("/");
  a.insert(a.end(), {"--chdir", chdir.string(), "--"});
  a.insert(a.end(), command.begin(), command.end());
  return a;
}

SandboxProbe probe_sandbox() {
  SandboxProbe probe;
  probe.bwrap = find_tool("bwrap");
  if (!probe.bwrap) {
    probe.problem = "bubblewrap (bwrap) is not installed";
    probe.fix = "install it (Debian/Ubuntu: apt-get install bubblewrap; ./convlab test installs it), or put its "
                "folder on PATH";
    return probe;
  }
  SandboxSpec empty;
  empty.bwrap = *probe.bwrap;
  const ProcessResult r = run_process(sandbox_argv(empty, {"/bin/sh", "-c", "exit 0"}), std::chrono::seconds(30));
  if (r.exit_code == 0 && !r.signaled && !r.timed_out && !r.spawn_failed) return probe;
  const std::string said = last_lines(r.output, 3);
  probe.problem = fmt::format("{} cannot start a sandbox here ({}): {}", probe.bwrap->string(), r.describe(),
                              said.empty() ? "it printed nothing" : said);
  while (!probe.problem.empty() && probe.problem.back() == '\n') probe.problem.pop_back();
  if (said.find("namespace") != std::string::npos || said.find("uid map") != std::string::npos ||
      said.find("Operation not permitted") != std::string::npos || said.find("Permission denied") != std::string::npos) {
    probe.fix = "this kernel or container does not allow user namespaces: enable them (sysctl "
                "kernel.unprivileged_userns_clone=1 and user.max_user_namespaces=15000; on Ubuntu 24.04 also "
                "kernel.apparmor_restrict_unprivileged_userns=0), or run the grading container with "
                "--security-opt seccomp=unconfined --security-opt apparmor=unconfined";
  } else {
    probe.fix = "run `bwrap --unshare-all --die-with-parent --ro-bind / / true` to see bubblewrap's own error";
  }
  return probe;
}

std::optional<fs::path> library_folder(const std::string& soname) {
  struct Search {
    std::string soname;
    std::optional<fs::path> found;
  } search{soname, std::nullopt};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_name == nullptr || *info->dlpi_name == '\0') return 0;
        const fs::path p = info->dlpi_name;
        if (p.filename() != s->soname) return 0;
        s->found = p.parent_path();
        return 1;
      },
      &search);
  if (search.found) return search.found;
  for (const char* ldconfig : {"/sbin/ldconfig", "/usr/sbin/ldconfig"}) {
    if (!path_exists(ldconfig)) continue;
    const ProcessResult r = run_process({ldconfig, "-p"}, std::chrono::seconds(20));
    std::istringstream in(r.output);
    std::string line;
    while (std::getline(in, line)) {
      // "\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1"
      const auto arrow = line.find("=> ");
      std::istringstream words(line);
      std::string name;
      words >> name;
      if (name == soname && arrow != std::string::npos) return fs::path(line.substr(arrow + 3)).parent_path();
    }
  }
  return std::nullopt;
}

std::vector<fs::path> gpu_device_nodes(const std::string& pci_bus_id, std::string* error) {
  std::vector<fs::path> nodes;
  for (const char* n : {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"}) {
    if (path_exists(n)) nodes.emplace_back(n);
  }
  std::error_code ec;
  // The driver names each GPU's folder by its bus id and says its minor number inside.
  const auto wanted = parse_bus_id(pci_bus_id);
  for (const auto& gpu : fs::directory_iterator("/proc/driver/nvidia/gpus", ec)) {
    if (!wanted || parse_bus_id(gpu.path().filename().string()) != wanted) continue;
    std::ifstream in(gpu.path() / "information");
    std::string line;
    static const std::regex minor(R"(^Device Minor:\s*([0-9]+))");
    while (std::getline(in, line)) {
      std::smatch m;
      if (std::regex_search(line, m, minor)) {
        nodes.emplace_back("/dev/nvidia" + m[1].str());
        return nodes;
      }
    }
  }
  std::vector<fs::path> gpus;
  static const std::regex gpu_node(R"(^nvidia[0-9]+$)");
  for (const auto& d : fs::directory_iterator("/dev", ec)) {
    if (std::regex_match(d.path().filename().string(), gpu_node)) gpus.push_back(d.path());
  }
  if (gpus.size() == 1) {
    nodes.push_back(gpus.front());
  } else if (error) {
    *error = fmt::format("cannot tell which of the {} /dev/nvidiaN nodes is the GPU at {} "
                         "(/proc/driver/nvidia/gpus/ does not say)", gpus.size(), pci_bus_id);
  }
  return nodes;
}

fs::path install_root(const fs::path& program) {
  std::error_code ec;
  fs::path real = fs::canonical(program, ec);
  if (ec) real = program;
  const fs::path folder = real.parent_path();
  return folder.filename() == "bin" ? folder.parent_path() : folder;
}

void add_with_target(std::vector<fs::path>& out, const fs::path& p) {
  out.push_back(p);
  std::error_code ec;
  const fs::path real = fs::canonical(p, ec);
  if (!ec && real != p) out.push_back(real);
}

}  // namespace convlab::grader
