// naive_block_sweep — the blog's study on lab 01's naive kernel: how the block shape changes
// time, occupancy, memory throughput and registers. The kernel is the reference solution's
// both_restrict, instantiated for every shape of config::kSweepBlocks.
//
//   build/bin/naive_block_sweep --size 8192 --masks 3,7 --json sweep.json   # event timing
//   ncu --metrics ... build/bin/naive_block_sweep --once                       # one launch each
//
// With --once every (mask, block) pair launches exactly once, in the order of the JSON's
// "launches" list (masks outer, blocks inner), so Nsight Compute's launch IDs map onto it;
// `grader bench` runs both and joins them. Every launch's output is checked first (sampled
// reference, conv2d_check.hpp).
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "conv2d_check.hpp"
#include "convlab/atomic_file.hpp"
#include "convlab/cuda_check.cuh"
#include "convlab/device_buffer.cuh"
#include "convlab/device_info.hpp"
#include "convlab/event_timer.cuh"
#include "convlab/lab_api.cuh"
#include "convlab/lab_config.hpp"
#include "convlab/lab_registry.hpp"
#include "convlab/mask_widths.hpp"
#include "device_fill.cuh"

int main(int argc, char** argv) {
  int size = 8192;
  std::string masks_text = "3,7";
  int repeats = 20;
  bool once = false;
  std::string json_path;
  CLI::App app{"naive_block_sweep: lab 01's naive kernel (both_restrict) with every block shape of the sweep"};
  app.add_option("--size", size, "square image size")->check(CLI::Range(1, 32768));
  app.add_option("--masks", masks_text, "odd mask widths, e.g. 3,7 (default 3,7)");
  app.add_option("--repeats", repeats, "timed runs (median reported)")->check(CLI::Range(1, 1000));
  app.add_flag("--once", once, "launch each pair once, untimed (for Nsight Compute)");
  app.add_option("--json", json_path, "write the results as JSON");
  CLI11_PARSE(app, argc, argv);
  std::vector<int> masks;
  try {
    masks = convlab::MaskWidths::parse(masks_text, convlab::labs::find_lab(1)->mask_widths, "lab 01").widths();
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "naive_block_sweep: --masks: {}\n", e.what());
    return 2;
  }

  std::string why;
  const auto device = convlab::query_device(&why);
  if (!device) {
    fmt::print(stderr, "naive_block_sweep: {}\n", why);
    return 3;
  }
  try {
    const std::size_t n = static_cast<std::size_t>(size) * size;
    convlab::DeviceBuffer<float> N(n), P(n), M(17 * 17);
    convlab::bench::fill_uniform(N.data(), n, 0xB10C);
    std::vector<float> image(n);
    if (!once) N.download(image.data());
    nlohmann::json launches = nlohmann::json::array();
    bool all_ok = true;
    fmt::print("naive_block_sweep on {}: {}x{}, lab01 both_restrict\n", device->describe(), size, size);
    for (int K : masks) {
      const std::vector<float> mask = convlab::bench::random_mask(K);
      CUDA_CHECK(cudaMemcpy(M.data(), mask.data(), mask.size() * sizeof(float), cudaMemcpyHostToDevice));
      const convlab::Conv2dArgs args{N.data(), M.data(), P.data(), size, size, K};
      std::unique_ptr<convlab::bench::Conv2dChecker> checker;
      if (!once) checker = std::make_unique<convlab::bench::Conv2dChecker>(image, size, size, mask, K, 20000, 0xB10C + K);
      for (const convlab::config::BlockShape b : convlab::config::kSweepBlocks) {
        nlohmann::json row = {{"mask_width", K}, {"block_x", b.x}, {"block_y", b.y}, {"height", size}, {"width", size}};
        auto launch = [&] { convlab::lab01::conv2d_both_restrict_block(args, b.x, b.y); };
        if (once) {
          launch();
          CUDA_CHECK(cudaDeviceSynchronize());
          launches.push_back(row);
          continue;
        }
        P.fill_bytes(0xFF);
        launch();
        CUDA_CHECK(cudaDeviceSynchronize());
        const convlab::bench::CheckResult c = checker->check(P.data(), convlab::bench::Accuracy::direct);
        if (!c.ok()) {
          row["error"] = "check failed: " + c.describe();
          all_ok = false;
          fmt::print("  K={:<2} block {:>4}x{:<3} {}\n", K, b.x, b.y, row["error"].get<std::string>());
          launches.push_back(row);
          continue;
        }
        convlab::TimingOptions t;
        t.repeats = repeats;
        const convlab::TimingStats st = convlab::time_kernel(launch, t);
        row["ms"] = st.median_ms;
        row["gb_per_s"] = 8.0 * static_cast<double>(n) / (st.median_ms * 1e-3) / 1e9;
        fmt::print("  K={:<2} block {:>4}x{:<3} {:8.4f} ms {:7.0f} GB/s effective\n", K, b.x, b.y, st.median_ms,
                   row["gb_per_s"].get<double>());
        launches.push_back(row);
      }
    }
    std::fflush(stdout);
    if (!json_path.empty()) {
      const nlohmann::json report = {{"format", "convlab-naive-block-sweep"},
                                     {"version", 1},
                                     {"device", device->name},
                                     {"kernel", "lab01 both_restrict (naive_both_restrict<BLOCK_X, BLOCK_Y>)"},
                                     {"timed", !once},
                                     {"launches", launches}};
      convlab::write_file_atomically(json_path, report.dump(1) + "\n");
    }
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "naive_block_sweep: {}\n", e.what());
    return 4;
  }
}
