// The grader's sandbox without a GPU: the bubblewrap command line it builds, and the fake lab
// (tests/support/fake_lab.cpp) doing what a cheating submission does — walking up to the
// datasets, reading the grader's memory, ptrace-attaching to it, connecting to a loopback
// listener, reading its environment, writing into the datasets and the report folder — once
// unsandboxed (each cheat works: the test could fail) and once in the sandbox the grader
// uses (each earns 0 correctness, and the datasets, the reports and the executables' folder are
// byte-identical afterwards). The sandboxed tests skip, saying why, only where bubblewrap is
// missing or the machine forbids user namespaces.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "convlab/file_reader.hpp"
#include "build/compile_sandbox.hpp"
#include "run/lab_sandbox.hpp"
#include "grade/lab_grader.hpp"
#include "run/reasons.hpp"
#include "grader_test_support.hpp"
#include "reports/batch_report.hpp"
#include "reports/grade_report.hpp"
#include "system/sandbox.hpp"
#include "system/exit_codes.hpp"
#include "system/subprocess.hpp"
#include "system/tool_paths.hpp"

using namespace convlab;
using namespace convlab::grader;
using namespace convlab::grader::testing;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// The lab runs' sandbox on a machine without a GPU (no device nodes), or nullopt after saying
// why it cannot start here.
std::optional<SandboxSpec> cpu_sandbox() {
  const SandboxProbe probe = probe_sandbox();
  if (!probe.ok()) {
    WARN("SKIPPED: the sandbox cannot start on this machine: " << probe.problem << " (" << probe.fix << ")");
    return std::nullopt;
  }
  SandboxSpec spec;
  spec.bwrap = *probe.bwrap;
  return spec;
}

bool contains(const std::vector<std::string>& argv, const std::vector<std::string>& run) {
  return std::search(argv.begin(), argv.end(), run.begin(), run.end()) != argv.end();
}

std::ptrdiff_t position(const std::vector<std::string>& argv, const std::vector<std::string>& run) {
  return std::search(argv.begin(), argv.end(), run.begin(), run.end()) - argv.begin();
}

// Every file under `root` by relative path, with its bytes: "byte-identical" compares these.
std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    files[fs::relative(e.path(), root).string()] = s.str();
  }
  return files;
}

// A hostile fake lab graded against a correct fake reference on the small case set, with
// `sandbox` (nullopt: unsandboxed). The datasets (with expected.npy), a report folder and the
// executables' folder live side by side in `tmp`, as they do around a real grader.
struct Hostile {
  LabResult lab;
  bool datasets_unchanged = false, reports_unchanged = false, executables_unchanged = false;
};

Hostile grade_hostile(const TempDir& tmp, const std::string& args, const std::optional<SandboxSpec>& sandbox) {
  const fs::path reports = tmp.path() / "reports";
  fs::create_directories(reports);
  std::ofstream(reports / "earlier-report.json") << "{\"format\": \"convlab-grade\"}\n";
  const fs::path reference = fake_lab(tmp.path() / "bin", "reference", "--fake-time-ms 1");
  const fs::path lab = fake_lab(tmp.path() / "bin", "lab", args);
  CaseSet cases = small_case_set(tmp.path() / "datasets");
  const auto datasets_before = snapshot(tmp.path() / "datasets");
  const auto reports_before = snapshot(reports);
  const auto bin_before = snapshot(tmp.path() / "bin");
  GradeSettings settings = test_settings();
  settings.sandbox = sandbox;
  auto env = make_env(std::move(cases), tmp.path() / "work", reference, settings);
  Hostile h;
  h.lab = grade_lab(lab01(), executable(lab), *env);
  h.datasets_unchanged = snapshot(tmp.path() / "datasets") == datasets_before;
  h.reports_unchanged = snapshot(reports) == reports_before;
  h.executables_unchanged = snapshot(tmp.path() / "bin") == bin_before;
  return h;
}

// What the sandboxed hostile lab must come to: no correctness point, for the output it wrote,
// and nothing outside its own output folder touched.
void check_refused(const Hostile& h, const std::string& reason) {
  INFO(h.lab.headline());
  for (const RunRecord& f : h.lab.correctness.failures) INFO(f.case_id << ": " << f.message);
  CHECK_FALSE(h.lab.could_not_grade);
  CHECK(h.lab.correctness.runs == 3);
  CHECK(h.lab.correctness.passed == 0);
  CHECK(h.lab.correctness_points == 0);
  CHECK(h.lab.performance_points == 0);
  CHECK(std::find(h.lab.reasons.begin(), h.lab.reasons.end(), reason) != h.lab.reasons.end());
  CHECK(h.datasets_unchanged);
  CHECK(h.reports_unchanged);
  CHECK(h.executables_unchanged);
}

