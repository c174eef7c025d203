// A stand-in for a lab runner (`labNN`), for the grader's CPU tests: it speaks the runner's
// command line and writes the same JSON and .npy files, computing outputs with the CPU
// reference, and misbehaves on request the way real labs do (wrong values, unwritten outputs,
// a guard-band hit, a crash, a hang, a segfault, peeking at expected.npy, a slow time), with
// the runner's reason tags. Two modes separate the tags from the prose, as no real lab can:
// `tag-not-prose` (the tag "wrote into input" under a message that speaks of another problem)
// and `prose-not-tag` (a message that names problems, with no tag).
//
// It also tries what a cheating submission tries, so that the grader's sandbox is tested without a GPU:
//
//   walk-up          looks for <problem>/<case>/expected.npy in every folder above its working
//                    folder, its executable, its case folders and --fake-target (the path a
//                    lab's __FILE__ holds), and in their subfolders, and copies it
//   grader-memory    finds the process named --fake-target among its ancestors and reads its
//                    /proc/PID/mem
//   ptrace           finds it the same way and attaches to it with ptrace
//   connect          connects to 127.0.0.1:--fake-target
//   environment      looks for a variable whose name holds SECRET
//   write-outside    writes a file into each folder of --fake-target (a,b) and overwrites the
//                    expected.npy of its case there with its own (zero) output
// Each of the four in between "steals" by standing in for what a cheat would do with what it
// got: it writes the right output when the action succeeded, and 0xFF (unwritten) when the
// action was refused; walk-up and write-outside cheat for real.
//
// Under --witness it speaks the grader's dialog around each timed phase and hands over the
// samples of its timed outputs, as the runner does, and cheats on time on request:
//   reuse-output     every timed output after the first left unwritten (skipped work)
//   reports-less     works 20 times its reported time inside the grader's window
//   off-stream       its events see a tenth of the time its wall clock sees
//   no-witness       ignores the dialog (no window, no samples)
//   impossible       reports a time under the GPU's roofline
// and, honest, on a busy machine:
//   busy             its time true, but its window 5 times longer (a machine whose other work
//                    delays the runner between its calls); with --fake-target FILE, only in the
//                    runs after the first timed one (the first creates FILE)
//
//   fake_lab CASES... [runner flags] --fake MODE [--fake-case NAME] [--fake-time-ms T]
//            [--fake-variants a,b] [--fake-problem conv2d|conv_layer[,...]] [--fake-masks 1,3,5]
//            [--fake-target T] [--fake-variant NAME] [--fake-gpu-only NAME=9.0]
//
// MODE applies to every case, or only to the case named by --fake-case (the others are right),
// and to every variant, or only to the one named by --fake-variant. --fake-problem names the
// problem of every variant, or one per variant, in order, as lab 08's variants solve two
// (`--fake-variants tf32,banded --fake-problem conv_layer,conv2d`); each variant runs on the
// cases of its problem only, as the runner does, and --fake-masks are its conv2d variants' K.
// --fake-gpu-only lists variant NAME as running on that compute capability alone, as lab 08's
// step 5 is listed (the fake runs it anyway: it has no GPU to skip it on).
// A copy of this executable may carry these arguments itself (tests/support/fake_lab_args.hpp).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <optional>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "convlab/compare.hpp"
#include "convlab/dataset.hpp"
#include "convlab/fresh_inputs.hpp"
#include "convlab/mask_widths.hpp"
#include "convlab/npy.hpp"
#include "convlab/reference.hpp"
#include "convlab/run_reasons.hpp"
#include "convlab/witness_protocol.hpp"
#include "fake_lab_args.hpp"

extern char** environ;

using namespace convlab;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Options {
  std::vector<std::string> paths, variants_selected;
  std::string json_path, output_dir, mode = "correct", only_case, only_variant, variants = "v1", problem = "conv2d",
                                     masks = "1,3,5,7,9,11,13,15,17", target, gpu_only;
  bool no_check = false, no_time = false, quiet = false, list = false, witness = false;
  int timeout_s = 60, warmup = 0, repeats = 20;
  double time_ms = 1.0;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(item);
  return out;
}

