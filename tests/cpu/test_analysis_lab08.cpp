// Lab 08's analysis model: the MMAs its steps issue, counted by hand on a small layer, and the
// error model of docs/design.md at its edges (1xTF32 needs n ≥ 3 for n·2^-11; 3xTF32 meets the
// FP32 rule from n = 35, where step 2 starts using the tensor cores).
#include <catch2/catch.hpp>

#include <algorithm>

#include "convlab/analysis_tensor_cores.hpp"

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

TEST_CASE("lab08 analysis: a 64-filter layer is one 64x128 tile, 5 slices of 32 for step 1 (1280 MMAs) and 9 of 16 for "
          "step 2 (three times 1152)",
          "[analysis][lab08]") {
  // B1 C16→64 8×8 K3 P1: N = 64 columns (one 128-wide tile), M = 64 (BM = 64), C·K·K = 144. Step 1
  // reads K·K·Cp = 144 terms (Cp = 16) in 5 slices of 32, the last half padding: per slice and
  // block 64/16 · 128/8 · 32/8 = 256 MMAs. Step 2: 9 slices of 16, 128 MMAs each, three products.
  // One tile on 132 SMs wants splits, but neither leaves 8 slices to each part: no split-K.
  const TensorCoreAnalysis a = analyze_lab08(layer(1, 16, 64, 8, 8, 3, 1, 1, 1), 132);
  for (const TensorCoreStep& s : a.steps) {
    INFO(s.name);
    CHECK(s.plan.bm == 64);
    CHECK(s.plan.bn == 128);
    CHECK(s.effective_splits == 1);
  }
  const TensorCoreStep& one = a.step("tf32");
  const TensorCoreStep& three = a.step("tf32x3");
  CHECK(one.plan.bk == 32);
  CHECK(three.plan.bk == 16);
  CHECK(one.issued_fmas == 64LL * 128 * 32 * 5);
  CHECK(three.issued_fmas == 64LL * 128 * 16 * 9);
  CHECK(a.n == 144);
  CHECK(a.useful_fmas == 64LL * 64 * 144);
  CHECK(one.mmas == 256 * 5);
  CHECK(three.mmas == 3 * 128 * 9);
  CHECK(one.mma_flops == Approx(2.0 * 64 * 128 * 160));
  CHECK_FALSE(three.on_cuda_cores);
  CHECK_THROWS_AS(a.step("tf32x4"), std::out_of_range);
}

TEST_CASE("lab08 analysis: step 1 copies 16 bytes at a time, each filter's chunks once per column tile and each input "
          "chunk once per tap inside X, after reordering both",
          "[analysis][lab08]") {
  // B1 C3→8 5×5 K3 P1: Cp = 4, so K·K·Cp = 36 terms, 2 slices of 32 (one 64 × 128 tile). Issued:
  // 2 slices · (64 + 128) rows · 8 chunks = 3072. Read: W's 8 filters · 36/4 chunks = 72; X: taps
  // inside per axis 2 + 3 + 3 + 3 + 2 = 13 (the edge outputs lose one to the padding), 13² of the
  // 5² · 9 = 225 (output, tap) pairs, one chunk each (Cp = 4) = 169.
  const TensorCoreStep one = analyze_lab08(layer(1, 3, 8, 5, 5, 3, 1, 1, 1), 132).step("tf32");
  CHECK(one.copy_bytes == 16);
  CHECK(one.async_copies == 2LL * (64 + 128) * 8);
  CHECK(one.async_copies_read == 72 + 169);
  CHECK(one.reordered_floats == 5 * 5 * 4 + 8 * 36);
  CHECK(one.global_stores == 8 * 25);
  CHECK(one.mmas == 2 * (64 / 16) * (128 / 8) * (32 / 8));
  // Cp = 4: a slice spans 8 taps, and a warp's copy reads some pixels at two of them (next test)
  CHECK(one.async_copies_distinct < one.async_copies_read);
  // Step 2 (on the tensor cores from n = 35) copies 4 bytes at a time and reorders nothing.
  const TensorCoreStep three = analyze_lab08(layer(1, 16, 64, 8, 8, 3, 1, 1, 1), 132).step("tf32x3");
  CHECK_FALSE(three.on_cuda_cores);
  CHECK(three.copy_bytes == 4);
  CHECK(three.reordered_floats == 0);
}