// The same lab unsandboxed gets through: the cheat is real, so the sandboxed test can fail.
void check_cheats(const Hostile& h) {
  INFO(h.lab.headline());
  CHECK(h.lab.correctness.passed == 3);
  CHECK(h.lab.correctness_points > 0);
}

// ptrace and /proc/PID/mem of an ancestor are allowed unsandboxed unless Yama restricts them.
bool ptrace_of_ancestors_allowed() {
  std::ifstream in("/proc/sys/kernel/yama/ptrace_scope");
  int scope = 0;
  return !(in >> scope) || scope == 0 || geteuid() == 0;
}

// A TCP listener on 127.0.0.1 (an ephemeral port) for as long as it lives.
class LoopbackListener {
 public:
  LoopbackListener() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    REQUIRE(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(listen(fd_, 64) == 0);  // connections complete in the backlog: no accept needed
    REQUIRE(getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    port_ = ntohs(addr.sin_port);
  }
  ~LoopbackListener() { close(fd_); }
  [[nodiscard]] int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

}  // namespace

TEST_CASE("sandbox: the bwrap command line has every namespace, no capability and a cleared environment",
          "[grader][sandbox]") {
  TempDir tmp("sandbox-argv");
  fs::create_directories(tmp.path() / "work" / "cases");
  SandboxSpec spec;
  spec.bwrap = "/usr/bin/bwrap";
  spec.read_only = {tmp.path() / "work" / "cases", tmp.path() / "lab01", tmp.path() / "no-such-file"};
  std::ofstream(tmp.path() / "lab01") << "x";
  spec.writable = tmp.path() / "work";
  spec.devices = {"/dev/null", "/dev/no-such-gpu"};
  spec.library_path = {"/opt/driver/lib"};
  const std::vector<std::string> a = sandbox_argv(spec, {"/bin/lab01", "--list"});
  for (const char* flag : {"--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                           "--die-with-parent", "--new-session", "--clearenv"}) {
    CHECK(contains(a, {flag}));
  }
  CHECK(contains(a, {"--cap-drop", "ALL"}));
  CHECK_FALSE(contains(a, {"--share-net"}));
  CHECK(contains(a, {"--setenv", "HOME", "/tmp"}));
  CHECK(contains(a, {"--setenv", "TMPDIR", "/tmp"}));
  CHECK(contains(a, {"--setenv", "LD_LIBRARY_PATH", "/opt/driver/lib"}));
  CHECK(contains(a, {"--proc", "/proc"}));
  CHECK(contains(a, {"--tmpfs", "/tmp"}));
  CHECK(contains(a, {"--ro-bind", "/usr", "/usr"}));
  CHECK(contains(a, {"--dev-bind", "/dev/null", "/dev/null"}));
  CHECK_FALSE(contains(a, {"--dev-bind", "/dev/no-such-gpu", "/dev/no-such-gpu"}));  // absent: left out
  CHECK_FALSE(contains(a, {"--ro-bind", (tmp.path() / "no-such-file").string(), (tmp.path() / "no-such-file").string()}));
  const std::string work = (tmp.path() / "work").string(), cases = (tmp.path() / "work" / "cases").string();
  REQUIRE(contains(a, {"--bind", work, work}));
  REQUIRE(contains(a, {"--ro-bind", cases, cases}));
  // The read-only cases inside the writable folder are mounted after it, so they stay read-only;
  // and everything under /tmp lands on the private /tmp, mounted before.
  CHECK(position(a, {"--bind", work, work}) < position(a, {"--ro-bind", cases, cases}));
  CHECK(position(a, {"--tmpfs", "/tmp"}) < position(a, {"--bind", work, work}));
  CHECK(contains(a, {"--remount-ro", "/", "--chdir", work, "--", "/bin/lab01", "--list"}));
  // Nothing else of the machine: no bind of / or of the home folders.
  CHECK_FALSE(contains(a, {"--bind", "/", "/"}));
  CHECK_FALSE(contains(a, {"--ro-bind", "/", "/"}));
  CHECK_FALSE(contains(a, {"--ro-bind", "/etc", "/etc"}));
  CHECK_FALSE(contains(a, {"--ro-bind", "/home", "/home"}));
}

TEST_CASE("sandbox: a read-only path inside /usr or inside another read-only path is not bound again",
          "[grader][sandbox]") {
  TempDir tmp("sandbox-covered");
  fs::create_directories(tmp.path() / "toolkit" / "bin");
  SandboxSpec spec;
  spec.bwrap = "/usr/bin/bwrap";
  const fs::path inside_usr = "/usr/bin";  // exists everywhere; /usr is bound already
  spec.read_only = {inside_usr, tmp.path() / "toolkit", tmp.path() / "toolkit" / "bin", tmp.path() / "toolkit"};
  const std::vector<std::string> a = sandbox_argv(spec, {"/bin/true"});
  const std::string toolkit = (tmp.path() / "toolkit").string(), bin = (tmp.path() / "toolkit" / "bin").string();
  CHECK_FALSE(contains(a, {"--ro-bind", "/usr/bin", "/usr/bin"}));
  CHECK_FALSE(contains(a, {"--ro-bind", bin, bin}));
  CHECK(std::count(a.begin(), a.end(), toolkit) == 2);  // one bind (source and destination), not two
}

TEST_CASE("sandbox: a toolkit path that is a link inside /usr (/usr/local/cuda) does not stop the sandbox",
          "[grader][sandbox]") {
  const auto sandbox = cpu_sandbox();
  if (!sandbox) return;
  SandboxSpec spec = *sandbox;
  // Whatever this machine has: /usr/local/cuda is often a link to /usr/local/cuda-N.M.
  spec.read_only = {"/usr/local/cuda", "/usr/local/cuda/bin", "/usr/lib"};
  const ProcessResult r = run_process(sandbox_argv(spec, {"/bin/sh", "-c", "exit 0"}), 30s);
  INFO(r.output);
  CHECK(r.exit_code == 0);
}

TEST_CASE("sandbox: without bwrap on PATH the probe says it is not installed and how to install it",
          "[grader][sandbox]") {
  TempDir tmp("sandbox-probe");
  const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", tmp.path().c_str(), 1);
  const SandboxProbe probe = probe_sandbox();
  setenv("PATH", saved.c_str(), 1);
  CHECK_FALSE(probe.ok());
  CHECK_FALSE(probe.bwrap.has_value());
  CHECK_THAT(probe.problem, Catch::Contains("bubblewrap (bwrap) is not installed"));
  CHECK_THAT(probe.fix, Catch::Contains("apt-get install bubblewrap"));
}

TEST_CASE("sandbox: the compile's re-run inputs are read from build.ninja, escaped spaces included",
          "[grader][sandbox]") {
  TempDir tmp("sandbox-ninja");
  std::ofstream(tmp.path() / "build.ninja")
      << "# comment\nbuild build.ninja: RERUN_CMAKE | /src/CMakeLists.txt /src/my$ dir/x.cmake CMakeCache.txt "
         "/usr/share/cmake/M.cmake\n  pool = console\n";
  const std::vector<fs::path> in = build_rerun_inputs(tmp.path());
  CHECK(in == std::vector<fs::path>{"/src/CMakeLists.txt", "/src/my dir/x.cmake", "/usr/share/cmake/M.cmake"});
  CHECK(build_rerun_inputs(tmp.path() / "none").empty());
}

TEST_CASE("sandbox: a sandboxed child sees no repository, no datasets, no grader environment, no network",
          "[grader][sandbox]") {
  const auto sandbox = cpu_sandbox();
  if (!sandbox) return;
  TempDir tmp("sandbox-view");
  const fs::path out = tmp.path() / "out";
  fs::create_directories(out);
  SandboxSpec spec = *sandbox;
  spec.writable = out;
  setenv("CONVLAB_TEST_SECRET", "hunter2", 1);
  const std::string script = fmt::format(
      "ls {0} 2>&1; ls {1} 2>&1; env; cat /proc/[0-9]*/comm; grep CapEff /proc/self/status; "
      "echo interfaces=$(tail -n +3 /proc/net/dev | wc -l); echo written > {2}/ok.txt; touch /tmp/t && echo tmp-ok; "
      "touch /rootfile 2>&1; echo x > {3}/planted.txt",
      CONVLAB_SOURCE_DIR, (fs::path(CONVLAB_SOURCE_DIR) / "datasets").string(), out.string(), tmp.path().string());
  const ProcessResult r = run_process(sandbox_argv(spec, {"/bin/sh", "-c", script}), 30s);
  unsetenv("CONVLAB_TEST_SECRET");
  INFO(r.output);
  CHECK_THAT(r.output, Catch::Contains(fmt::format("ls: cannot access '{}': No such file or directory", CONVLAB_SOURCE_DIR)));
  CHECK_THAT(r.output, !Catch::Contains("hunter2"));
  CHECK_THAT(r.output, Catch::Contains("HOME=/tmp"));
  CHECK_THAT(r.output, Catch::Contains("CapEff:\t0000000000000000"));
  CHECK_THAT(r.output, !Catch::Contains("convlab_tests"));  // its own PID namespace: not even its grader
  CHECK_THAT(r.output, Catch::Contains("interfaces=1"));    // its own network namespace: loopback only
  CHECK(fs::exists(out / "ok.txt"));                        // the one writable folder
  CHECK_THAT(r.output, Catch::Contains("tmp-ok"));          // and a private /tmp
  CHECK_THAT(r.output, Catch::Contains("cannot touch '/rootfile': Read-only file system"));
  CHECK_FALSE(fs::exists(tmp.path() / "planted.txt"));      // that lands on the private /tmp
}

TEST_CASE("sandbox: a compile cannot #include a dataset file it could reach through the harness's include folder",
          "[grader][sandbox]") {
  const auto sandbox = cpu_sandbox();
  if (!sandbox) return;
  // A project as the submission build sees it: common/include is read-only, datasets/ is not
  // there, the build folder (with the staged submission) is the one writable folder.
  TempDir tmp("sandbox-compile");
  const fs::path project = tmp.path() / "project";
  fs::create_directories(project / "common" / "include");
  fs::create_directories(project / "datasets");
  std::ofstream(project / "datasets" / "answers.h") << "constexpr float kStolen = 42.0f;\n";
  const fs::path build = project / "build-submissions";
  fs::create_directories(build / "submission");
  std::ofstream(build / "submission" / "lab.cpp") << "#include \"../../datasets/answers.h\"\nfloat f() { return kStolen; }\n";
  const std::vector<std::string> compile = {"/usr/bin/g++", "-I" + (project / "common" / "include").string(), "-c",
                                            (build / "submission" / "lab.cpp").string(), "-o", (build / "lab.o").string()};
  const auto gxx_ok = run_process(compile, 120s);
  REQUIRE(gxx_ok.exit_code == 0);  // unsandboxed, the include works: the cheat is real
  fs::remove(build / "lab.o");
  const fs::path harness = tmp.path() / "harness";
  fs::create_directories(harness);
  const SandboxSpec spec = compile_sandbox(*sandbox, project, harness, build, {"/usr/bin/g++"});
  const ProcessResult r = run_process(sandbox_argv(spec, compile), 120s);
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.output, Catch::Contains("answers.h: No such file or directory"));
  CHECK_FALSE(fs::exists(build / "lab.o"));
}

TEST_CASE("sandbox: a configured CMake/Ninja build compiles in the compile sandbox without re-running CMake",
          "[grader][sandbox]") {
  const auto sandbox = cpu_sandbox();
  if (!sandbox) return;
  const auto ninja = find_tool("ninja");
  if (!ninja) {
    WARN("SKIPPED: ninja is not installed");
    return;
  }
  // A project shaped like convlab's: sources under common/, a datasets/ folder beside them.
  TempDir tmp("sandbox-cmake");
  const fs::path project = tmp.path() / "project";
  fs::create_directories(project / "common" / "include");
  fs::create_directories(project / "common" / "src");
  fs::create_directories(project / "datasets");
  std::ofstream(project / "CMakeLists.txt")
      << "cmake_minimum_required(VERSION 3.20)\nproject(p CXX)\nadd_subdirectory(common)\n";
  std::ofstream(project / "common" / "CMakeLists.txt")
      << "add_executable(lab src/lab.cpp)\ntarget_include_directories(lab PRIVATE include)\n";
  std::ofstream(project / "common" / "include" / "h.hpp") << "inline int answer() { return 42; }\n";
  std::ofstream(project / "common" / "src" / "lab.cpp")
      << "#include \"h.hpp\"\n#include \"prebuilt.hpp\"\nint main() { return answer() - kPrebuilt; }\n";
  // What the prebuilt harness's folder holds for the lab (build/harness_build.hpp), outside the project.
  const fs::path harness = tmp.path() / "harness";
  fs::create_directories(harness);
  std::ofstream(harness / "prebuilt.hpp") << "constexpr int kPrebuilt = 42;\n";
  const fs::path build = tmp.path() / "build";
  const ProcessResult conf = run_process({cmake_program().string(), "-S", project.string(), "-B", build.string(), "-G",
                                          "Ninja", "-DCMAKE_MAKE_PROGRAM=" + ninja->string(),
                                          "-DCMAKE_CXX_FLAGS=-I" + harness.string()},
                                         300s);
  INFO(conf.output);
  REQUIRE(conf.exit_code == 0);
  const SandboxSpec spec = compile_sandbox(*sandbox, project, harness, build, {cmake_program(), *ninja, "/usr/bin/c++"});
  const ProcessResult r = run_process(sandbox_argv(spec, {cmake_program().string(), "--build", build.string()}), 300s);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, !Catch::Contains("Re-running CMake"));  // every CMake input was there
  CHECK(fs::exists(build / "common" / "lab"));
}