void write_json(const std::string& path, const json& j) {
  if (path.empty()) return;
  const std::string tmp = path + ".tmp";
  std::ofstream(tmp) << j.dump(2);
  fs::rename(tmp, path);
}

Tensor<float> to_float(const Tensor<double>& d) {
  Tensor<float> f(d.shape());
  for (std::size_t i = 0; i < d.size(); ++i) f.data()[i] = static_cast<float>(d.data()[i]);
  return f;
}

Tensor<float> poisoned(const std::vector<std::size_t>& shape) {
  Tensor<float> f(shape);
  std::memset(f.data(), 0xFF, f.size() * sizeof(float));
  return f;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The arguments a copy of this executable carries at its end, if any.
std::vector<std::string> own_arguments() {
  const std::string self = read_all("/proc/self/exe");
  const std::string magic = convlab::testing::kFakeArgsMagic;
  std::uint32_t size = 0;
  if (self.size() < magic.size() + sizeof size) return {};
  std::memcpy(&size, self.data() + self.size() - sizeof size, sizeof size);
  if (size > self.size() - magic.size() - sizeof size) return {};
  const std::size_t start = self.size() - sizeof size - size;
  if (self.compare(start - magic.size(), magic.size(), magic) != 0) return {};
  std::vector<std::string> args;
  std::istringstream words(self.substr(start, size));
  for (std::string w; words >> w;) args.push_back(w);
  return args;
}

// ---- What a cheating submission tries. Each says on stdout what happened (the grader keeps
// the output for its report, and trusts none of it).

// walk-up: <problem>/<case>/expected.npy in `start`, its ancestors, and their subfolders.
std::optional<fs::path> find_expected_upwards(fs::path start, const CaseInfo& info) {
  std::error_code ec;
  const fs::path rel = fs::path(problem_name(info.problem)) / info.name / "expected.npy";
  for (fs::path dir = start; !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / rel, ec)) return dir / rel;
    for (const auto& child : fs::directory_iterator(dir, ec)) {
      if (fs::exists(child.path() / rel, ec)) return child.path() / rel;
    }
    if (dir == dir.parent_path()) break;
  }
  return std::nullopt;
}

// The nearest ancestor process whose name is `name`, through /proc.
std::optional<pid_t> find_ancestor(const std::string& name) {
  for (pid_t pid = getppid(); pid > 1;) {
    std::string comm = read_all(fmt::format("/proc/{}/comm", pid));
    while (!comm.empty() && comm.back() == '\n') comm.pop_back();
    if (comm == name) return pid;
    const std::string stat = read_all(fmt::format("/proc/{}/stat", pid));
    const auto paren = stat.rfind(')');
    if (paren == std::string::npos) break;
    std::istringstream fields(stat.substr(paren + 2));
    char state = 0;
    pid_t parent = 0;
    fields >> state >> parent;
    pid = parent;
  }
  return std::nullopt;
}

// grader-memory: one byte of the process's first readable mapping.
bool read_memory_of(pid_t pid) {
  std::ifstream maps(fmt::format("/proc/{}/maps", pid));
  std::string line;
  unsigned long long start = 0;
  while (std::getline(maps, line)) {
    unsigned long long from = 0, to = 0;
    char perms[5] = {};
    if (std::sscanf(line.c_str(), "%llx-%llx %4s", &from, &to, perms) == 3 && perms[0] == 'r') {
      start = from;
      break;
    }
  }
  const int fd = open(fmt::format("/proc/{}/mem", pid).c_str(), O_RDONLY);
  if (fd < 0) return false;
  char byte = 0;
  const bool ok = start != 0 && pread(fd, &byte, 1, static_cast<off_t>(start)) == 1;
  close(fd);
  return ok;
}

// ptrace: attach, wait for the stop, detach.
bool attach_to(pid_t pid) {
  if (ptrace(PTRACE_ATTACH, pid, nullptr, nullptr) != 0) return false;
  int status = 0;
  waitpid(pid, &status, __WALL);
  ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
  return true;
}

// connect: a TCP connection to 127.0.0.1:port.
bool connect_to(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

// environment: a variable whose name holds SECRET.
std::optional<std::string> secret_variable() {
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    if (name.find("SECRET") != std::string::npos) return name;
  }
  return std::nullopt;
}

