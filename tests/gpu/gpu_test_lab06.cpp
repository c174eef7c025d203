// Lab 06 (conv layers through im2col) on the GPU.
//
// End to end, as the grader runs it (the lab06 runner in a child process): every variant of
// solution06 — steps 1–3 and the TF32 stretch step, with its own tolerance — passes every public
// conv-layer case, a fresh random set, and a set of larger layers that reach the code paths small
// cases miss (partial block tiles, split-K, Ho·Wo not a multiple of 4, masks up to 17).
// (That every lab06 stub fails is checked with the other labs' stubs in gpu_test_labs.cpp.)
//
// In process, against the CPU reference: step 3 with every block tile and split it is compiled
// for (the runner only sees the plan the launcher picks), and the fused bias + ReLU stretch step,
// which computes max(conv + bias, 0) and so is no conv-layer semantics the runner checks.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "convlab/compare.hpp"
#include "convlab/datagen.hpp"
#include "convlab/dataset.hpp"
#include "convlab/device_buffer.cuh"
#include "convlab/reference.hpp"
#include "conv_layer_on_device.hpp"
#include "gpu_lab_run.hpp"
#include "system/subprocess.hpp"

#ifdef CONVLAB_HAVE_LAB06_SOLUTION
#include "lab06_extras.cuh"
#include "test_paths.hpp"
#endif

using namespace convlab;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

using convlab::testing::kDatasets;
// unroll_gemm, fused_gemm, register_tiles, transposed_float4, async_copies, register_tiled,
// tf32_tensor_core
constexpr int kVariants = 7;

// Every case of lab 06 takes every variant: no SKIP is expected.
void expect_solution06_passes(const fs::path& cases, int expected_passes) {
  const testing::LabRun r = testing::run_lab("solution06", cases, {"--no-time"});
  testing::expect_all_pass(r, expected_passes, /*allow_skip=*/false);
}

// Larger layers for the code paths that the small random cases rarely reach.
std::vector<ConvLayerSpec> step3_stress_specs(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto spec = [&](int b, int c, int m, int h, int w, int k, int s, int p, int d, const char* why) {
    ConvLayerShape shape{b, c, m, h, w, k, s, p, d};
    return ConvLayerSpec{fmt::format("s_b{}_c{}_m{}_{}x{}_k{}_s{}_p{}_d{}", b, c, m, h, w, k, s, p, d), shape, rng(),
                         why};
  };
  return {
      spec(2, 64, 256, 7, 7, 3, 1, 1, 1, "few columns, long reduction: split-K"),
      spec(1, 70, 130, 9, 9, 3, 1, 1, 1, "M = 130: a partial 128-row tile; C·K·K = 630, not a multiple of 8"),
      spec(3, 16, 64, 33, 31, 3, 1, 1, 1, "Ho·Wo = 1023: scalar epilogue, a partial column tile"),
      spec(2, 8, 96, 40, 40, 5, 2, 2, 1, "stride 2, 96 filters"),
      spec(1, 4, 33, 30, 30, 11, 1, 5, 1, "11×11 mask"),
      spec(1, 2, 16, 24, 24, 17, 1, 8, 1, "17×17 mask, the largest"),
      spec(2, 3, 64, 64, 64, 7, 2, 3, 1, "the ResNet stem, smaller"),
      spec(4, 32, 48, 20, 20, 3, 1, 2, 2, "dilation 2, many channels"),
      spec(1, 300, 8, 5, 5, 1, 1, 0, 1, "1×1, 300 channels: C·K·K = 300"),
      spec(5, 1, 200, 12, 12, 1, 1, 0, 1, "n = 1 term per output, 200 filters"),
  };
}

}  // namespace

TEST_CASE("gpu: solution06 passes every public conv-layer case, all variants", "[gpu][lab06]") {
  expect_solution06_passes(kDatasets / "conv_layer",
                           kVariants * static_cast<int>(find_cases(kDatasets / "conv_layer").size()));
}