TEST_CASE("sandbox: a compile reads the shared harness's build folder but cannot change what the next student links",
          "[grader][sandbox]") {
  const auto sandbox = cpu_sandbox();
  if (!sandbox) return;
  TempDir tmp("sandbox-harness");
  const fs::path project = tmp.path() / "project";
  fs::create_directories(project / "common");
  const fs::path harness = tmp.path() / "build" / "harness";
  const fs::path build = tmp.path() / "build" / "worker-0";
  fs::create_directories(harness);
  fs::create_directories(build);
  std::ofstream(harness / "libconvlab_runner.a") << "the harness\n";
  const std::string lib = (harness / "libconvlab_runner.a").string();
  const SandboxSpec spec = compile_sandbox(*sandbox, project, harness, build, {"/usr/bin/g++"});
  const ProcessResult read = run_process(sandbox_argv(spec, {"/bin/cat", lib}), 60s);
  INFO(read.output);
  CHECK(read.exit_code == 0);
  CHECK_THAT(read.output, Catch::Contains("the harness"));
  const ProcessResult replace = run_process(sandbox_argv(spec, {"/bin/cp", "/dev/null", lib}), 60s);
  const ProcessResult add = run_process(sandbox_argv(spec, {"/bin/touch", (harness / "planted.o").string()}), 60s);
  CHECK(replace.exit_code != 0);
  CHECK(add.exit_code != 0);
  CHECK(convlab::read_file(lib, 1000) == "the harness\n");
  CHECK_FALSE(fs::exists(harness / "planted.o"));
  // The build folder beside it stays writable.
  const ProcessResult own = run_process(sandbox_argv(spec, {"/bin/touch", (build / "lab.o").string()}), 60s);
  CHECK(own.exit_code == 0);
}

