// Lab 08 step 6 (step 5's kernel with step 4's arithmetic: the small products in one BF16 wgmma)
// on the host: its error budget at the edge where it keeps the FP32 rule (lab08_config.hpp,
// docs/design.md, Tolerance), the plan's fallback to step 5, and the analysis model's count of its
// wgmma instructions against step 5's.
#include <catch2/catch.hpp>

#include "convlab/analysis_tensor_cores.hpp"
#include "convlab/lab08_config.hpp"

using namespace convlab;
using namespace convlab::analysis;

TEST_CASE("lab08 step 6's budget keeps the FP32 rule from 269 terms in one part of 16-deep slices, not at 268",
          "[lab08][wgmma]") {
  // 132 a product (step 4's), 2 for each of 2 truncating additions a k8-step (8 a slice of 16), 1 a part.
  CHECK(lab08::wgmma_mixed_chain_error_units(272, 1) == 132 + 8 * 17 + 1);
  CHECK(lab08::wgmma_mixed_chain_error_units(269, 1) == 269);  // 17 slices, the last partial
  CHECK(lab08::wgmma_mixed_chain_fits(269, 1));
  CHECK_FALSE(lab08::wgmma_mixed_chain_fits(268, 1));
  // Step 5 keeps the rule from 93 terms: between 93 and 268, step 6 is the one that does not.
  CHECK(lab08::wgmma_chain_fits(268, 1));
  // B32 C256→256 14×14: 2 parts of 36 slices of 32 deep (16 k8-steps of 2 additions each a slice).
  CHECK(lab08::wgmma_mixed_chain_error_units(2304, 2, 32) == 132 + 16 * 36 + 2);
  // B16 C3→64 224×224 K7: 147 terms, 10 slices of 16, over the rule.
  CHECK(lab08::wgmma_mixed_chain_error_units(147, 1) == 132 + 8 * 10 + 1);
  CHECK_FALSE(lab08::wgmma_mixed_chain_fits(147, 1));
}

TEST_CASE("lab08 step 6 takes step 5's plan, and falls back to step 5 where its budget breaks the rule",
          "[lab08][wgmma]") {
  const lab08::WgmmaPlan narrow = lab08::wgmma_plan(ConvLayerShape{32, 256, 256, 14, 14, 3, 1, 1, 1}, 132);
  CHECK(narrow.chain_fits);
  CHECK(narrow.mixed_fits);
  const lab08::WgmmaPlan rgb = lab08::wgmma_plan(ConvLayerShape{16, 3, 64, 224, 224, 7, 2, 3, 1}, 132);
  CHECK(rgb.chain_fits);
  CHECK_FALSE(rgb.mixed_fits);
  // Where step 5 itself gives way to step 2, so does step 6.
  const lab08::WgmmaPlan short_chain = lab08::wgmma_plan(ConvLayerShape{2, 92, 8, 9, 9, 1, 1, 0, 1}, 132);
  CHECK_FALSE(short_chain.chain_fits);
  CHECK_FALSE(short_chain.mixed_fits);
}

TEST_CASE("lab08 step 6's edge layers of the GPU test run step 6's own kernel on 132 SMs: both warpgroup counts, "
          "both gathers, both tiles, split and not",
          "[lab08][wgmma]") {
  // The layers of stress_specs (tests/gpu/gpu_test_lab08.cpp) that are there for step 6.
  const lab08::WgmmaPlan two = lab08::wgmma_plan(ConvLayerShape{2, 17, 65, 10, 10, 5, 1, 2, 1}, 132);
  CHECK(two.mixed_fits);
  CHECK(two.warpgroups == 2);
  CHECK_FALSE(two.group_tap);
  CHECK_FALSE(two.narrow);
  CHECK(two.splits > 1);
  const lab08::WgmmaPlan one = lab08::wgmma_plan(ConvLayerShape{2, 16, 64, 13, 11, 5, 1, 2, 1}, 132);
  CHECK(one.mixed_fits);
  CHECK(one.warpgroups == 1);
  CHECK(one.group_tap);
  CHECK(one.splits > 1);
  const lab08::WgmmaPlan narrow = lab08::wgmma_plan(ConvLayerShape{2, 32, 65, 10, 10, 3, 1, 1, 1}, 132);
  CHECK(narrow.mixed_fits);
  CHECK(narrow.narrow);
  CHECK(narrow.warpgroups == 2);
  CHECK(narrow.splits == 1);
}

TEST_CASE("lab08 analysis: step 6 on B32 C256->256 14x14 issues 2 wgmmas a k8-step where step 5 issues 3, on the same "
          "blocks, with a budget of 710 units of the rule's 2304",
          "[analysis][lab08][wgmma]") {
  const TensorCoreAnalysis a = analyze_lab08(ConvLayerShape{32, 256, 256, 14, 14, 3, 1, 1, 1}, 132);
  const TensorCoreStep& five = a.step("tf32x3_wgmma");
  const TensorCoreStep& six = a.step("tf32_bf16_wgmma");
  CHECK(six.instruction == TensorInstruction::wgmma);
  CHECK_FALSE(six.runs_step5);
  CHECK(six.products == 1);
  CHECK(six.bf16_products == 2);
  CHECK(six.narrow_tile == five.narrow_tile);
  CHECK(six.effective_splits == five.effective_splits);
  // 392 blocks × 2 warpgroups × 36 slices × 4 k8-steps × 2 wgmmas.
  CHECK(six.instructions == 392LL * 2 * 36 * 4 * 2);
  CHECK(3 * six.instructions == 2 * five.instructions);
  CHECK(six.mmas == 4 * six.instructions);  // ncu counts a warpgroup's instruction once per warp
  CHECK(six.mma_flops == Approx(five.mma_flops));  // a BF16 k16 is two k8s' multiply-adds
  CHECK(six.issued_fmas == five.issued_fmas);
  CHECK(six.error_bound_units == 132 + 16 * 36 + 2);
  CHECK(six.fp32_ratio == Approx(710.0 / 2304));
}

TEST_CASE("lab08 analysis: step 6 on B16 C3->64 224x224 K7 S2 counts as step 5, which its launcher runs there",
          "[analysis][lab08][wgmma]") {
  const TensorCoreAnalysis a = analyze_lab08(ConvLayerShape{16, 3, 64, 224, 224, 7, 2, 3, 1}, 132);
  const TensorCoreStep& five = a.step("tf32x3_wgmma");
  const TensorCoreStep& six = a.step("tf32_bf16_wgmma");
  CHECK(six.runs_step5);
  CHECK(six.bf16_products == 0);
  CHECK(six.instructions == five.instructions);
  CHECK(six.mmas == five.mmas);
  CHECK(six.error_bound_units == five.error_bound_units);
  CHECK(six.fp32_ratio <= 1);
}
