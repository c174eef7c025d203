// Lab 08 step 5 (3xTF32 on Hopper's wgmma) on the host: its configuration at the edges
// (lab08_config.hpp: warpgroups, the wide and narrow tiles, the group-tap gather, shared memory,
// split-K, the GPU it needs)
// and the analysis model's count of its wgmma instructions, against the count Nsight Compute
// measured on an H200 (docs/design.md, GPU facts) and against one counted by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "convlab/analysis_tensor_cores.hpp"
#include "convlab/lab08_config.hpp"

using namespace convlab;
using namespace convlab::analysis;

namespace {

ConvLayerShape layer(int b, int c, int m, int h, int w, int k, int s, int p, int d) {
  ConvLayerShape x;
  x.batch = b, x.channels = c, x.filters = m, x.height = h, x.width = w;
  x.mask_width = k, x.stride = s, x.padding = p, x.dilation = d;
  return x;
}

}  // namespace

TEST_CASE("lab08 step 5: a layer of 64 filters takes one warpgroup a block, one of 65 two", "[lab08][wgmma]") {
  CHECK(lab08::wgmma_warpgroups(64) == 1);
  CHECK(lab08::wgmma_warpgroups(65) == 2);
  CHECK(lab08::wgmma_block_m(1) == 64);
  CHECK(lab08::wgmma_block_m(2) == 128);
  CHECK(lab08::WgmmaWide::ACCUMULATORS == 64);
  CHECK(lab08::WgmmaNarrow::ACCUMULATORS == 32);
}

TEST_CASE("lab08 step 5: one-warpgroup blocks run 3 an SM, two-warpgroup blocks 2 from 2 tiles an SM and 1 below, and "
          "each configuration's shared memory fits that many",
          "[lab08][wgmma]") {
  CHECK(lab08::wgmma_blocks_per_sm(1, 1, 132) == 3);
  CHECK(lab08::wgmma_blocks_per_sm(1, 100000, 132) == 3);
  // 3 one-warpgroup blocks: 72.5 KB (group-tap) and 71 KB a block, 1 KB each the driver's, of 228 KB.
  CHECK(lab08::wgmma_shared_bytes<lab08::WgmmaWide>(1, true) == (8 * 1024 + 3 * (64 * 20 + 16 * 136)) * 4);
  CHECK(lab08::wgmma_fits_sm<lab08::WgmmaWide>(1, true, 3));
  CHECK(lab08::wgmma_fits_sm<lab08::WgmmaWide>(1, false, 3));
  CHECK_FALSE(lab08::wgmma_fits_sm<lab08::WgmmaWide>(1, true, 4));
  CHECK_FALSE(lab08::wgmma_fits_sm<lab08::WgmmaWide>(2, true, 3));
  CHECK(lab08::wgmma_blocks_per_sm(2, 264, 132) == 2);
  CHECK(lab08::wgmma_blocks_per_sm(2, 263, 132) == 1);
  // The bench's 128x128 layer on an H200's 132 SMs: 1024 wide tiles, two a block.
  const lab08::WgmmaPlan big = lab08::wgmma_plan(layer(8, 128, 128, 128, 128, 3, 1, 1, 1), 132);
  CHECK_FALSE(big.narrow);
  CHECK(big.blocks_per_sm == 2);
  // 98 wide tiles of 48 channels (no whole group of 32 for the narrow tile): one block an SM.
  const lab08::WgmmaPlan few = lab08::wgmma_plan(layer(32, 48, 256, 14, 14, 3, 1, 1, 1), 132);
  CHECK_FALSE(few.narrow);
  CHECK(few.blocks_per_sm == 1);
  CHECK(few.group_tap);  // 3 groups of 16
}