TEST_CASE("sandbox: a lab that walks up to the datasets finds nothing to copy", "[grader][sandbox]") {
  const auto sandbox = cpu_sandbox();
  if (!sandbox) return;
  TempDir tmp("sandbox-walk-up");
  // --fake-target: a path inside the datasets' folder tree, as __FILE__ gives the project's.
  const std::string args = fmt::format("--fake walk-up --fake-target {}", (tmp.path() / "datasets" / "conv2d").string());
  check_cheats(grade_hostile(tmp, args, std::nullopt));
  check_refused(grade_hostile(tmp, args, sandbox), reason::kUnwritten);
}

TEST_CASE("sandbox: a lab cannot read the grader's memory through /proc/PID/mem", "[grader][sandbox]") {
  const auto sandbox = cpu_sandbox();
  if (!sandbox) return;
  TempDir tmp("sandbox-memory");
  const std::string args = "--fake grader-memory --fake-target convlab_tests";
  if (ptrace_of_ancestors_allowed()) check_cheats(grade_hostile(tmp, args, std::nullopt));
  check_refused(grade_hostile(tmp, args, sandbox), reason::kUnwritten);
}

TEST_CASE("sandbox: a lab cannot ptrace-attach to the grader", "[grader][sandbox]") {
  const auto sandbox = cpu_sandbox();
  if (!sandbox) return;
  TempDir tmp("sandbox-ptrace");
  const std::string args = "--fake ptrace --fake-target convlab_tests";
  if (ptrace_of_ancestors_allowed()) check_cheats(grade_hostile(tmp, args, std::nullopt));
  check_refused(grade_hostile(tmp, args, sandbox), reason::kUnwritten);
}