TEST_CASE("lab08 analysis: where a slice of step 1 spans taps, a warp reads one pixel's chunk at two taps, and ncu's "
          "distinct chunks count it once",
          "[analysis][lab08]") {
  // B1 C4→1 1×2 K3 P1: Cp = 4, a chunk is a tap, slice 0 taps 0..7 (chunk j = tap j), slice 1
  // tap 8. One warp's copy holds columns 0 and 1 (outputs w = 0, 1) at every chunk j. Only the
  // middle mask row (taps 3, 4, 5) lies in the one input row: column 0 reads pixels 0, 1 at taps
  // 4, 5; column 1 pixels 0, 1 at taps 3, 4: four reads of two chunks. W: 9 chunks, all read.
  const TensorCoreStep one = analyze_lab08(layer(1, 4, 1, 1, 2, 3, 1, 1, 1), 132).step("tf32");
  CHECK(one.async_copies_read == 9 + 4);
  CHECK(one.async_copies_distinct == 9 + 2);
  // A slice inside one tap (Cp a multiple of the slice depth): every read is distinct.
  const TensorCoreStep wide = analyze_lab08(layer(1, 64, 1, 1, 2, 3, 1, 1, 1), 132).step("tf32");
  CHECK(wide.async_copies_distinct == wide.async_copies_read);
  // 28 channels, padded to 28, not a multiple of 32: slices span taps, and the walk still counts
  // each pixel at most once per warp's copy
  const TensorCoreStep ragged = analyze_lab08(layer(2, 28, 40, 9, 9, 3, 1, 1, 1), 132).step("tf32");
  CHECK(ragged.async_copies_distinct < ragged.async_copies_read);
  CHECK(ragged.async_copies_distinct > 0);
  // A layer too large to walk (40,000 column tiles of 8 slices: 3.3·10^8 lane steps, over 2^28)
  // says so, -1, rather than taking seconds or minutes; one whose slices lie inside a tap needs no
  // walk at any size.
  const TensorCoreAnalysis huge = analyze_lab08(layer(8192, 4, 8, 32, 32, 8, 1, 0, 1), 132);
  CHECK(huge.step("tf32").async_copies_distinct == -1);
  CHECK(huge.step("tf32").async_copies_read > 0);
  const TensorCoreAnalysis huge_wide = analyze_lab08(layer(8192, 32, 8, 32, 32, 8, 1, 0, 1), 132);
  CHECK(huge_wide.step("tf32").async_copies_distinct == huge_wide.step("tf32").async_copies_read);
}

TEST_CASE("lab08 analysis: on a 128-filter layer step 1 takes 128-row tiles and step 2 64-row ones, each with its own "
          "split",
          "[analysis][lab08]") {
  // B32 C256→256 14×14 K3: N = 6272 (49 column tiles), C·K·K = 2304 (144 slices); 264 block slots
  // on 132 SMs. Step 1: 2 row tiles, 98 tiles of 72 slices → 5 splits, two whole rounds of 264
  // blocks (nhwc_split_k; 4 would leave a last round of 128); step 2: 4 row tiles, 196 tiles → 2,
  // the fewest that fill the slots (split_k).
  const TensorCoreAnalysis a = analyze_lab08(layer(32, 256, 256, 14, 14, 3, 1, 1, 1), 132);
  CHECK(a.step("tf32").plan.bm == 128);
  CHECK(a.step("tf32x3").plan.bm == 64);
  CHECK(a.step("tf32").effective_splits == 5);
  CHECK(a.step("tf32x3").effective_splits == 2);
  CHECK(a.step("tf32").global_stores == 5LL * 32 * 256 * 196);
  CHECK(a.step("tf32x3").mmas == 3 * a.step("tf32").mmas);  // the same padding: 6272 = 49 · 128
}