TEST_CASE("lab08 step 5 takes the narrow tile on two-warpgroup layers of fewer than 2 wide tiles an SM and whole groups "
          "of 32 channels, and the wide tile otherwise",
          "[lab08][wgmma]") {
  // B32 C256→256 14x14: 49 × 2 = 98 wide tiles on 132 SMs; 98 × 2 = 196 narrow ones, 2 an SM.
  const lab08::WgmmaPlan p = lab08::wgmma_plan(layer(32, 256, 256, 14, 14, 3, 1, 1, 1), 132);
  CHECK(p.narrow);
  CHECK(p.n == 64);
  CHECK(p.depth == 32);
  CHECK(p.warpgroups == 2);
  CHECK(p.blocks_per_sm == 2);
  CHECK(p.group_tap);
  CHECK(p.chain_fits);
  // At the edge: 2·132 wide tiles take the wide one, 2·132 − 1 the narrow one.
  CHECK_FALSE(lab08::wgmma_plan(layer(1, 256, 128, 264, 128, 1, 1, 0, 1), 132).narrow);
  CHECK(lab08::wgmma_plan(layer(1, 256, 128, 263, 128, 1, 1, 0, 1), 132).narrow);
  // 64 filters (one warpgroup) and 16 or 48 channels keep the wide tile, however few the tiles.
  CHECK_FALSE(lab08::wgmma_plan(layer(1, 256, 64, 8, 8, 3, 1, 1, 1), 132).narrow);
  CHECK_FALSE(lab08::wgmma_plan(layer(1, 16, 128, 8, 8, 3, 1, 1, 1), 132).narrow);
  CHECK_FALSE(lab08::wgmma_plan(layer(1, 48, 128, 8, 8, 3, 1, 1, 1), 132).narrow);
  CHECK(lab08::wgmma_plan(layer(1, 32, 128, 8, 8, 3, 1, 1, 1), 132).narrow);
  // The bench's other layers have many tiles.
  CHECK_FALSE(lab08::wgmma_plan(layer(32, 64, 64, 56, 56, 3, 1, 1, 1), 132).narrow);
  CHECK_FALSE(lab08::wgmma_plan(layer(16, 3, 64, 224, 224, 7, 2, 3, 1), 132).narrow);
}

TEST_CASE("lab08 step 5's chained sums keep the FP32 rule from 93 terms in one part, not at 92, and the 14x14 layer's 4 "
          "parts of 36 slices are 456 units of its 2304",
          "[lab08][wgmma]") {
  // 20 a product (the split) + 12 a slice (6 truncating additions of 2 units) + 1 a part.
  CHECK(lab08::wgmma_chain_error_units(96, 1) == 20 + 12 * 6 + 1);
  CHECK(lab08::wgmma_chain_error_units(93, 1) == 93);  // 6 slices, the last partial
  CHECK(lab08::wgmma_chain_fits(93, 1));
  CHECK_FALSE(lab08::wgmma_chain_fits(92, 1));
  CHECK_FALSE(lab08::wgmma_chain_fits(35, 1));  // step 2's threshold: too short for the chain
  CHECK(lab08::wgmma_chain_error_units(2304, 4) == 20 + 12 * 36 + 4);
  // Parts as launch_split_k makes them: 10 slices in 4 asked-for parts are 3 of 3 and one of 1.
  CHECK(lab08::wgmma_chain_error_units(160, 4) == 20 + 12 * 3 + 4);
  CHECK(lab08::wgmma_chain_error_units(160, 5) == 20 + 12 * 2 + 5);
  CHECK(lab08::wgmma_chain_error_units(160, 6) == 20 + 12 * 2 + 5);  // ⌈10/6⌉ = 2 a part: 5 parts
  // The narrow tile's 32-deep slices: 24 a slice. 14x14 in 2 parts of 36: 886 units of 2304.
  CHECK(lab08::wgmma_chain_error_units(2304, 2, 32) == 20 + 24 * 36 + 2);
  CHECK(lab08::wgmma_chain_fits(2304, 2, 32));
  CHECK(lab08::wgmma_chain_error_units(96, 1, 32) == 20 + 24 * 3 + 1);  // 93 > 96 - 3: fits
  CHECK(lab08::wgmma_chain_fits(96, 1, 32));
  CHECK_FALSE(lab08::wgmma_chain_fits(64, 1, 32));  // 20 + 48 + 1 = 69
}

TEST_CASE("lab08 step 5: 16 and 32 channels are gathered channel group x tap, 15, 17 and 3 slice by slice as steps 1 "
          "and 2, and the narrow tile's 32-deep slices need 32 or 64, not 16 or 48",
          "[lab08][wgmma]") {
  CHECK(lab08::wgmma_group_tap(16));
  CHECK(lab08::wgmma_group_tap(32));
  CHECK_FALSE(lab08::wgmma_group_tap(15));
  CHECK_FALSE(lab08::wgmma_group_tap(17));
  CHECK_FALSE(lab08::wgmma_group_tap(3));
  CHECK(lab08::wgmma_group_tap(32, 32));
  CHECK(lab08::wgmma_group_tap(64, 32));
  CHECK_FALSE(lab08::wgmma_group_tap(16, 32));
  CHECK_FALSE(lab08::wgmma_group_tap(48, 32));
}

