/// @file analysis_tensor_cores.hpp
/// @brief The analysis model of lab 08's steps (solutions/08-tensor-cores/): the tensor-core
///        instructions each step issues, the global traffic of its (lab 06 step 3c) loader, the
///        three rooflines it can meet — bandwidth, the FP32 FMA peak lab 06 is held to, the TF32
///        tensor-core peak — and the worst-case error of its arithmetic against the FP32 and TF32
///        rules (docs/design.md, Tolerance).
///
/// ## The steps, as written
/// Both run one kernel: block tile BM × 128 of Y (BM from lab08::block_m, per step), 16-deep
/// slices, split-K from lab08::split_k; every slice of every tile is copied by cp.async exactly as
/// lab 06 step 3 copies it (analysis_im2col.hpp's register_tiled step with this plan), and
/// multiplied by `mma.sync.m16n8k8` (16 × 8 × 8 multiply-adds) on whole tiles, ragged edges
/// included: BM/16 · 128/8 · 16/8 MMAs per slice and block for step 1 (tf32), three per tile and
/// k-step for step 2 (tf32x3). Step 2 runs reductions shorter than lab08::kMinTensorCoreTerms on float32 CUDA
/// cores instead: no MMA, one FMA per useful multiply-add.
///
/// Step 5 (tf32x3_wgmma, Hopper) forms step 2's products on `wgmma.mma_async.m64nNk8`: blocks of
/// W = lab08::wgmma_warpgroups warpgroups own (64·W) × N tiles, split-K, both from
/// lab08::wgmma_plan; each warpgroup issues 3 wgmmas per k8-step, 6 per 16-deep slice of the wide
/// tile (N = 128), so a layer's wgmmas are blocks × W × slices per block × 6, summed over the
/// splits: tiles × W × slices × 6. Nsight
/// Compute's `sm__inst_executed_pipe_tensor_op_gmma.sum` counts a warpgroup's instruction once per
/// warp, 4 times (measured on an H200 for B32 C256→256 14×14 with the wide tile: 677,376 = 392
/// blocks × 2 × 36 × 6 × 4). A layer of few tiles takes the narrow tile (64 columns, slices 32
/// deep: m64n64k8, 12 a slice); lab08::wgmma_plan says which, for the launcher and the model.
/// Its loader copies what steps 1 and 2's does (the same elements of the unrolled matrix, in
/// another order when it gathers channel group × tap). Its sums chain over a block's whole share of
/// the reduction, so its error bound is lab08::wgmma_chain_error_units; where that would break the
/// FP32 rule the launcher runs step 2's kernel, and the model counts step 2 (`runs_step2`).
///
/// Step 6 (tf32_bf16_wgmma, Hopper) runs step 5's blocks with step 4's arithmetic: per k8-step one
/// TF32 wgmma (m64nNk8, the big product) and one BF16 wgmma (m64nNk16, both small products), 2
/// where step 5 issues 3, the same multiply-adds on the tensor cores. Its bound is
/// lab08::wgmma_mixed_chain_error_units; where that would break the FP32 rule the launcher runs
/// step 5, and the model counts step 5 (`runs_step5`).
///
/// Step 7 (tf32_wgmma, Hopper) is step 1 on `wgmma.mma_async.m64n128k8` with both operands read
/// from shared memory: step 1's passes, block tile (64 or 128 rows × 128), split and 16-byte copies
/// (so its copy counts are step 1's), its multiply-adds in instructions of 64 × 128 × 8, one a
/// warpgroup per k8-step. Its bound is lab08::tf32_wgmma_error_units, far inside the 1xTF32 rule.
#pragma once

#include <string>
#include <vector>

#include "convlab/analysis_im2col.hpp"
#include "convlab/lab08_config.hpp"
#include "convlab/shapes.hpp"

