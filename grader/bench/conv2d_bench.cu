// conv2d_bench — every lab's 2D convolution against the libraries a user would otherwise pick,
// in one run, on one GPU, with the roofline measured in the same run.
//
//   build/bin/conv2d_bench                                   # 4096², 8192², 9216²; K 2–7, 9–17
//   build/bin/conv2d_bench --sizes 8192 --masks 3,7 --json out.json
//
// For each image size and mask width: a seeded random non-uniform image and mask; every lab
// solution that takes that K (labs 01–05 odd K, lab 07 all) and every peer this build has (NPP,
// cuDNN, cuFFT, and CuPy where python3 can run it: see conv2d_peer.hpp). Each method runs once into a NaN-poisoned, guard-banded
// output and must pass the sampled reference check (conv2d_check.hpp) before it is timed with
// the lab runner's protocol (device-resident data, warm-up, median of repeats, L2 flushed).
// Counted per output: 8 bytes (one read of the input, one write of the output) and 2·K² flops;
// the roofline is max(bytes/BW, flops/F) with BW and F measured at start-up. `grader bench` runs
// this, adds the conv-layer benchmark and the block-size sweep, and draws the pictures.
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "conv2d_check.hpp"
#include "conv2d_peer.hpp"
#include "convlab/atomic_file.hpp"
#include "convlab/cuda_check.cuh"
#include "convlab/device_buffer.cuh"
#include "convlab/device_info.hpp"
#include "convlab/event_timer.cuh"
#include "convlab/lab_api.cuh"
#include "convlab/lab_registry.hpp"
#include "convlab/mask_widths.hpp"
#include "device_fill.cuh"

namespace {

using convlab::Conv2dArgs;
using nlohmann::json;
namespace bench = convlab::bench;

// A lab solution's entry point, its names and the mask widths it takes (all from the lab
// registry, so the methods are named as the runner and the grader name them).
struct LabMethod {
  std::string lab;      // "lab03"
  std::string variant;  // "tiled_output"
  void (*run)(const Conv2dArgs&);
  convlab::MaskWidths masks;
};

std::vector<LabMethod> lab_methods() {
  namespace c = convlab;
  using Fn = void (*)(const Conv2dArgs&);
  // Each lab's conv2d solution functions, in the registry's order of its conv2d variants (lab 08
  // has one: step 3; its other steps solve conv layers, conv_layer_bench's).
  const std::vector<std::pair<int, std::vector<Fn>>> functions = {
      {1, {c::lab01::conv2d_no_restrict, c::lab01::conv2d_mask_restrict, c::lab01::conv2d_input_restrict,
           c::lab01::conv2d_both_restrict}},
      {2, {c::lab02::conv2d_constant_mask}},
      {3, {c::lab03::conv2d_tiled_output}},
      {4, {c::lab04::conv2d_tiled_input}},
      {5, {c::lab05::conv2d_tiled_cached_halo}},
      {7, {c::lab07::conv2d_one_output, c::lab07::conv2d_outputs_xy, c::lab07::conv2d_shfl_filter,
           c::lab07::conv2d_constant_filter, c::lab07::conv2d_shared_input, c::lab07::conv2d_register_tiled}},
      {8, {c::lab08::conv2d_banded_tf32x3, c::lab08::conv2d_banded_tf32_bf16}},
  };
  std::vector<LabMethod> out;
  for (const auto& [number, fns] : functions) {
    const c::labs::LabEntry& lab = *c::labs::find_lab(number);
    if (static_cast<int>(fns.size()) != lab.variant_count_of(c::Problem::conv2d)) {
      throw std::logic_error(fmt::format("conv2d_bench: lab {} has {} conv2d variants in the registry, {} here",
                                         lab.number_text(), lab.variant_count_of(c::Problem::conv2d), fns.size()));
    }
    std::size_t next = 0;
    for (int i = 0; i < lab.variant_count; ++i) {
      const c::labs::VariantEntry& v = lab.variants[static_cast<std::size_t>(i)];
      if (lab.problem_of(v) != c::Problem::conv2d) continue;
      out.push_back({lab.executable(), v.name, fns[next++], lab.mask_widths_of(v)});
    }
  }
  return out;
}

struct Options {
  std::vector<int> sizes{4096, 8192, 9216};
  // Every width some lab takes: 1..7 and odd 9..17 (each lab runs on the ones it takes).
  convlab::MaskWidths masks = convlab::kRegisterTilingMaskWidths;
  int warmup = 3;
  int repeats = 20;
  std::size_t interior_samples = 100000;
  std::string json_path;
  bool no_peers = false;
};

class Bench {
 public:
  Bench(const Options& o, const convlab::Ceilings& c) : opt_(o), ceil_(c) {}