TEST_CASE("lab08 step 5: a wide block's shared memory is 8 planes of 4 KB and 3 raw slices, a narrow one's 16 planes "
          "of 2 KB and 2, and two blocks of either fit an H200's 228 KB",
          "[lab08][wgmma]") {
  using lab08::WgmmaNarrow;
  using lab08::WgmmaWide;
  CHECK(WgmmaWide::PLANES * WgmmaWide::PLANE_FLOATS * 4 == 32 * 1024);
  CHECK(WgmmaNarrow::PLANES * WgmmaNarrow::PLANE_FLOATS * 4 == 32 * 1024);
  // The slice loader's A transposed, As[16][BM + 8]; the group-tap loader's As[BM][16 + 4].
  CHECK(lab08::wgmma_shared_bytes<WgmmaWide>(1, false) == 32768 + 3 * (16 * 72 + 16 * 136) * 4);   // 72,704
  CHECK(lab08::wgmma_shared_bytes<WgmmaWide>(2, false) == 32768 + 3 * (16 * 136 + 16 * 136) * 4);  // 84,992
  CHECK(lab08::wgmma_shared_bytes<WgmmaWide>(1, true) == 32768 + 3 * (64 * 20 + 16 * 136) * 4);    // 74,240
  CHECK(lab08::wgmma_shared_bytes<WgmmaWide>(2, true) == 32768 + 3 * (128 * 20 + 16 * 136) * 4);   // 89,600
  // Narrow, group-tap (the only gather it runs with): As[128][32 + 4], Bs[32][64 + 8].
  CHECK(lab08::wgmma_shared_bytes<WgmmaNarrow>(2, true) == 32768 + 2 * (128 * 36 + 32 * 72) * 4);  // 88,064
  // An SM of 228 KB keeps 1 KB per block for the system.
  for (const bool group_tap : {false, true}) {
    CHECK(2 * (lab08::wgmma_shared_bytes<WgmmaWide>(1, group_tap) + 1024) <= 228 * 1024);
    CHECK(2 * (lab08::wgmma_shared_bytes<WgmmaWide>(2, group_tap) + 1024) <= 228 * 1024);
  }
  CHECK(2 * (lab08::wgmma_shared_bytes<WgmmaNarrow>(2, true) + 1024) <= 228 * 1024);
}

TEST_CASE("lab08 step 5: a group-tap A row, 16 or 32 deep, is 16-byte aligned and a warp's fragment reads hit 32 banks",
          "[lab08][wgmma]") {
  for (const int depth : {lab08::WgmmaWide::DEPTH, lab08::WgmmaNarrow::DEPTH}) {
    const int row = depth + lab08::kGroupTapPad;
    INFO("depth " << depth);
    CHECK(row * 4 % 16 == 0);
    // Lane (g, t) of a warp reads As[16w + g][t] (and the same pattern 4 or 8 further on): bank
    // (row·g + t) mod 32 for g < 8, t < 4 — all different.
    std::set<int> banks;
    for (int g = 0; g < 8; ++g) {
      for (int t = 0; t < 4; ++t) banks.insert((row * g + t) % 32);
    }
    CHECK(banks.size() == 32);
  }
}

TEST_CASE("lab08 step 5 split-K: B32 C256->256 14x14 on 132 SMs takes the narrow tile in 2 splits, and the layers "
          "timed at one split and two take the faster",
          "[lab08][wgmma]") {
  // fitted_split with kSplitCosts; times from results/bench/nvidia-h200/lab08_wgmma_splits.csv
  const auto splits = [](const ConvLayerShape& s) { return lab08::wgmma_plan(s, 132).splits; };
  // 196 narrow tiles, 72 slices of 32, 264 slots: 2 splits (0.1105 ms; 4 took 0.1108, 1 0.1330).
  CHECK(splits(layer(32, 256, 256, 14, 14, 3, 1, 1, 1)) == 2);
  // The measured layers with many tiles are not split.
  CHECK(splits(layer(32, 64, 64, 56, 56, 3, 1, 1, 1)) == 1);
  CHECK(splits(layer(16, 3, 64, 224, 224, 7, 2, 3, 1)) == 1);
  CHECK(splits(layer(8, 128, 128, 128, 128, 3, 1, 1, 1)) == 1);
  // One warpgroup, wide: 3 blocks per SM, 396 slots on 132 SMs.
  CHECK(splits(layer(198, 256, 64, 16, 16, 1, 1, 0, 1)) == 1);  // 396 tiles fill them
  CHECK(splits(layer(1, 256, 64, 395, 128, 1, 1, 0, 1)) == 1);  // 395 of 16 slices: 0.0337 ms, 2 splits 0.0459
  CHECK(splits(layer(1, 240, 64, 395, 128, 1, 1, 0, 1)) == 1);  // 15 slices: no 2 splits of 8
  // Two warpgroups, wide (272 channels: no whole groups of 32), below 264 tiles: one block per SM.
  CHECK(splits(layer(1, 272, 128, 132, 128, 1, 1, 0, 1)) == 1);
  CHECK(splits(layer(1, 272, 128, 131, 128, 1, 1, 0, 1)) == 1);  // 0.0226 ms, 2 splits 0.0325
  // Two warpgroups, narrow: 262 tiles of 64 columns, 16 slices of 32: 0.0350 ms, 2 splits 0.0424.
  CHECK(splits(layer(1, 512, 128, 131, 128, 1, 1, 0, 1)) == 1);
  CHECK(splits(layer(1, 256, 128, 131, 128, 1, 1, 0, 1)) == 1);  // 8 slices: no 2 splits of 8
  // Few tiles of many slices: B4 C512→512 14×14, 52 narrow tiles of 144 slices: 5 splits (0.0686
  // ms, the fastest; the rule before took 6, 0.0837).
  CHECK(splits(layer(4, 512, 512, 14, 14, 3, 1, 1, 1)) == 5);
}

