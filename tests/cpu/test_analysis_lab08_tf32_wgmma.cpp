// Lab 08 step 7 (step 1 on Hopper's wgmma, both operands from swizzled shared memory) on the host:
// its configuration at the edges (lab08_config.hpp: warpgroups, shared memory, the error bound)
// and the analysis model's counts: step 1's tiles, split and copies, its multiply-adds in
// m64n128k8 instructions.
#include <catch2/catch.hpp>

#include "convlab/analysis_tensor_cores.hpp"
#include "convlab/lab08_config.hpp"

using namespace convlab;
using namespace convlab::analysis;

TEST_CASE("lab08 step 7: 64 filters take one warpgroup a block and three blocks an SM, 65 take two and two, and both "
          "fit an SM's shared memory, one block more would not",
          "[lab08][wgmma]") {
  CHECK(lab08::tf32_wgmma_warpgroups(64) == 1);
  CHECK(lab08::tf32_wgmma_warpgroups(65) == 2);
  CHECK(lab08::tf32_wgmma_blocks_per_sm(1) == 3);
  CHECK(lab08::tf32_wgmma_blocks_per_sm(2) == 2);
  // 3 stages of (64 + 128) and of (128 + 128) rows, 128 bytes a row: 72 KB and 96 KB
  CHECK(lab08::tf32_wgmma_shared_bytes(1) == 3 * 192 * 128);
  CHECK(lab08::tf32_wgmma_shared_bytes(2) == 3 * 256 * 128);
  CHECK(lab08::wgmma_fits_sm_bytes(lab08::tf32_wgmma_shared_bytes(1), 3));
  CHECK_FALSE(lab08::wgmma_fits_sm_bytes(lab08::tf32_wgmma_shared_bytes(1), 4));
  CHECK(lab08::wgmma_fits_sm_bytes(lab08::tf32_wgmma_shared_bytes(2), 2));
  CHECK_FALSE(lab08::wgmma_fits_sm_bytes(lab08::tf32_wgmma_shared_bytes(2), 3));
}

TEST_CASE("lab08 step 7: copies go through L1 up to 16 padded channels, and to L2 only from 20", "[lab08][wgmma]") {
  CHECK(lab08::tf32_wgmma_copies_through_l1(lab08::padded_channels(3)));
  CHECK(lab08::tf32_wgmma_copies_through_l1(lab08::padded_channels(16)));
  CHECK_FALSE(lab08::tf32_wgmma_copies_through_l1(lab08::padded_channels(17)));  // Cp = 20
  CHECK_FALSE(lab08::tf32_wgmma_copies_through_l1(lab08::padded_channels(256)));
}

TEST_CASE("lab08 step 7: the model counts step 1's copies and tiles, and one m64n128k8 wgmma a warpgroup per k8-step, "
          "four per warp for ncu",
          "[lab08][wgmma]") {
  for (const ConvLayerShape& s :
       {ConvLayerShape{8, 128, 128, 128, 128, 3, 1, 1, 1}, ConvLayerShape{32, 256, 256, 14, 14, 3, 1, 1, 1},
        ConvLayerShape{16, 3, 64, 224, 224, 7, 2, 3, 1}, ConvLayerShape{3, 45, 130, 17, 19, 7, 1, 3, 1}}) {
    INFO(s.describe());
    const TensorCoreAnalysis a = analyze_lab08(s, 132);
    const TensorCoreStep& one = a.step("tf32");
    const TensorCoreStep& seven = a.step("tf32_wgmma");
    CHECK(seven.instruction == TensorInstruction::wgmma);
    CHECK(seven.a_in_shared);
    CHECK(seven.warpgroups == lab08::tf32_wgmma_warpgroups(s.filters));
    CHECK(seven.plan.bm == one.plan.bm);
    CHECK(seven.plan.bm == 64 * seven.warpgroups);
    CHECK(seven.plan.splits == one.plan.splits);
    CHECK(seven.async_copies == one.async_copies);
    CHECK(seven.async_copies_distinct == one.async_copies_distinct);
    CHECK(seven.reordered_floats == one.reordered_floats);
    CHECK(seven.issued_fmas == one.issued_fmas);
    // the same multiply-adds: 64 × 128 × 8 a wgmma where a mma.sync does 16 × 8 × 8, so 1/64 as many
    CHECK(seven.instructions * 64 == one.mmas);
    CHECK(seven.mmas == 4 * seven.instructions);
    CHECK(seven.mma_flops == one.mma_flops);
  }
  // By hand: B32 C256→256 14×14: 2 row tiles × 49 column tiles (6272 columns) × 72 slices of 32
  // (K·K·Cp = 2304) × 4 k8-steps × 2 warpgroups.
  const TensorCoreAnalysis small = analyze_lab08(ConvLayerShape{32, 256, 256, 14, 14, 3, 1, 1, 1}, 132);
  CHECK(small.step("tf32_wgmma").instructions == 2LL * 49 * 72 * 4 * 2);
}

TEST_CASE("lab08 step 7: its error bound is step 1's product, 2 units a chained k8-step of a block and 1 a part, and "
          "stays inside the 1xTF32 rule even at n = 1",
          "[lab08][wgmma]") {
  // One part of one slice (K·K·Cp = 4): 16388 + 2·4 + 1
  CHECK(lab08::tf32_wgmma_error_units(4, 1) == 16388 + 8 + 1);
  // 72 slices in 2 parts of 36: 16388 + 2·4·36 + 2
  CHECK(lab08::tf32_wgmma_error_units(2304, 2) == 16388 + 288 + 2);
  const TensorCoreAnalysis tiny = analyze_lab08(ConvLayerShape{1, 1, 1, 1, 1, 1, 1, 0, 1}, 132);
  const TensorCoreStep& seven = tiny.step("tf32_wgmma");
  CHECK(seven.error_bound_units == 16388 + 8 + 1);
  CHECK(seven.allowed_units == 3 * 8192);  // max(n, 3)·2^13
  CHECK(seven.error_bound_units <= seven.allowed_units);
  CHECK(seven.fp32_ratio > 1);  // 1xTF32: not FP32-accurate
}