TEST_CASE("lab08 step 1's TMA feed takes 128-row tiles of whole one-tap slices at stride 1, and the padding a 4D "
          "im2col map's corners hold",
          "[analysis][lab08]") {
  const ConvLayerShape bench = layer(32, 256, 256, 14, 14, 3, 1, 1, 1);
  CHECK(lab08::step1_tma_fits(bench));
  CHECK(lab08::step1_tma_fits(layer(1, 64, 65, 9, 9, 3, 1, 1, 1)));       // 65 filters: 128-row tiles
  CHECK_FALSE(lab08::step1_tma_fits(layer(1, 64, 64, 9, 9, 3, 1, 1, 1)));  // 64: the 64-row cp.async kernel
  CHECK(lab08::step1_tma_fits(layer(1, 32, 128, 9, 9, 3, 1, 1, 1)));      // Cp = 32: a slice is one tap
  CHECK_FALSE(lab08::step1_tma_fits(layer(1, 48, 128, 9, 9, 3, 1, 1, 1)));  // Cp = 48: slices span two taps
  CHECK(lab08::step1_tma_fits(layer(1, 30, 128, 9, 9, 3, 1, 1, 1)));  // 30 channels pad to Cp = 32
  CHECK_FALSE(lab08::step1_tma_fits(layer(1, 64, 128, 9, 9, 3, 2, 1, 1)));  // stride 2
  // the corners: lower −P ≥ −128 and upper P − (K − 1)·D ≥ −128
  CHECK(lab08::step1_tma_fits(layer(1, 32, 128, 300, 300, 3, 1, 127, 1)));
  CHECK_FALSE(lab08::step1_tma_fits(layer(1, 32, 128, 300, 300, 3, 1, 128, 1)));
  CHECK(lab08::step1_tma_fits(layer(1, 32, 128, 300, 300, 3, 1, 0, 64)));   // 0 − 2·64 = −128
  CHECK_FALSE(lab08::step1_tma_fits(layer(1, 32, 128, 300, 300, 3, 1, 0, 65)));  // −130

  // its copies: two boxes a slice a block, 128 + 128 rows of 128 bytes each time; the cp.async
  // counts stay what the GPUs before Hopper issue
  const TensorCoreStep& one = analyze_lab08(bench, 132).step("tf32");
  CHECK(one.tma_feed);
  CHECK(one.tma_splits == 4);  // its own rule (tma_split_k); the cp.async kernel's picks 5
  CHECK(one.effective_splits == 5);
  CHECK(one.tma_copies == 2LL * 2 * 49 * 72);
  CHECK(one.tma_bytes == 2LL * 49 * 72 * (128 + 128) * 128);
  CHECK(one.async_copies == 2LL * 49 * 72 * (128 + 128) * 8);
  const TensorCoreStep& narrow = analyze_lab08(layer(1, 64, 64, 9, 9, 3, 1, 1, 1), 132).step("tf32");
  CHECK_FALSE(narrow.tma_feed);
  CHECK(narrow.tma_copies == 0);
  CHECK(narrow.tma_bytes == 0);
  CHECK(narrow.tma_splits == 0);
}

TEST_CASE("lab08 step 2's split-K: fewer tiles than block slots are split as far as the model of its measured times "
          "says, and no further",
          "[analysis][lab08]") {
  using lab08::split_k;
  // 196 tiles of 64 rows, 144 slices of 16: 2 splits (measured 0.1955 ms, the fastest 0.1946 at 4)
  CHECK(split_k(layer(32, 256, 256, 14, 14, 3, 1, 1, 1), 64, 132) == 2);
  CHECK(split_k(layer(32, 64, 64, 56, 56, 3, 1, 1, 1), 64, 132) == 1);  // 784 tiles: no split
  CHECK(split_k(layer(1, 16, 64, 8, 8, 3, 1, 1, 1), 64, 132) == 1);     // 9 slices: none to spare

  // On any GPU: the pick is the least modelled time among the splits that keep 8 slices a part.
  for (const ConvLayerShape& l : {layer(2, 64, 256, 7, 7, 3, 1, 1, 1), layer(4, 128, 96, 10, 10, 3, 1, 1, 1),
                                  layer(1, 512, 512, 7, 7, 3, 1, 1, 1), layer(32, 256, 256, 14, 14, 3, 1, 1, 1)}) {
    for (const int sms : {16, 46, 80, 108, 114, 132, 144}) {
      const lab08::SplitWork w = lab08::split_work(l, 64, lab08::kBlockN);
      const long long most = std::max(1LL, w.slices / 8);
      const int s = split_k(l, 64, sms);
      INFO(l.describe() << " on " << sms << " SMs: " << w.tiles << " tiles, split " << s);
      REQUIRE(s >= 1);
      CHECK((s == 1 || s <= most));
      if (w.tiles >= 2LL * sms) {
        CHECK(s == 1);
        continue;
      }
      const auto time = [&](long long split) {
        return lab08::modelled_split_time(lab08::kSplitCosts, w.tiles, w.slices, split, sms, lab08::kMinBlocks);
      };
      for (long long other = 1; other <= most; ++other) CHECK(time(s) <= time(other));
    }
  }
}