TEST_CASE("sandbox: a lab cannot connect to a loopback listener", "[grader][sandbox]") {
  const auto sandbox = cpu_sandbox();
  if (!sandbox) return;
  TempDir tmp("sandbox-connect");
  LoopbackListener listener;
  const std::string args = fmt::format("--fake connect --fake-target {}", listener.port());
  check_cheats(grade_hostile(tmp, args, std::nullopt));
  check_refused(grade_hostile(tmp, args, sandbox), reason::kUnwritten);
}

TEST_CASE("sandbox: a lab sees none of the grader's environment", "[grader][sandbox]") {
  const auto sandbox = cpu_sandbox();
  if (!sandbox) return;
  TempDir tmp("sandbox-environment");
  setenv("CONVLAB_TEST_SECRET", "hunter2", 1);
  const Hostile open = grade_hostile(tmp, "--fake environment", std::nullopt);
  const Hostile closed = grade_hostile(tmp, "--fake environment", sandbox);
  unsetenv("CONVLAB_TEST_SECRET");
  check_cheats(open);
  check_refused(closed, reason::kUnwritten);
}

TEST_CASE("sandbox: a lab cannot write into the datasets or the report folder", "[grader][sandbox]") {
  const auto sandbox = cpu_sandbox();
  if (!sandbox) return;
  TempDir tmp("sandbox-write");
  const std::string args = fmt::format("--fake write-outside --fake-target {},{}", (tmp.path() / "datasets").string(),
                                       (tmp.path() / "reports").string());
  {
    const Hostile open = grade_hostile(tmp, args, std::nullopt);
    CHECK_FALSE(open.datasets_unchanged);  // it overwrote expected.npy with its zeros ...
    CHECK_FALSE(open.reports_unchanged);   // ... and planted a file among the reports
    check_cheats(open);                    // and "passed"
  }
  fs::remove_all(tmp.path() / "datasets");
  fs::remove_all(tmp.path() / "reports");
  fs::remove_all(tmp.path() / "work");
  check_refused(grade_hostile(tmp, args, sandbox), reason::kOutOfTolerance);
}