TEST_CASE("lab08 step 5 refuses every GPU but compute capability 9.0, naming what it needs and what it found",
          "[lab08][wgmma]") {
  CHECK(lab08::wgmma_refusal(9, 0).empty());
  for (const auto& [major, minor] : {std::pair{8, 0}, std::pair{8, 9}, std::pair{9, 1}, std::pair{10, 0}, std::pair{12, 0}}) {
    const std::string why = lab08::wgmma_refusal(major, minor);
    INFO(why);
    CHECK_THAT(why, Catch::Contains("compute capability 9.0"));
    CHECK_THAT(why, Catch::Contains("sm_90a"));
    CHECK_THAT(why, Catch::EndsWith("this GPU is " + std::to_string(major) + "." + std::to_string(minor)));
  }
}

TEST_CASE("lab08 analysis: step 5 on B32 C256->256 14x14 takes the narrow tile: 392 blocks x 2 warpgroups x 36 slices "
          "x 12 wgmmas of 64 x 64 x 8",
          "[analysis][lab08][wgmma]") {
  const TensorCoreAnalysis a = analyze_lab08(layer(32, 256, 256, 14, 14, 3, 1, 1, 1), 132);
  const TensorCoreStep& wg = a.step("tf32x3_wgmma");
  CHECK(wg.instruction == TensorInstruction::wgmma);
  CHECK(wg.narrow_tile);
  CHECK(wg.warpgroups == 2);
  CHECK(wg.group_tap);
  CHECK(wg.plan.bm == 128);
  CHECK(wg.plan.bn == 64);
  CHECK(wg.plan.bk == 32);
  CHECK(wg.effective_splits == 2);
  // 98 column tiles × 2 row tiles × 2 splits; 72 slices of 32 in 2 parts; 4 k8-steps of 3.
  CHECK(wg.instructions == 392LL * 2 * 36 * 12);
  CHECK(wg.mmas == 4 * wg.instructions);  // ncu counts a warpgroup's instruction once per warp
  CHECK(wg.mma_flops == Approx(2.0 * 64 * 64 * 8 * 392 * 2 * 36 * 12));
  // Step 2's products, chained over 36 slices of 32 a block: 20 + 24·36 + 2 units of the rule's
  // 2304; step 2's multiply-adds on whole tiles (6272 = 98·64 = 49·128).
  CHECK_FALSE(wg.runs_step2);
  CHECK(wg.error_bound_units == 20 + 24 * 36 + 2);
  CHECK(wg.fp32_ratio == Approx(886.0 / 2304));
  CHECK(wg.issued_fmas == a.step("tf32x3").issued_fmas);
  CHECK(wg.global_stores == 2LL * 32 * 256 * 196);  // an atomic add per split
}

TEST_CASE("lab08 analysis: step 5 on B32 C48->256 14x14 keeps the wide tile, one block an SM: 98 blocks x 2 "
          "warpgroups x 6 wgmmas of 64 x 128 x 8 per slice, 27 slices in one part",
          "[analysis][lab08][wgmma]") {
  // unsplit: 0.0322 ms, where 2 splits took 0.0409 (lab08_wgmma_splits.csv)
  const TensorCoreStep wg = analyze_lab08(layer(32, 48, 256, 14, 14, 3, 1, 1, 1), 132).step("tf32x3_wgmma");
  CHECK_FALSE(wg.narrow_tile);
  CHECK(wg.plan.bn == 128);
  CHECK(wg.plan.bk == 16);
  CHECK(wg.effective_splits == 1);
  CHECK(wg.instructions == 98LL * 2 * 27 * 6);
  CHECK(wg.mmas == 4 * 98LL * 2 * 27 * 6);
  CHECK(wg.error_bound_units == 20 + 12 * 27 + 1);
}