// Did the action succeed for this case? Prints what happened either way.
bool hostile_action_succeeds(const Options& o) {
  bool ok = false;
  std::string what;
  if (o.mode == "grader-memory" || o.mode == "ptrace") {
    const auto pid = find_ancestor(o.target);
    if (!pid) {
      what = fmt::format("no process named {} among my ancestors", o.target);
    } else {
      ok = o.mode == "ptrace" ? attach_to(*pid) : read_memory_of(*pid);
      what = fmt::format("{} of {} (pid {}): {}", o.mode, o.target, *pid, ok ? "done" : std::strerror(errno));
    }
  } else if (o.mode == "connect") {
    ok = connect_to(std::stoi(o.target));
    what = fmt::format("connect to 127.0.0.1:{}: {}", o.target, ok ? "connected" : std::strerror(errno));
  } else if (o.mode == "environment") {
    const auto name = secret_variable();
    ok = name.has_value();
    what = ok ? fmt::format("found the variable {}", *name) : "no secret in my environment";
  }
  fmt::print("HOSTILE {}: {}\n", o.mode, what);
  return ok;
}

// The samples of the timed calls, as a correct kernel's outputs would give them
// (convlab/fresh_inputs.hpp); `reuse` leaves every call after the first unwritten, as a kernel
// that skips work when its output "already holds a result" would.
Tensor<float> timed_samples(const CaseInfo& info, std::uint64_t seed, std::uint64_t nonce, int warmup, int calls,
                            bool reuse) {
  const bool layer = info.problem == Problem::conv_layer;
  const std::size_t in_n = layer ? info.layer.input_elements() : info.conv2d.pixels();
  const std::size_t mask_n = layer ? info.layer.weight_elements() : info.conv2d.terms_per_output();
  const std::size_t elements = layer ? info.layer.output_elements() : info.conv2d.pixels();
  const std::vector<int> order = fresh::call_order(seed, warmup + calls);
  Tensor<float> out({static_cast<std::size_t>(calls), static_cast<std::size_t>(fresh::kSamplesPerCall)});
  std::vector<float> x(in_n), w(mask_n);
  for (int call = 0; call < calls; ++call) {
    fresh::fill_host(seed, order[warmup + call], fresh::kInput, x.data(), in_n);
    fresh::fill_host(seed, order[warmup + call], fresh::kMask, w.data(), mask_n);
    for (int s = 0; s < fresh::kSamplesPerCall; ++s) {
      const std::size_t at = fresh::sample_position(nonce, call, s, elements);
      const int width = info.conv2d.width;
      const double v = layer ? conv_layer_reference_at(x.data(), w.data(), info.layer, at).value
                             : conv2d_reference_at(x.data(), info.conv2d.height, width, w.data(), info.conv2d.mask_width,
                                                   static_cast<int>(at / width), static_cast<int>(at % width)).value;
      float& slot = out.data()[static_cast<std::size_t>(call) * fresh::kSamplesPerCall + s];
      slot = static_cast<float>(v);
      if (reuse && call > 0) std::memcpy(&slot, &kPoisonBits, sizeof slot);
    }
  }
  return out;
}

std::uint64_t witness_reply(const char* word) {
  std::string line;
  if (!std::getline(std::cin, line) || line.rfind(std::string(word) + " ", 0) != 0) {
    fmt::print(stderr, "fake: the dialog broke before '{}'\n", word);
    std::exit(2);
  }
  return std::stoull(line.substr(std::strlen(word) + 1));
}

