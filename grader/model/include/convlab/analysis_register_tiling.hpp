/// @file analysis_register_tiling.hpp
/// @brief The analysis model of lab 07's register-tiled kernel family
///        (solutions/07-register-tiling/register_tiling_kernel.cuh): exact global loads over
///        the whole grid, ghost-aware, the reduction over the untiled kernel, the registers a
///        thread's patch needs, the communication view (loads per FMA) of Iandola et al. and of
///        the GTC talk, and the warps that diverge at the image edges.
///
/// ## What is counted (as the kernel is written; caches are not modelled)
/// A configuration is a convlab::lab07::TileConfig (lab07_config.hpp, the one the launchers
/// and the autotuner use) plus `vec`, whether the launcher takes the VW-wide path (width % VW
/// == 0 and aligned buffers: the launcher's vector_path_ok). Thread (X, Y) of the whole grid
/// (X = blockIdx.x·BX + threadIdx.x) owns outputs y0 = Y·OY .. y0+OY-1, x0 = X·OX .. x0+OX-1.
/// - Global→register path: the thread walks the OY+K-1 rows of its window; a row is CHUNKS
///   loads of VW floats starting at column x0 - LEFT·VW (LEFT = ⌈R/VW⌉): chunks include the
///   alignment padding left and right of the K+OX-1 columns the outputs need. A chunk is loaded
///   when its row is in the image and the whole chunk is (the launcher only vectorises when
///   width % VW == 0, so a chunk is wholly inside or wholly outside); ghosts are zeros.
///   On the constant-filter path a thread with no output in the image returns first; on the
///   shfl path every thread stays (all lanes must reach each __shfl_sync) and loads the chunks
///   of its window that lie in the image.
/// - Shared→register path: the block loads its (BY·OY+K-1) × TILE_CHUNKS tile once, a chunk
///   when it is wholly in the image; the threads then read their windows from shared memory.
/// - The mask: the constant path reads `__constant__` memory (no global load); the shfl path
///   with unrolled rows loads K² floats per warp (lane l: taps l, l+32, ...); with rolled rows
///   lane q < K loads M[p][q] for each (window row, output row) pair with p = row - oy in
///   [0, K): OY·K² floats per warp.
/// Nsight Compute's `smsp__sass_data_bytes_mem_global_op_ld.sum` counts the bytes the compiled
/// loads fetch (16 per 128-bit load). The compiler drops the floats of a chunk that no FMA uses
/// (the alignment padding left and right of the window) and narrows the load to the smallest
/// naturally aligned vector that holds the rest: for K = 5, OX = 4, VW = 4 a window row is
/// 8 + 16 + 8 bytes, not 3 × 16 (measured on an H100: 55,847,616 bytes on 2048², exactly).
/// So the metric reads 4 × (compiled_input_loads + mask_loads); input_loads is the count as the
/// source is written. (Three used floats of four, K = 6, 7 and 15, are taken as one 16-byte
/// load: not yet measured.)
///
/// ## Divergence at the image edges
/// Blocks whose whole window is inside the image run a copy of the body without tests. In the
/// others, the tests are: the early return of the constant-filter global path (a branch: the
/// threads leave), the per-chunk "inside the image" tests of the loads and the per-row and
/// per-chunk tests of the stores (short: the compiler turns them into predicated loads,
/// selects and predicated stores), and on the shared path the tile loop's `idx < TOTAL` (in
/// every block when the tile is not a whole number of block-sized steps).
#pragma once

#include <string>

#include "convlab/lab07_config.hpp"

