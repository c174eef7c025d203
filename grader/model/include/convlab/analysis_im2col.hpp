/// @file analysis_im2col.hpp
/// @brief The analysis model of lab 06's steps (solutions/06-im2col/): for each step the global
///        loads and stores its kernels make, exactly and ghost-aware, the GEMM tile's reuse
///        (loads per FMA) and the replication factor of the unrolled matrix.
///
/// ## The steps, as written
/// Conv layer X[B][C][H][W] ⊛ W[M][C][K][K] → Y[B][M][Ho][Wo]; the GEMM is
/// Y[b] (M × Ho·Wo) = W (M × C·K²) · X_unroll[b] (C·K² × Ho·Wo). A tap of output (h, w) is in
/// X iff its row h·S-P+p·D and column w·S-P+q·D are; the others are padding zeros, never read.
/// - Step 1 (unroll_gemm): the unroll kernel reads every in-X tap once per channel and writes
///   all B·C·K²·Ho·Wo elements of X_unroll; then the 16×16 tiled GEMM loads, per block and per
///   16-deep slice, a 16×16 tile of W and of X_unroll, one float per thread where the element
///   exists (ragged edges are zeros): each weight is loaded ⌈Ho·Wo/16⌉ times, each X_unroll
///   element ⌈M/16⌉ times.
/// - Step 2 (fused_gemm): the same GEMM, the B tile gathered from X (in-X taps only): every
///   in-X tap is loaded ⌈M/16⌉ times, and no X_unroll exists.
/// - Step 3 (register_tiled): block tile BM×BN, BK-deep slices, 8×8 outputs per thread; every
///   operand goes global→shared with `cp.async` (4 bytes each), one per slice element whether
///   it exists or not (a padding tap or a ragged edge is a copy of 0 source bytes, which
///   zero-fills the shared word). No ordinary global load is made.
/// What Nsight Compute counts: ordinary loads in `smsp__sass_data_bytes_mem_global_op_ld.sum`,
/// 4 bytes per *distinct word* a warp-level load instruction reads (lanes of one warp that read
/// the same word count once: Im2colStep::load_words); cp.async copies that read in
/// `smsp__sass_data_bytes_mem_global_op_ldgsts.sum` (a zero-fill copy adds no bytes) and the
/// instruction count `smsp__sass_inst_executed_op_ldgsts.sum` (warp-level), never in `..._op_ld`.
/// Only step 2 has such shared words: a warp is two rows ty, ty+1 of the 16×16 tile, that is
/// rows kb and kb+1 of X_unroll over the same 16 columns, and the tap (p, q+1) of one output is
/// the tap (p, q) of an output D/S columns to its right when S divides D (measured on an H100:
/// 848,700 bytes, not 4·252,495, for B3 C5→33 20×20 K3 P2 D2).
#pragma once

#include <string>
#include <vector>

#include "convlab/analysis.hpp"
#include "convlab/lab06_config.hpp"
#include "convlab/shapes.hpp"

namespace convlab::analysis {

/// Step 3's launch plan: lab06::RegisterTilePlan (convlab/lab06_config.hpp).
using GemmPlan = lab06::RegisterTilePlan;

/// What one step's kernels do, thread-level, in floats.
struct Im2colStep {
  std::string name;           ///< "unroll_gemm", "fused_gemm", "register_tiled" (the lab's variants)
  std::string gemm;           ///< the GEMM, e.g. "16×16 tiled GEMM" or "128×128×8 register-tiled (8×8 per thread)"
  long long kernels = 0;      ///< kernel launches (step 1: unroll + GEMM per chunk of images)
  long long global_loads = 0;     ///< ordinary global loads (floats, thread-level)
  /// Distinct words per warp-level load instruction, summed: global_loads less the lanes that
  /// read a word another lane of their warp reads in the same instruction. What
  /// `smsp__sass_data_bytes_mem_global_op_ld.sum` measures, divided by 4.
  long long load_words = 0;
  long long weight_loads = 0;     ///< of which (or of the copies) reads of W
  long long input_loads = 0;      ///< of which (or of the copies) reads of X or X_unroll
  long long async_copies = 0;     ///< cp.async copies issued, zero-fill included (step 3)
  long long async_copies_read = 0;///< of which read global memory (source size 4)
  long long global_stores = 0;    ///< floats written to global memory (X_unroll and Y; split-K: an atomic add per split)
  long long fmas = 0;             ///< multiply-adds executed (zeros of ragged tiles included)
  long long useful_fmas = 0;      ///< B·M·Ho·Wo·C·K²
  /// Global floats (loads and copies that read) per FMA over the whole layer.
  double global_per_fma = 0;
  /// The GEMM tile's reuse per interior tile: global floats per FMA (1/16 + 1/16 for the 16×16
  /// tile; 1/BM + 1/BN for step 3) and shared-memory floats read per FMA (2 for the 16×16 tile:
  /// As and Bs each FMA; (8+8)/64 for the 8×8 register tile).
  double tile_global_per_fma = 0;
  double tile_shared_per_fma = 0;  ///< shared-memory floats read per FMA
};

/// Every step of lab 06 on one layer.
struct Im2colAnalysis {
  ConvLayerShape layer;       ///< the layer analysed
  Im2colTraffic traffic;      ///< sizes and replication factor of X_unroll
  long long in_x_taps = 0;    ///< B·C·Σ over outputs of the taps inside X: what an unroll reads
  GemmPlan plan;              ///< step 3's plan
  int effective_splits = 1;   ///< splits after the launcher drops empty ones
  std::vector<Im2colStep> steps;  ///< unroll_gemm, fused_gemm, register_tiled
  /// The step of this name; @throws std::out_of_range
  [[nodiscard]] const Im2colStep& step(const std::string& name) const;
};

/// Analyses lab 06's three steps on a layer.
/// @param layer the conv layer (validated)
/// @param plan step 3's block tile and split (the launcher chooses it from the GPU's SM count
///        with lab06::choose_register_tile_plan)
/// @param unroll_chunk_images images per unroll chunk of step 1 (0: as the launcher, from its
///        256 MB buffer limit)
/// @throws std::invalid_argument for a bad layer or plan
Im2colAnalysis analyze_im2col(const ConvLayerShape& layer, const GemmPlan& plan, int unroll_chunk_images = 0);

/// Lab 06's steps as the solution launches them on a GPU of `sms` SMs (step 3's plan from
/// lab06::choose_register_tile_plan, split-K allowed).
Im2colAnalysis analyze_lab06(const ConvLayerShape& layer, int sms);

/// Images step 1 unrolls per chunk: as many as fit in 256 MB, at least 1, at most B and 65535.
int im2col_unroll_chunk(const ConvLayerShape& layer);

}  // namespace convlab::analysis