namespace convlab::analysis {

/// The tensor-core instruction a step issues.
enum class TensorInstruction {
  mma_sync,  ///< mma.sync.m16n8k8 (steps 1 and 2): one warp, 16 × 8 × 8
  /// wgmma.mma_async.m64nNk8 (steps 5 and 7; step 6 beside it m64nNk16 in BF16): one warpgroup of 4 warps,
  /// 64 × N × 8 (N = plan.bn)
  wgmma,
};

/// What one step of lab 08 issues, and how accurate its arithmetic is.
struct TensorCoreStep {
  /// "tf32", "tf32x3", "tf32x3_wgmma", "tf32_bf16_wgmma", "tf32_wgmma" (the lab's variants)
  std::string name;
  int products = 1;             ///< TF32 products per product of the convolution: 1 or 3
  int bf16_products = 0;        ///< BF16 products per product: 2 for step 6 (its small ones), else 0
  TensorInstruction instruction = TensorInstruction::mma_sync;  ///< what it multiplies with
  int warpgroups = 0;           ///< wgmma: warpgroups per block (lab08::wgmma_warpgroups); 0 for mma.sync
  bool group_tap = false;       ///< wgmma: slices gathered channel group × tap (lab08::wgmma_group_tap)
  bool narrow_tile = false;     ///< wgmma: lab08::WgmmaNarrow's tile (lab08::wgmma_plan), else WgmmaWide's
  /// wgmma: A read from shared memory too, in the 128-byte swizzle, on step 1's tile (step 7);
  /// else A from registers on lab08::wgmma_plan's tile (steps 5 and 6)
  bool a_in_shared = false;
  bool on_cuda_cores = false;   ///< steps 2 and 5 on a reduction too short for 3xTF32: float32 FMAs
  /// Step 5 on a reduction too short for its chained sums to keep the FP32 rule
  /// (lab08::wgmma_chain_fits): the launcher runs step 2's kernel, and this step counts as step 2.
  bool runs_step2 = false;
  /// Step 6 on a reduction too short for its budget (lab08::wgmma_mixed_chain_fits): the launcher
  /// runs step 5, and this step counts as step 5 (which may itself run step 2's kernel).
  bool runs_step5 = false;
  GemmPlan plan;                ///< BM × BN × BK, split-K
  int effective_splits = 1;     ///< splits after the launcher drops empty ones
  long long issued_fmas = 0;    ///< multiply-adds of whole tiles, ragged edges included
  long long async_copies = 0;   ///< cp.async copies issued, of copy_bytes each
  long long async_copies_read = 0;  ///< of which read global memory
  /// Step 1: those reads as Nsight Compute counts their bytes, each distinct chunk of one warp's
  /// copy once (a warp may read a pixel's chunk twice, at two taps of one slice); −1 for a layer
  /// too large to walk (over 2^28 lane steps); the other steps 0.
  long long async_copies_distinct = 0;
  /// Bytes of one cp.async as the model counts them: 16 for step 1's chunks (lab08_config.hpp,
  /// "Step 1's feed"); 4 for lab 06 step 3's loader, on whose counts steps 2, 5 and 6 are modelled.
  int copy_bytes = 4;
  /// Step 1 on compute capability 9.0 and later, where lab08::step1_tma_fits takes the layer: its
  /// slices come by TMA (tma_feed.cuh), two bulk tensor copies a slice a block, tma_bytes written
  /// to shared memory in all (the padding's zeros included), and none of the cp.async copies above
  /// is issued: those are what it issues on the GPUs before.
  bool tma_feed = false;
  long long tma_copies = 0;  ///< bulk tensor copies (one thread's instruction each)
  long long tma_bytes = 0;   ///< bytes they write
  int tma_splits = 0;        ///< the TMA kernel's split-K (lab08::tma_split_k), after empty splits
  /// Step 1: floats its two passes write before its kernel (X channels-last, W tap-major, both
  /// padded to lab08::padded_channels); 0 for the other steps.
  long long reordered_floats = 0;
  long long global_stores = 0;      ///< floats written (an atomic add per split)
  /// Tensor-core instructions as Nsight Compute counts them, per warp: mma.sync.m16n8k8 issued
  /// (`sm__inst_executed_pipe_tensor_op_hmma.sum`), or 4 per wgmma (`..._gmma.sum`).
  long long mmas = 0;
  /// The instructions themselves: mmas for mma.sync; for wgmma, one per warpgroup (mmas / 4).
  long long instructions = 0;
  double mma_flops = 0;         ///< 2 · 16 · 8 · 8 per mma.sync, 2 · 64 · 128 · 8 per wgmma: padding included
  /// Worst-case |error| of one output in units of 2^-24·S (S = Σ|term|): see docs/design.md.
  double error_bound_units = 0;
  /// What the step's rule allows, in the same units: n for float32, max(n, 3)·2^13 for 1xTF32.
  double allowed_units = 0;
  /// The bound over what labs 01–07's FP32 rule (n·2^-24·S) allows: ≤ 1 means FP32-accurate.
  double fp32_ratio = 0;
};

/// Lab 08 on one layer.
struct TensorCoreAnalysis {
  ConvLayerShape layer;        ///< the layer analysed
  long long n = 0;             ///< C·K·K: products per output
  long long useful_fmas = 0;   ///< B·M·Ho·Wo·C·K²
  double compulsory_bytes = 0;      ///< X, W read once and Y written once
  std::vector<TensorCoreStep> steps;  ///< tf32, tf32x3, tf32x3_wgmma, tf32_bf16_wgmma, tf32_wgmma
  /// The step of this name; @throws std::out_of_range
  [[nodiscard]] const TensorCoreStep& step(const std::string& name) const;
};

/// The ceilings a step's time is held to (measured: convlab::Ceilings, `grader bench`).
struct TensorCoreCeilings {
  double copy_bytes_per_s = 0;      ///< device-to-device copy, bytes read + written per second
  double fma_flops_per_s = 0;       ///< float32 FMA
  double tf32_mma_flops_per_s = 0;  ///< TF32 mma.sync (m16n8k8)
  /// TF32 mma.sync at half the depth (m16n8k4), for lab 08's half k-step; 0 (a bench run from
  /// before it was measured) times those MMAs at tf32_mma_flops_per_s, which can only lower a bound
  double tf32_mma_k4_flops_per_s = 0;
};

/// A step's three lower bounds on time, in seconds.
struct TensorCoreBounds {
  double memory_s = 0;  ///< compulsory bytes / copy bandwidth
  double fma_s = 0;     ///< useful flops / FMA peak: the best any float32 CUDA-core kernel can do
  /// the step's MMA flops / TF32 mma.sync peak (FMA-bound for a CUDA-core fallback); 0 for a wgmma
  /// step, whose peak the ceilings do not measure
  double mma_s = 0;
  /// max(memory, mma): the step's own roofline.
  [[nodiscard]] double roofline_s() const { return memory_s > mma_s ? memory_s : mma_s; }
};

/// Analyses lab 08's conv-layer steps (1, 2 and 5) on `layer`, launched as the solution launches
/// them on a GPU of `sms` SMs. @throws std::invalid_argument for a bad layer or SM count
TensorCoreAnalysis analyze_lab08(const ConvLayerShape& layer, int sms);

/// The three bounds of `step` of `a` with these ceilings (a zero ceiling gives a zero bound).
TensorCoreBounds tensor_core_bounds(const TensorCoreAnalysis& a, const TensorCoreStep& step, const TensorCoreCeilings& c);

/// Worst-case error of 1xTF32 over n products, in units of 2^-24·S: both operands rounded
/// (2·2^-11 + 2^-22 per product) and float32 accumulation that truncates (2^-23 per term).
double tf32x1_error_units(long long n);

/// Worst-case error of 3xTF32 (lab 08 step 2) over n products, in units of 2^-24·S: the dropped
/// small·small product and the two split remainders (20 units per product: the small part is
/// truncated), the tensor cores' truncating additions of a slice's six chained MMAs (12 units
/// over all slices) and the rounding-to-nearest float32 addition of each slice's sum (one per
/// 16-deep slice).
double tf32x3_error_units(long long n);

}  // namespace convlab::analysis