TEST_CASE("gpu: solution06 passes a fresh random set and larger layers", "[gpu][lab06]") {
  const std::uint64_t seed = std::random_device{}();
  INFO("random set seed " << seed
       << " (regenerate with: grader datagen --seed " << seed << " --count 40 --problem conv_layer --out DIR)");
  const fs::path dir = fs::temp_directory_path() / "convlab-gpu-random-lab06";
  fs::remove_all(dir);
  std::vector<ConvLayerSpec> specs = random_conv_layer_specs(seed, 40);
  for (const ConvLayerSpec& s : step3_stress_specs(seed)) specs.push_back(s);
  for (const ConvLayerSpec& s : specs) write_case(dir / s.name, generate_case(s));
  expect_solution06_passes(dir, kVariants * static_cast<int>(specs.size()));
}

#ifdef CONVLAB_HAVE_LAB06_SOLUTION

namespace {

// The cases of the in-process tests: the public set and the stress layers.
std::vector<ConvLayerCase> in_process_cases() {
  std::vector<ConvLayerCase> cases;
  for (const fs::path& dir : find_cases(kDatasets / "conv_layer")) cases.push_back(load_conv_layer_case(dir));
  for (const ConvLayerSpec& s : step3_stress_specs(7)) cases.push_back(generate_case(s));
  return cases;
}


}  // namespace

TEST_CASE("gpu: step 3 is right with every block tile and split-K", "[gpu][lab06]") {
  std::vector<lab06::RegisterTilePlan> plans = lab06::register_tiled_tiles();
  for (const auto& p : lab06::register_tiled_tiles()) plans.push_back({p.bm, p.bn, 3, p.bk});
  for (const ConvLayerCase& c : in_process_cases()) {
    const Tensor<double> abs_sum = conv_layer_abs_sum(c.x, c.w, c.params());
    for (const auto& plan : plans) {
      INFO(c.info.id() << " " << c.info.layer.describe() << " tile " << plan.bm << "x" << plan.bn << " splits "
                       << plan.splits << " bk " << plan.bk);
      const Tensor<float> got = testing::run_conv_layer_on_device(c, [&](const ConvLayerArgs& a) { lab06::conv_layer_register_tiled_with(a, plan); });
      const CompareResult r = compare_outputs(got, *c.expected, abs_sum, c.info.layer.terms_per_output(), Tolerance::fp32());
      INFO(r.summary() << "\n" << r.details());
      CHECK(r.ok());
    }
  }
}

TEST_CASE("gpu: the fused bias + ReLU epilogue computes max(conv + bias, 0)", "[gpu][lab06]") {
  std::mt19937_64 rng(11);
  for (const ConvLayerCase& c : in_process_cases()) {
    const ConvLayerShape& s = c.info.layer;
    INFO(c.info.id() << " " << s.describe());
    // Biases of the outputs' size, so that ReLU cuts a good part of them.
    std::vector<float> bias(static_cast<std::size_t>(s.filters));
    for (float& b : bias) b = static_cast<float>(static_cast<double>(rng() >> 40) / 16777216.0 - 0.5);
    DeviceBuffer<float> bias_d(bias.size());
    bias_d.upload(bias.data());
    const Tensor<float> got = testing::run_conv_layer_on_device(c, [&](const ConvLayerArgs& a) { lab06::conv_layer_bias_relu(a, bias_d.data()); });

    // Reference: max(Y + b, 0) in double; the sum has one more term (b), S grows by |b|, and
    // ReLU does not increase an error (it is 1-Lipschitz).
    Tensor<double> expected = *c.expected;
    Tensor<double> abs_sum = conv_layer_abs_sum(c.x, c.w, c.params());
    const std::size_t plane = static_cast<std::size_t>(s.out_height()) * static_cast<std::size_t>(s.out_width());
    std::size_t clipped = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const std::size_t m = (i / plane) % static_cast<std::size_t>(s.filters);
      expected.values()[i] = std::max(expected.values()[i] + bias[m], 0.0);
      abs_sum.values()[i] += std::fabs(bias[m]);
      clipped += expected.values()[i] == 0.0;
    }
    const CompareResult r = compare_outputs(got, expected, abs_sum, s.terms_per_output() + 1, Tolerance::fp32());
    INFO(r.summary() << "\n" << r.details() << clipped << " outputs clipped by ReLU");
    CHECK(r.ok());
  }
}

#endif  // CONVLAB_HAVE_LAB06_SOLUTION