  json run_size(int size) {
    const int H = size, W = size;
    const std::size_t n = static_cast<std::size_t>(H) * W;
    convlab::DeviceBuffer<float> N(n), P(n), M(17 * 17);
    bench::fill_uniform(N.data(), n, 0xC0FFEE + static_cast<std::uint64_t>(size));
    std::vector<float> image(n);
    N.download(image.data());
    json rows = json::array();
    auto peers = opt_.no_peers ? std::vector<std::unique_ptr<bench::Conv2dPeer>>{} : bench::make_peers();
    for (int K : opt_.masks.widths()) {
      const std::vector<float> mask = bench::random_mask(K);
      CUDA_CHECK(cudaMemcpy(M.data(), mask.data(), mask.size() * sizeof(float), cudaMemcpyHostToDevice));
      const auto t0 = std::chrono::steady_clock::now();
      const bench::Conv2dChecker checker(image, H, W, mask, K, opt_.interior_samples, 0x5EED + K);
      fmt::print("\n{}x{}  K={}  (reference at {} sampled outputs, {:.1f} s)\n", H, W, K, checker.samples(),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      const Conv2dArgs args{N.data(), M.data(), P.data(), H, W, K};
      for (const LabMethod& m : lab_methods()) {
        if (!m.masks.contains(K)) continue;
        rows.push_back(measure(m.lab + " " + m.variant, "lab", m.lab, "", [&] { m.run(args); }, nullptr, checker, P,
                               H, W, K, bench::Accuracy::direct, 0));
      }
      bench::Conv2dProblem problem{N.data(), M.data(), P.data(), mask, H, W, K, opt_.warmup, opt_.repeats};
      for (auto& peer : peers) {
        std::string error;
        try {
          peer->prepare(problem);
        } catch (const convlab::CudaError& e) {
          if (e.sticky()) throw;
          error = e.what();
        } catch (const std::exception& e) {
          error = e.what();
        }
        if (!error.empty()) {
          rows.push_back(failed(peer->name(), "peer", H, W, K, "setup failed: " + error));
          continue;
        }
        rows.push_back(measure(peer->name(), "peer", "", peer->detail(), [&] { peer->run(); },
                               [&] { peer->finish(); }, checker, P, H, W, K, peer->accuracy(),
                               peer->transform_points(), peer->own_timing()));
      }
    }
    return rows;
  }

 private:
  json failed(const std::string& method, const std::string& kind, int H, int W, int K, const std::string& why) {
    fmt::print("  {:<32} did not run: {}\n", method, why);
    std::fflush(stdout);
    return {{"method", method}, {"kind", kind}, {"height", H}, {"width", W}, {"mask_width", K}, {"error", why}};
  }

  json measure(const std::string& method, const std::string& kind, const std::string& lab, const std::string& detail,
               const std::function<void()>& launch, const std::function<void()>& finish,
               const bench::Conv2dChecker& checker, convlab::DeviceBuffer<float>& P, int H, int W, int K,
               bench::Accuracy accuracy, double transform_points,
               std::optional<convlab::TimingStats> own = std::nullopt) {
    json row = {{"method", method}, {"kind", kind}, {"height", H}, {"width", W}, {"mask_width", K}};
    if (!lab.empty()) row["lab"] = lab;
    try {
      P.fill_bytes(0xFF);  // NaN poison: an unwritten output fails the check
      launch();
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaDeviceSynchronize());
      if (finish) finish();
      const bench::CheckResult c = checker.check(P.data(), accuracy, transform_points);
      const convlab::GuardReport g = P.check_guards();
      row["detail"] = detail;
      row["check"] = {{"ok", c.ok() && g.clean()},       {"samples", c.samples},
                      {"bad", c.bad},                    {"not_finite", c.not_finite},
                      {"worst_error_over_allowed", c.worst_ratio}, {"accuracy", c.accuracy},
                      {"summary", g.clean() ? c.describe() : g.describe("P")}};
      if (!c.ok() || !g.clean()) {
        const std::string why = "check failed: " + (g.clean() ? c.describe() : g.describe("P"));
        fmt::print("  {:<32} {}\n", method, why);
        row["error"] = why;
        return row;
      }
      convlab::TimingOptions t;
      t.warmup = opt_.warmup;
      t.repeats = opt_.repeats;
      t.max_seconds = 3;
      // A peer timed in its own process (CuPy) brings its times; everyone else is timed here.
      const convlab::TimingStats st = own ? *own : convlab::time_kernel(launch, t);
      const double px = static_cast<double>(H) * W;
      const double bytes = 8.0 * px, flops = 2.0 * K * K * px;
      const double roofline_ms = convlab::roofline_seconds(bytes, flops, ceil_) * 1e3;
      row["ms"] = st.median_ms;
      row["min_ms"] = st.min_ms;
      row["max_ms"] = st.max_ms;
      row["runs"] = st.runs;
      row["held"] = st.held;
      row["gb_per_s"] = bytes / (st.median_ms * 1e-3) / 1e9;
      row["tflop_per_s"] = flops / (st.median_ms * 1e-3) / 1e12;
      row["roofline_ms"] = roofline_ms;
      row["roofline_fraction"] = roofline_ms / st.median_ms;
      fmt::print("  {:<32} {:9.4f} ms {:8.0f} GB/s {:6.2f} TFLOP/s {:5.1f}% of roofline  {}{}\n", method, st.median_ms,
                 row["gb_per_s"].get<double>(), row["tflop_per_s"].get<double>(),
                 100.0 * row["roofline_fraction"].get<double>(), c.describe(), detail.empty() ? "" : "  [" + detail + "]");
    } catch (const convlab::CudaError& e) {
      if (e.sticky()) throw;  // the context is gone: nothing after this could run
      fmt::print("  {:<32} failed: {}\n", method, e.what());
      row["error"] = e.what();
    } catch (const std::exception& e) {
      fmt::print("  {:<32} failed: {}\n", method, e.what());
      row["error"] = e.what();
    }
    std::fflush(stdout);
    return row;
  }