TEST_CASE("lab08 analysis: 1xTF32's bound fits its max(n, 3) rule and breaks the FP32 rule", "[analysis][lab08]") {
  // Both roundings of one product: 2·2^13 + 4 units; n = 2 would allow 2·2^13, n counted as 3 allows 3·2^13.
  CHECK(tf32x1_error_units(2) > 2 * 8192.0);
  CHECK(tf32x1_error_units(3) <= 3 * 8192.0);
  const TensorCoreAnalysis a = analyze_lab08(layer(1, 1, 8, 16, 16, 1, 1, 0, 1), 132);  // n = 1
  const TensorCoreStep& one = a.step("tf32");
  CHECK(one.allowed_units == Approx(3 * 8192.0));
  CHECK(one.error_bound_units <= one.allowed_units);
  CHECK(one.fp32_ratio > 1000);  // nowhere near float32
}

TEST_CASE("lab08 analysis: 3xTF32 meets the FP32 rule from n = 35, and step 2 uses the tensor cores from there",
          "[analysis][lab08]") {
  CHECK(tf32x3_error_units(35) == 35);  // 20 + 12 + 3 slices
  CHECK(tf32x3_error_units(34) > 34);
  CHECK(tf32x3_error_units(2304) <= 2304);
  static_assert(lab08::kMinTensorCoreTerms == 35, "the two layers below sit at the edge");
  const TensorCoreAnalysis at = analyze_lab08(layer(2, 35, 8, 9, 9, 1, 1, 0, 1), 132);     // n = 35
  const TensorCoreAnalysis below = analyze_lab08(layer(2, 34, 8, 9, 9, 1, 1, 0, 1), 132);  // n = 34
  CHECK_FALSE(at.step("tf32x3").on_cuda_cores);
  CHECK(at.step("tf32x3").fp32_ratio <= 1);
  CHECK(below.step("tf32x3").on_cuda_cores);
  CHECK(below.step("tf32x3").mmas == 0);
  CHECK(below.step("tf32x3").issued_fmas == below.useful_fmas);
  CHECK(below.step("tf32x3").fp32_ratio == Approx(1));
}

TEST_CASE("lab08 analysis: the bounds divide the work by the ceilings, and a CUDA-core fallback is FMA-bound",
          "[analysis][lab08]") {
  const TensorCoreCeilings c{3e12, 60e12, 300e12};
  const TensorCoreAnalysis a = analyze_lab08(layer(8, 128, 128, 128, 128, 3, 1, 1, 1), 132);
  const TensorCoreBounds one = tensor_core_bounds(a, a.step("tf32"), c);
  const TensorCoreBounds three = tensor_core_bounds(a, a.step("tf32x3"), c);
  CHECK(one.mma_s == Approx(a.step("tf32").mma_flops / 300e12));
  CHECK(three.mma_s == Approx(3 * one.mma_s));
  CHECK(one.fma_s == Approx(2.0 * static_cast<double>(a.useful_fmas) / 60e12));
  CHECK(one.memory_s == Approx(a.compulsory_bytes / 3e12));
  CHECK(one.roofline_s() == Approx(std::max(one.memory_s, one.mma_s)));
  const TensorCoreAnalysis tiny = analyze_lab08(layer(1, 1, 4, 8, 8, 3, 1, 1, 1), 132);  // n = 9
  const TensorCoreBounds fallback = tensor_core_bounds(tiny, tiny.step("tf32x3"), c);
  CHECK(fallback.mma_s == Approx(fallback.fma_s));
  CHECK(tensor_core_bounds(a, a.step("tf32"), TensorCoreCeilings{}).mma_s == 0);
}