// A timed phase as the runner's (common/src/runner.cu): under --witness, the dialog with the
// grader around it. Modes that cheat on time: reports-less (works 20× its reported time, in the
// window), off-stream (events see a tenth of the work), no-witness (ignores the dialog),
// impossible (reports a time no GPU reaches), reuse-output (see timed_samples).
json timed_phase(const Options& o, const std::string& mode, const CaseInfo& info, const std::string& variant) {
  double event = o.time_ms, wall = o.time_ms;
  if (mode == "off-stream") event = o.time_ms / 10;
  if (mode == "reports-less") event = wall = o.time_ms / 20;
  if (mode == "impossible") event = wall = 1e-7;
  if (o.witness && mode != "no-witness") {
    fmt::print("{}{} {} {}\n", witness::kPrefix, witness::kReady, info.id(), variant);
    std::fflush(stdout);
    const std::uint64_t seed = witness_reply(witness::kGo);
    if (mode == "reports-less") std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(o.time_ms * o.repeats));
    if (mode == "busy") {
      const bool first = !o.target.empty() && !fs::exists(o.target);
      if (first) std::ofstream(o.target) << "timed once\n";
      if (!first) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(5 * o.time_ms * o.repeats));
    }
    fmt::print("{}{} {}\n", witness::kPrefix, witness::kComputed, o.repeats);
    std::fflush(stdout);
    const std::uint64_t nonce = witness_reply(witness::kSample);
    write_npy(fs::path(o.output_dir) / witness::samples_file_name(info.name, variant),
              timed_samples(info, seed, nonce, o.warmup, o.repeats, mode == "reuse-output"));
    fmt::print("{}{}\n", witness::kPrefix, witness::kDone);
    std::fflush(stdout);
  }
  return {{"runs", o.repeats}, {"warmup", o.warmup}, {"seed", 0}, {"event_median_ms", event}, {"wall_median_ms", wall}};
}

}  // namespace