  Options opt_;
  convlab::Ceilings ceil_;
};

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"conv2d_bench: every lab's 2D convolution against NPP, cuDNN, cuFFT and CuPy, on the measured roofline"};
  app.add_option("--sizes", opt.sizes, "square image sizes")->delimiter(',')->check(CLI::Range(1, 32768));
  std::string masks = opt.masks.to_string();
  app.add_option("--masks", masks, "mask widths, e.g. 3,7 (default 2..7 and odd 9..17)");
  app.add_option("--warmup", opt.warmup, "untimed runs before timing")->check(CLI::Range(0, 100));
  app.add_option("--repeats", opt.repeats, "timed runs (median reported)")->check(CLI::Range(1, 1000));
  app.add_option("--samples", opt.interior_samples, "interior outputs checked against the reference, besides the edges");
  app.add_option("--json", opt.json_path, "write every measurement as JSON");
  app.add_flag("--no-peers", opt.no_peers, "time the labs only");
  CLI11_PARSE(app, argc, argv);
  try {
    opt.masks = convlab::MaskWidths::parse(masks, convlab::kRegisterTilingMaskWidths | convlab::kOddMaskWidths,
                                           "a lab of the benchmark");
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "conv2d_bench: --masks: {}\n", e.what());
    return 2;
  }

  std::string why;
  const auto device = convlab::query_device(&why);
  if (!device) {
    fmt::print(stderr, "conv2d_bench: {}\n", why);
    return 3;
  }
  try {
    const convlab::Ceilings ceilings = convlab::measure_ceilings();
    fmt::print("conv2d_bench on {}; measured copy {:.0f} GB/s, FMA {:.1f} TFLOP/s\n", device->describe(),
               ceilings.copy_bytes_per_s / 1e9, ceilings.fma_flops_per_s / 1e12);
    fmt::print("protocol: {} warm-up runs, median of {} repeats, L2 flushed before each; checked before timing\n",
               opt.warmup, opt.repeats);
    json missing = json::array();
    if (!opt.no_peers) {
      for (const auto& m : bench::missing_peers()) {
        fmt::print("peer {}: {}\n", m.name, m.reason);
        missing.push_back({{"name", m.name}, {"reason", m.reason}});
      }
    }
    json report = {{"format", "convlab-conv2d-bench"},
                   {"version", 1},
                   {"device",
                    {{"name", device->name},
                     {"compute_capability", fmt::format("{}.{}", device->cc_major, device->cc_minor)},
                     {"sms", device->sm_count},
                     {"sm_clock_mhz", device->sm_clock_khz / 1000},
                     {"memory_clock_mhz", device->memory_clock_khz / 1000},
                     {"memory_bus_bits", device->memory_bus_bits},
                     {"l2_bytes", device->l2_bytes},
                     {"driver", device->driver},
                     {"runtime", device->runtime}}},
                   {"ceilings",
                    {{"copy_bytes_per_s", ceilings.copy_bytes_per_s}, {"fma_flops_per_s", ceilings.fma_flops_per_s},
                     {"tf32_mma_flops_per_s", ceilings.tf32_mma_flops_per_s},
                     {"tf32_mma_k4_flops_per_s", ceilings.tf32_mma_k4_flops_per_s}}},
                   {"protocol",
                    {{"warmup", opt.warmup},
                     {"repeats", opt.repeats},
                     {"l2_flush", true},
                     {"bytes_per_output", 8},
                     {"flops_per_output", "2*K*K"},
                     {"interior_samples", opt.interior_samples}}},
                   {"missing_peers", missing},
                   {"results", json::array()}};
    Bench b(opt, ceilings);
    for (int size : opt.sizes) {
      for (auto& row : b.run_size(size)) report["results"].push_back(std::move(row));
    }
    if (!opt.json_path.empty()) convlab::write_file_atomically(opt.json_path, report.dump(1) + "\n");
    bool all_ok = true;
    for (const auto& row : report["results"]) all_ok &= !row.contains("error");
    fmt::print("\n{}\n", all_ok ? "every method passed its check and was timed"
                                 : "SOME METHODS FAILED (see 'failed' / 'check failed' above)");
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "conv2d_bench: {}\n", e.what());
    return 4;
  }
}