TEST_CASE("sandbox: a sandboxed lab that ignores its alarm is killed, sandbox and all, at the grader's deadline",
          "[grader][sandbox]") {
  const auto sandbox = cpu_sandbox();
  if (!sandbox) return;
  TempDir tmp("sandbox-hang");
  const Hostile h = grade_hostile(tmp, "--fake hang-hard", sandbox);
  INFO(h.lab.headline());
  CHECK(h.lab.correctness.hung);
  CHECK(h.lab.correctness.passed == 0);
  // Nothing of it is left running (bwrap's children die with it, a moment later).
  const std::string exe = (tmp.path() / "bin" / "lab").string();
  const ProcessResult left = run_process(
      {"/bin/sh", "-c",
       fmt::format("sleep 1; for p in /proc/[0-9]*; do cat $p/cmdline 2>/dev/null | tr '\\0' ' ' | grep -q '^{}' && "
                   "echo alive $p; done; echo end", exe)},
      20s);
  CHECK(left.output == "end\n");
}

TEST_CASE("sandbox: an honest lab gets every point in the sandbox", "[grader][sandbox]") {
  const auto sandbox = cpu_sandbox();
  if (!sandbox) return;
  TempDir tmp("sandbox-honest");
  const Hostile h = grade_hostile(tmp, "--fake-time-ms 1", sandbox);
  INFO(h.lab.headline());
  CHECK(h.lab.correctness.passed == 3);
  CHECK(h.lab.points() == Approx(h.lab.max_points()));
  CHECK(h.datasets_unchanged);
}