namespace convlab::analysis {

/// One lab 07 configuration on one image, as the kernel runs it.
struct RegisterTilingAnalysis {
  lab07::TileConfig config;  ///< the configuration (validated: config.check() is empty)
  int height = 0;            ///< H
  int width = 0;             ///< W
  bool vec = false;          ///< the VW-wide path is taken
  int vw = 1;                ///< floats per load and store: VW when vec, else 1
  int chunks = 0;            ///< loads per window row (CHUNKS)
  int row_floats = 0;        ///< floats per window row in registers, CHUNKS·VW
  int window_rows = 0;       ///< OY + K - 1
  long long grid_x = 0;      ///< ⌈W / (BX·OX)⌉
  long long grid_y = 0;      ///< ⌈H / (BY·OY)⌉
  long long blocks = 0;           ///< grid_x · grid_y
  long long interior_blocks = 0;  ///< blocks that run the body without tests
  long long threads = 0;          ///< blocks · BX · BY
  long long warps = 0;            ///< threads / 32
  long long outputs = 0;          ///< H·W
  /// Floats of the image N loaded from global memory, thread-level, ghosts never loaded.
  long long input_loads = 0;
  /// Floats of N the compiled loads fetch: each chunk narrowed to the smallest naturally
  /// aligned vector holding the floats the FMAs use (see the file comment).
  long long compiled_input_loads = 0;
  /// Load instructions of N, thread-level (chunks): input_loads / vw.
  long long input_load_instructions = 0;
  /// Floats of the mask loaded from global memory (shfl path; 0 on the constant path).
  long long mask_loads = 0;
  /// What the untiled kernel (lab 02) loads for the same outputs: the in-image taps.
  long long untiled_loads = 0;
  /// Multiply-adds executed, padding taps and outputs past the edge included (they are in the
  /// unrolled code of every thread that stays).
  long long fmas = 0;
  /// Shared-memory floats stored and read (shared path; 0 on the global path).
  long long shared_stores = 0;
  long long shared_loads = 0;     ///< floats read from the shared tile
  /// Registers (floats) the patch needs: OX·OY accumulators + the window row (two on the
  /// rolled path, which prefetches the next row) + the shfl path's mask registers. A lower bound
  /// on what ptxas allocates (addresses, indices and the unrolled path's hoisted rows come on top).
  int patch_registers = 0;
  /// The communication view per interior thread: floats loaded (global or shared, to
  /// registers) per FMA, (OY+K-1)·CHUNKS·VW / (OX·OY·K²), and load instructions per FMA.
  double floats_per_fma = 0;
  double load_instructions_per_fma = 0;  ///< the same in load instructions (vectors count once)
  /// The reduction of global input loads over the untiled kernel in an interior block:
  /// K²·(outputs of the block) / (floats the block loads): K²·OX·OY / ((OY+K-1)·CHUNKS·VW) on
  /// the global path, K²·BX·OX·BY·OY / (TILE_ROWS·TILE_CHUNKS·VW) on the shared path.
  double interior_reduction = 0;
  /// Warps in which some boundary test splits the lanes (see the file comment).
  long long divergent_warps = 0;
  /// Of those, warps split by a real branch: the constant-filter path's early return.
  long long divergent_warps_branch = 0;

  /// untiled_loads / input_loads: the reduction of global input traffic over the naive kernel.
  [[nodiscard]] double reduction() const;
  /// Every byte the compiled loads fetch from global memory: 4·(compiled_input_loads +
  /// mask_loads), what `smsp__sass_data_bytes_mem_global_op_ld.sum` measures.
  [[nodiscard]] double global_load_bytes() const;
  /// e.g. "lab07 K=5 4x6 out/thread, 64x2 threads, ... on 2048×2048 (float4 loads) grid 8×171".
  [[nodiscard]] std::string describe() const;
};

/// Analyses `config` on a height × width image.
/// @param config a lab 07 configuration (config.check() must be empty)
/// @param height H ≥ 1
/// @param width W ≥ 1
/// @param vec whether the launcher takes the VW-wide path (ignored when VW is 1; refused when
///        width % VW != 0, which the launcher never does)
/// @return the counts
/// @throws std::invalid_argument naming the bad field
RegisterTilingAnalysis analyze_register_tiling(const lab07::TileConfig& config, int height, int width, bool vec);

/// Whether the launcher takes the VW-wide path on an image this wide (its buffers are aligned:
/// the launcher's vector_path_ok).
bool lab07_vector_path(const lab07::TileConfig& config, int width);

}  // namespace convlab::analysis
