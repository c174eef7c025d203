// The CuPy peer: cupyx.scipy.ndimage.correlate, run and timed in a Python process of its own
// (cupy_conv2d.py beside this file), on the same image and mask, with the same protocol as the
// methods timed here (warm-up, repeats between CUDA events, L2 flushed before each). Its output
// comes back as an .npy file and is checked here as every other method's is; its times come back
// as JSON fields, every repeat's time, summarized here as time_kernel summarizes its own
// (own_timing). The probe (can python3 import CuPy and reach a GPU?) runs once a
// process: without CuPy the bench lists the peer as missing, with the probe's reason.
#include <cuda_runtime.h>

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "conv2d_peer.hpp"
#include "convlab/cuda_check.cuh"
#include "convlab/npy.hpp"
#include "system/subprocess.hpp"
#include "system/tool_paths.hpp"

namespace convlab::bench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr auto kProbeTimeout = std::chrono::seconds(120);  // importing CuPy and creating a context
constexpr auto kRunTimeout = std::chrono::minutes(5);      // its kernels compile on first use

fs::path script() { return grader::source_dir() / "grader" / "bench" / "cupy_conv2d.py"; }

/// What the probe found: the python3 to run, and CuPy's version; or why there is no CuPy peer.
struct Probe {
  fs::path python;
  std::string version;
  std::string why_not;
};

const Probe& probe() {
  static const Probe p = [] {
    Probe r;
    const auto python = grader::find_tool("python3");
    if (!python) {
      r.why_not = "no python3 on PATH";
      return r;
    }
    if (!fs::exists(script())) {
      r.why_not = "no " + script().string();
      return r;
    }
    const grader::ProcessResult pr = grader::run_process({python->string(), script().string(), "--probe"}, kProbeTimeout);
    if (pr.exit_code != 0) {
      r.why_not = "python3 cannot run CuPy: " + grader::last_lines(pr.output, 2);
      while (!r.why_not.empty() && r.why_not.back() == '\n') r.why_not.pop_back();
      return r;
    }
    try {
      const json j = json::parse(pr.output.substr(pr.output.find('{')));
      r.version = j.at("cupy_version").get<std::string>();
      r.python = *python;
    } catch (const std::exception& e) {
      r.why_not = std::string("the CuPy probe printed no version: ") + e.what();
    }
    return r;
  }();
  return p;
}

class CupyConv2d final : public Conv2dPeer {
 public:
  ~CupyConv2d() override {
    std::error_code ignored;  // a destructor must not throw; a leftover temporary folder is harmless
    fs::remove_all(dir_, ignored);
  }

  [[nodiscard]] std::string name() const override { return "CuPy cupyx.scipy.ndimage.correlate"; }

  void prepare(const Conv2dProblem& p) override {
    p_ = p;
    timing_.reset();
    const std::size_t n = static_cast<std::size_t>(p.height) * p.width;
    Tensor<float> image({static_cast<std::size_t>(p.height), static_cast<std::size_t>(p.width)});
    CUDA_CHECK(cudaMemcpy(image.data(), p.N, n * sizeof(float), cudaMemcpyDeviceToHost));
    const auto K = static_cast<std::size_t>(p.mask_width);
    const Tensor<float> mask({K, K}, p.mask_host);
    fs::create_directories(dir_);
    write_npy(dir_ / "N.npy", image);
    write_npy(dir_ / "M.npy", mask);
    const grader::ProcessResult r = grader::run_process(
        {probe().python.string(), script().string(), "--image", (dir_ / "N.npy").string(), "--mask",
         (dir_ / "M.npy").string(), "--out", (dir_ / "P.npy").string(), "--json", (dir_ / "t.json").string(),
         "--warmup", std::to_string(p.warmup), "--repeats", std::to_string(p.repeats)},
        kRunTimeout);
    if (r.exit_code != 0) {
      throw std::runtime_error(fmt::format("cupy_conv2d.py: {}: {}", r.describe(), grader::last_lines(r.output, 3)));
    }
    out_ = read_npy_f32(dir_ / "P.npy");
    if (out_.size() != n) {
      throw std::runtime_error(fmt::format("cupy_conv2d.py wrote {} outputs for a {}x{} image", out_.size(),
                                           p.height, p.width));
    }
    std::ifstream in(dir_ / "t.json");
    const json t = json::parse(in);
    timing_ = summarize_samples(t.at("times_ms").get<std::vector<double>>());  // as time_kernel summarizes its own
    timing_->held = t.at("held").get<bool>();
    origin_ = t.at("origin").get<int>();
  }

  /// The checked "run": CuPy's output, computed in its process, into P.
  void run() override {
    CUDA_CHECK(cudaMemcpy(p_.P, out_.data(), out_.size() * sizeof(float), cudaMemcpyHostToDevice));
  }

  [[nodiscard]] std::string detail() const override {
    return fmt::format("CuPy {}, mode constant, origin {}; timed in its own process", probe().version, origin_);
  }

  [[nodiscard]] std::optional<TimingStats> own_timing() const override { return timing_; }

 private:
  Conv2dProblem p_;
  fs::path dir_ = fs::temp_directory_path() / fmt::format("convlab-cupy-{}", ::getpid());
  Tensor<float> out_;
  std::optional<TimingStats> timing_;
  int origin_ = 0;
};

}  // namespace

std::unique_ptr<Conv2dPeer> make_cupy_peer(std::string* why) {
  if (!probe().why_not.empty()) {
    if (why) *why = probe().why_not;
    return nullptr;
  }
  return std::make_unique<CupyConv2d>();
}

}  // namespace convlab::bench
