// A stand-in for a lab runner (`labNN`), for the grader's CPU tests: it speaks the runner's
// command line and writes the same JSON and .npy files, computing outputs with the CPU
// reference, and misbehaves on request the way real labs do (wrong values, unwritten outputs,
// a guard-band hit, a crash, a hang, a segfault, peeking at expected.npy, a slow time).
//
//   fake_lab CASES... [runner flags] --fake MODE [--fake-case NAME] [--fake-time-ms T]
//            [--fake-variants a,b] [--fake-problem conv2d|conv_layer] [--fake-masks 1,3,5]
//
// MODE applies to every case, or only to the case named by --fake-case (the others are right).
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "convlab/compare.hpp"
#include "convlab/dataset.hpp"
#include "convlab/npy.hpp"
#include "convlab/reference.hpp"

using namespace convlab;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Options {
  std::vector<std::string> paths, variants_selected;
  std::string json_path, output_dir, mode = "correct", only_case, variants = "v1", problem = "conv2d",
                                     masks = "1,3,5,7,9,11,13,15,17";
  bool no_check = false, no_time = false, quiet = false, list = false;
  int timeout_s = 60, warmup = 0, repeats = 0;
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

}  // namespace

int main(int argc, char** argv) {
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
  app.add_option("--fake", o.mode);
  app.add_option("--fake-case", o.only_case);
  app.add_option("--fake-time-ms", o.time_ms);
  app.add_option("--fake-variants", o.variants);
  app.add_option("--fake-problem", o.problem);
  app.add_option("--fake-masks", o.masks);
  CLI11_PARSE(app, argc, argv);

  const std::vector<std::string> variants = split(o.variants);
  std::vector<int> masks;
  for (const std::string& m : split(o.masks)) masks.push_back(std::stoi(m));
  if (o.list) {
    json j = {{"format", "convlab-lab-list"}, {"version", 1}, {"lab", "fake"}, {"title", "fake"}};
    for (const std::string& v : variants) {
      json e = {{"name", v}, {"problem", o.problem}, {"tolerance", {{"name", "fp32"}, {"unit_roundoff", 1.0 / 16777216}}}};
      if (o.problem == "conv2d") e["mask_widths"] = masks;
      else e["max_mask_width"] = 17;
      j["variants"].push_back(e);
    }
    write_json(o.json_path, j);
    return 0;
  }

  json report = {{"format", "convlab-run"}, {"version", 1}, {"finished", false}, {"lab", "fake"}};
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
    if (problem_name(info.problem) != o.problem) continue;
    const bool misbehave = o.only_case.empty() || o.only_case == info.name;
    const std::string mode = misbehave ? o.mode : "correct";
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
    for (const std::string& v : variants) {
      if (!o.variants_selected.empty() &&
          std::find(o.variants_selected.begin(), o.variants_selected.end(), v) == o.variants_selected.end()) {
        continue;
      }
      json r = {{"case", info.id()}, {"variant", v}, {"shape", ""}, {"status", "RAN"},
                {"message", "not checked (no expected output)"}};
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
      } else if (mode == "guard") {
        r["status"] = "FAIL";
        r["message"] = "out-of-bounds write: 0 element(s) written just before P and 1 just after it (first at element offset 35)";
        r["output_guard_offsets"] = json::array({static_cast<long long>(out.size())});  // the element just after
      } else if (mode == "crash") {
        report["results"].push_back({{"case", "(crash)"}, {"variant", "-"}, {"status", "ERROR"},
                                     {"message", "CUDA error: cudaDeviceSynchronize() failed at runner.cu:1: an illegal memory "
                                                 "access was encountered (cudaErrorIllegalAddress)"}});
        report["finished"] = true;
        write_json(o.json_path, report);
        fmt::print("CRASH fake: an illegal memory access was encountered\n");
        return 4;
      } else if (mode == "segv") {
        std::fflush(stdout);
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
      } else if (mode == "usage") {
        fmt::print(stderr, "fake: bad arguments\n");
        return 2;
      }
      if (!o.output_dir.empty()) {
        fs::create_directories(o.output_dir);
        write_npy(fs::path(o.output_dir) / fmt::format("{}__{}.npy", info.name, v), out);
      }
      if (!o.no_time && r["status"] == "RAN") {
        const double sec = o.time_ms * 1e-3;
        r["time_ms"] = {{"median", o.time_ms}, {"min", o.time_ms}, {"max", o.time_ms}, {"runs", 3}};
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