TEST_CASE("lab08 analysis: step 5 on one 64x128 tile of 9 slices, counted by hand: 54 wgmmas, 216 per warp, and the "
          "mma.sync steps unchanged",
          "[analysis][lab08][wgmma]") {
  // B1 C16→64 8×8 K3 P1: 64 columns (one tile), 64 filters (one warpgroup), C·K·K = 144: 9 slices,
  // 2 k8-steps of 3 wgmmas each. 16 channels: the group-tap gather.
  const TensorCoreAnalysis a = analyze_lab08(layer(1, 16, 64, 8, 8, 3, 1, 1, 1), 132);
  const TensorCoreStep& wg = a.step("tf32x3_wgmma");
  CHECK(wg.warpgroups == 1);
  CHECK(wg.group_tap);
  CHECK(wg.effective_splits == 1);
  CHECK(wg.instructions == 54);
  CHECK(wg.mmas == 216);
  CHECK(a.step("tf32").instruction == TensorInstruction::mma_sync);
  CHECK(a.step("tf32").instructions == a.step("tf32").mmas);
  CHECK(a.step("tf32x3").mmas == 3 * 128 * 9);
  // 15 channels: 135 terms, 9 slices, the last partial (whole tiles still issue every wgmma).
  const TensorCoreStep sliced = analyze_lab08(layer(1, 15, 64, 8, 8, 3, 1, 1, 1), 132).step("tf32x3_wgmma");
  CHECK_FALSE(sliced.group_tap);
  CHECK(sliced.instructions == 54);
}

TEST_CASE("lab08 analysis: step 5 runs wgmma from 93 terms, step 2's kernel at 92 and at 35, the CUDA cores at 34",
          "[analysis][lab08][wgmma]") {
  static_assert(lab08::kMinTensorCoreTerms == 35, "the layers below sit at step 2's edge");
  // C·K·K = n as n channels of a 1×1 mask; 2·9·9 columns: 2 tiles, not split.
  const TensorCoreAnalysis chained = analyze_lab08(layer(2, 93, 8, 9, 9, 1, 1, 0, 1), 132);
  const TensorCoreAnalysis short_chain = analyze_lab08(layer(2, 92, 8, 9, 9, 1, 1, 0, 1), 132);
  const TensorCoreAnalysis at = analyze_lab08(layer(2, 35, 8, 9, 9, 1, 1, 0, 1), 132);
  const TensorCoreAnalysis below = analyze_lab08(layer(2, 34, 8, 9, 9, 1, 1, 0, 1), 132);
  CHECK(chained.step("tf32x3_wgmma").instruction == TensorInstruction::wgmma);
  CHECK_FALSE(chained.step("tf32x3_wgmma").runs_step2);
  CHECK(chained.step("tf32x3_wgmma").fp32_ratio == Approx(1.0));
  for (const TensorCoreAnalysis* a : {&short_chain, &at}) {
    const TensorCoreStep& wg = a->step("tf32x3_wgmma");
    CHECK(wg.runs_step2);
    CHECK(wg.instruction == TensorInstruction::mma_sync);
    CHECK(wg.mmas == a->step("tf32x3").mmas);
    CHECK(wg.mmas > 0);
    CHECK(wg.fp32_ratio <= 1);
  }
  CHECK(below.step("tf32x3_wgmma").on_cuda_cores);
  CHECK(below.step("tf32x3_wgmma").mmas == 0);
  CHECK(below.step("tf32x3_wgmma").issued_fmas == below.useful_fmas);
}

TEST_CASE("lab08 analysis: step 5's time is bounded by memory and FP32 FMA, not by the mma.sync ceiling",
          "[analysis][lab08][wgmma]") {
  const TensorCoreCeilings c{3e12, 60e12, 300e12};
  const TensorCoreAnalysis a = analyze_lab08(layer(8, 128, 128, 128, 128, 3, 1, 1, 1), 132);
  const TensorCoreBounds b = tensor_core_bounds(a, a.step("tf32x3_wgmma"), c);
  CHECK(b.memory_s == Approx(a.compulsory_bytes / 3e12));
  CHECK(b.fma_s == Approx(2.0 * static_cast<double>(a.useful_fmas) / 60e12));
  CHECK(b.mma_s == 0);  // no measured wgmma peak to divide by
  CHECK(tensor_core_bounds(a, a.step("tf32x3"), c).mma_s > 0);
}