int main(int argc_in, char** argv_in) {
  // The arguments this copy carries come after the command line's.
  std::vector<std::string> words(argv_in, argv_in + argc_in);
  for (const std::string& w : own_arguments()) words.push_back(w);
  std::vector<char*> arg_pointers;
  for (std::string& w : words) arg_pointers.push_back(w.data());
  int argc = static_cast<int>(arg_pointers.size());
  char** argv = arg_pointers.data();
  Options o;
  CLI::App app{"fake lab runner for the grader's tests"};
  app.add_option("cases", o.paths);
  app.add_option("--variant", o.variants_selected);
  app.add_flag("--list", o.list);
  app.add_option("--json", o.json_path);
  app.add_option("--output", o.output_dir);
  app.add_flag("--no-check", o.no_check);
  app.add_flag("--no-time", o.no_time);
  app.add_flag("--quiet", o.quiet);
  app.add_option("--timeout", o.timeout_s);
  app.add_option("--warmup", o.warmup);
  app.add_option("--repeats", o.repeats);
  app.add_flag("--witness", o.witness);
  app.add_option("--fake", o.mode);
  app.add_option("--fake-case", o.only_case);
  app.add_option("--fake-variant", o.only_variant);
  app.add_option("--fake-time-ms", o.time_ms);
  app.add_option("--fake-variants", o.variants);
  app.add_option("--fake-problem", o.problem);
  app.add_option("--fake-masks", o.masks);
  app.add_option("--fake-target", o.target);
  app.add_option("--fake-gpu-only", o.gpu_only);
  CLI11_PARSE(app, argc, argv);

  const std::vector<std::string> variants = split(o.variants);
  const std::vector<int> masks = MaskWidths::parse(o.masks, kAllMaskWidths, "the fake lab").widths();
  std::vector<std::string> problem_of = split(o.problem);
  if (problem_of.size() == 1) problem_of.assign(variants.size(), problem_of.front());
  if (problem_of.size() != variants.size()) {
    fmt::print(stderr, "fake: --fake-problem names {} problems for {} variants\n", problem_of.size(), variants.size());
    return 2;
  }
  if (o.list) {
    json j = {{"format", "convlab-lab-list"}, {"version", 1}, {"lab", "fake"}, {"title", "fake"}};
    for (std::size_t i = 0; i < variants.size(); ++i) {
      json e = {{"name", variants[i]}, {"problem", problem_of[i]},
                {"tolerance", {{"name", "fp32"}, {"unit_roundoff", 1.0 / 16777216}}}};
      if (problem_of[i] == "conv2d") e["mask_widths"] = masks;
      else e["max_mask_width"] = 17;
      if (const std::size_t eq = o.gpu_only.find('='); eq != std::string::npos && o.gpu_only.substr(0, eq) == variants[i]) {
        e["compute_capability"] = o.gpu_only.substr(eq + 1);
      }
      j["variants"].push_back(e);
    }
    write_json(o.json_path, j);
    return 0;
  }

  json report = {{"format", "convlab-run"}, {"version", 1}, {"finished", false}, {"lab", "fake"}};
  // A GPU whose roofline no honest fake comes near, and which the "impossible" mode beats.
  if (!o.no_time) report["ceilings"] = {{"copy_gb_per_s", 1000.0}, {"fma_gflop_per_s", 10000.0}};
  report["results"] = json::array();
  auto record = [&](json r) {
    fmt::print("{} fake {} {}\n", r.value("status", ""), r.value("variant", ""), r.value("case", ""));
    report["results"].push_back(std::move(r));
    write_json(o.json_path, report);
  };
  int exit_code = 0;
  std::vector<fs::path> cases;
  for (const std::string& p : o.paths) {
    for (const fs::path& c : find_cases(p)) cases.push_back(c);
  }
  for (const fs::path& dir : cases) {
    const CaseInfo info = read_case_info(dir);
    const std::string problem = problem_name(info.problem);
    if (std::find(problem_of.begin(), problem_of.end(), problem) == problem_of.end()) continue;  // no variant's
    const bool misbehave = o.only_case.empty() || o.only_case == info.name;
    const std::string case_mode = misbehave ? o.mode : "correct";
    Tensor<double> expected;
    std::vector<std::size_t> shape;
    int k = 0;
    double bytes = 0;
    if (info.problem == Problem::conv2d) {
      const Conv2dCase c = load_conv2d_case(dir, false);
      expected = conv2d_reference(c.image, c.mask);
      k = info.conv2d.mask_width;
      bytes = 8.0 * static_cast<double>(info.conv2d.pixels());
    } else {
      const ConvLayerCase c = load_conv_layer_case(dir, false);
      expected = conv_layer_reference(c.x, c.w, c.params());
      k = info.layer.mask_width;
      bytes = 4.0 * static_cast<double>(info.layer.input_elements() + info.layer.output_elements());
    }
    shape = expected.shape();
    for (std::size_t i = 0; i < variants.size(); ++i) {
      const std::string& v = variants[i];
      if (problem_of[i] != problem) continue;  // another problem's variant, as the runner
      if (!o.variants_selected.empty() &&
          std::find(o.variants_selected.begin(), o.variants_selected.end(), v) == o.variants_selected.end()) {
        continue;
      }
      const std::string mode = o.only_variant.empty() || o.only_variant == v ? case_mode : "correct";
      json r = {{"case", info.id()}, {"variant", v}, {"shape", ""}, {"status", "RAN"},
                {"message", "not checked (no expected output)"}, {"reasons", json::array()}};
      if (info.problem == Problem::conv2d && std::find(masks.begin(), masks.end(), k) == masks.end()) {
        r["status"] = "SKIP";
        r["message"] = fmt::format("mask width {} not supported by this lab", k);
        record(r);
        continue;
      }
      Tensor<float> out = to_float(expected);
      if (mode == "unwritten") {
        out = poisoned(shape);
      } else if (mode == "wrong") {
        for (std::size_t i = 0; i < out.size(); ++i) out.data()[i] += 1.0f;
      } else if (mode == "not-implemented") {
        out = poisoned(shape);
        r["status"] = "FAIL";
        r["message"] = "not implemented (fake: still the stub)";
        r["reasons"] = {reason::kNotImplemented};
      } else if (mode == "guard") {
        r["status"] = "FAIL";
        r["message"] = "out-of-bounds write: 0 element(s) written just before P and 1 just after it (first at element offset 35)";
        r["reasons"] = {reason::kOutOfBoundsWrite};
        r["output_guard_offsets"] = json::array({static_cast<long long>(out.size())});  // the element just after
      } else if (mode == "tag-not-prose") {
        r["status"] = "FAIL";
        r["message"] = "out-of-bounds write (not really: the tag says what happened)";
        r["reasons"] = {reason::kWroteInput};
      } else if (mode == "prose-not-tag") {
        r["status"] = "FAIL";
        r["message"] = "the lab wrote into its input N; not implemented; CUDA error (cudaErrorIllegalAddress)";
        r["reasons"] = json::array();
      } else if (mode == "crash") {
        report["results"].push_back({{"case", "(crash)"}, {"variant", "-"}, {"status", "ERROR"},
                                     {"message", "CUDA error: cudaDeviceSynchronize() failed at runner.cu:1: an illegal memory "
                                                 "access was encountered (cudaErrorIllegalAddress)"},
                                     {"reasons", {reason::kCrashed, reason::kIllegalAddress}}});
        report["finished"] = true;
        write_json(o.json_path, report);
        fmt::print("CRASH fake: an illegal memory access was encountered\n");
        return 4;
      } else if (mode == "segv") {
        std::fflush(stdout);
        // The default action, not a sanitizer's handler (the asan preset installs one that
        // would turn the signal into an exit code): the grader must see a signal.
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
      } else if (mode == "hang") {  // like the runner: its alarm ends it
        std::this_thread::sleep_for(std::chrono::seconds(o.timeout_s));
        fmt::print("TIMEOUT fake {} on {}: did not finish within {} s (a hang? an endless loop?)\n", v, info.id(),
                   o.timeout_s);
        return 5;
      } else if (mode == "hang-hard") {  // ignores its alarm: the grader must kill it
        for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
      } else if (mode == "read-expected") {
        // The cheat: copy the expected output if it lies next to the inputs.
        if (fs::exists(dir / "expected.npy")) {
          out = to_float(read_npy_f64(dir / "expected.npy"));
        } else {
          out = poisoned(shape);
        }
      } else if (mode == "walk-up") {
        std::vector<fs::path> starts = {fs::current_path(), fs::read_symlink("/proc/self/exe").parent_path(), dir};
        if (!o.target.empty()) starts.emplace_back(o.target);
        std::optional<fs::path> found;
        for (const fs::path& start : starts) {
          if (!found) found = find_expected_upwards(start, info);
        }
        fmt::print("HOSTILE walk-up: {}\n", found ? "copied " + found->string() : "found no expected.npy");
        out = found ? to_float(read_npy_f64(*found)) : poisoned(shape);
      } else if (mode == "write-outside") {
        // Zeros out, and zeros as the expected output wherever this case's lies.
        for (std::size_t i = 0; i < out.size(); ++i) out.data()[i] = 0.0f;
        for (const std::string& target : split(o.target)) {
          const fs::path planted = fs::path(target) / "planted-by-a-lab.txt";
          std::ofstream(planted) << "a lab was here\n";
          const fs::path expected = fs::path(target) / problem_name(info.problem) / info.name / "expected.npy";
          std::error_code ec;
          if (fs::exists(expected, ec)) {
            Tensor<double> zeros(shape);
            try {
              write_npy(expected, zeros);
            } catch (const std::exception&) {
            }
          }
          fmt::print("HOSTILE write-outside: {} {}\n", planted.string(), fs::exists(planted, ec) ? "written" : "refused");
        }
      } else if (mode == "grader-memory" || mode == "ptrace" || mode == "connect" || mode == "environment") {
        if (!hostile_action_succeeds(o)) out = poisoned(shape);
      } else if (mode == "usage") {
        fmt::print(stderr, "fake: bad arguments\n");
        return 2;
      }
      if (!o.output_dir.empty()) {
        fs::create_directories(o.output_dir);
        write_npy(fs::path(o.output_dir) / fmt::format("{}__{}.npy", info.name, v), out);
      }
      if (!o.no_time && r["status"] == "RAN") {
        r["timed_calls"] = timed_phase(o, mode, info, v);
        const double t = r["timed_calls"]["event_median_ms"];
        const double sec = t * 1e-3;
        r["time_ms"] = {{"median", t}, {"min", t}, {"max", t}, {"runs", o.repeats}};
        r["effective_gb_per_s"] = bytes / sec / 1e9;
        r["gflop_per_s"] = 1.0;
        r["roofline_fraction"] = 0.5;
      }
      if (r["status"] == "FAIL") exit_code = 1;
      record(r);
    }
  }
  report["finished"] = true;
  write_json(o.json_path, report);
  return exit_code;
}