TEST_CASE("sandbox: with --no-sandbox every report says so in its header", "[grader][sandbox]") {
  SubmissionResult s;
  s.name = "alice";
  s.kind = "submission";
  RunInfo run;
  run.device = "a test GPU";
  run.sandboxed = false;
  run.sandbox = sandbox_description(false);
  CHECK_THAT(grade_text(s, run), Catch::Contains("sandbox: NOT SANDBOXED (--no-sandbox)"));
  CHECK(grade_json(s, run).at("run").at("sandboxed") == false);
  CHECK_THAT(grade_json(s, run).at("run").at("sandbox").get<std::string>(), Catch::StartsWith("NOT SANDBOXED"));
  CHECK_THAT(gradescope_json(s, run).at("output").get<std::string>(), Catch::StartsWith("NOT SANDBOXED"));
  run.sandboxed = true;
  run.sandbox = sandbox_description(true);
  CHECK_THAT(grade_text(s, run), Catch::Contains("sandbox: sandboxed (bubblewrap)"));
  CHECK_THAT(gradescope_json(s, run).at("output").get<std::string>(), !Catch::Contains("NOT SANDBOXED"));
  run.sandboxed = false;
  run.sandbox = sandbox_description(false);
  CHECK_THAT(batch_summary({s}, {}, run), Catch::StartsWith("sandbox: NOT SANDBOXED"));
  CHECK(batch_json({s}, run).at("run").at("sandboxed") == false);
}

TEST_CASE("sandbox: grade and batch, serial or pipelined, build every submission in the sandbox they run it in",
          "[grader][sandbox][class]") {
  if (!cpu_sandbox()) return;
  // The grader's test mode: its sandbox has no GPU nodes, and its test-double builder refuses to
  // build when the run made a sandbox but the builder was given none (a student's compile
  // outside the sandbox).
  TempDir tmp("sandbox-class");
  const fs::path cases = tmp.path() / "cases" / "conv2d";
  fs::create_directories(cases);
  for (const char* c : {"hand_box_3x3_k3", "k3_7x7", "k5_2x3"}) {
    fs::copy(fs::path(CONVLAB_SOURCE_DIR) / "datasets" / "conv2d" / c, cases / c, fs::copy_options::recursive);
  }
  std::ifstream rubric_in(fs::path(CONVLAB_SOURCE_DIR) / "grader" / "rubric.json");
  std::string rubric((std::istreambuf_iterator<char>(rubric_in)), std::istreambuf_iterator<char>());
  const std::string big = "\"height\": 2048, \"width\": 2048", small = "\"height\": 64, \"width\": 64";
  REQUIRE(rubric.find(big) != std::string::npos);
  // Small timed cases keep the fake runs fast: the global one and every lab's own (lab 08's).
  for (std::size_t at = rubric.find(big); at != std::string::npos; at = rubric.find(big)) {
    rubric.replace(at, big.size(), small);
  }
  std::ofstream(tmp.path() / "rubric.json") << rubric;
  for (const char* student : {"ana", "ben"}) {
    fs::create_directories(tmp.path() / "class" / student / "01-naive");
    std::ofstream(tmp.path() / "class" / student / "01-naive" / "fake.args") << "--fake-time-ms 1\n";
  }
  const std::vector<std::string> common = {"--labs", "01", "--datasets", (tmp.path() / "cases").string(), "--rubric",
                                           (tmp.path() / "rubric.json").string(), "--timeout", "10", "--quiet"};
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), CONVLAB_GRADER_TEST_MODE_EXE);
    args.insert(args.end(), common.begin(), common.end());
    return run_process(args, 300s);
  };
  for (const std::vector<std::string>& how :
       {std::vector<std::string>{"batch", (tmp.path() / "class").string(), "-j", "2"},
        std::vector<std::string>{"batch", (tmp.path() / "class").string(), "--serial", "--gpus", "0"},
        std::vector<std::string>{"grade", "--submission", (tmp.path() / "class" / "ana").string()}}) {
    const fs::path report = tmp.path() / fmt::format("{}-{}.json", how[0], how.size());
    std::vector<std::string> args = how;
    args.insert(args.end(), {"--json", report.string()});
    const ProcessResult r = run(args);
    INFO(how[0] << " " << how.back() << "\n" << r.output);
    CHECK(r.exit_code == kGraded);
    CHECK_THAT(r.output, !Catch::Contains("outside its sandbox"));
    std::ifstream in(report);
    REQUIRE(in);
    const nlohmann::json j = nlohmann::json::parse(in);
    CHECK(j.at("run").at("sandboxed") == true);
    const nlohmann::json students = how[0] == "grade" ? nlohmann::json::array({j.at("submission")}) : j.at("students");
    REQUIRE(!students.empty());
    for (const nlohmann::json& s : students) {
      INFO(s.dump());
      for (const nlohmann::json& lab : s.at("labs")) CHECK(lab.at("correctness").at("passed").get<int>() > 0);
    }
  }
}
