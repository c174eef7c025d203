// The slides' diagrams, drawn as SVG from the sizes the code uses: the three tiling strategies
// of labs 03-05 (config::kLab03TileWidth, kLab04InTile, kLab05TileWidth), the im2col unrolled
// matrix of the conv-layer lecture's example, and lab 07's register patch (its compiled-in
// configuration, lab07::default_config). A change of tile size redraws them: `grader docs`
// rewrites slides/figures/*.svg (and `--check` reports a stale one), `grader figures` writes
// them anywhere.
//
// Every drawing takes its sizes as arguments, so that a test can draw it with other sizes; the
// registry (diagrams()) passes the code's own.
#pragma once

#include <string>
#include <vector>

namespace convlab::grader::figures {

/// The mask width the tiling diagrams are drawn for: the grader's timing case (2048², K = 5,
/// grader/rubric.json) and the lecture's examples.
inline constexpr int kTilingExampleMask = 5;

/// The conv-layer lecture's im2col example ([lecture-layers], slide 10): C = 3 channels of
/// 3×3, 2×2 filters, so Ho = Wo = 2 (dataset `hand_lecture_unroll_c3_k2`).
struct Im2colExample {
  int channels = 3;  ///< C
  int height = 3;    ///< H (and W)
  int mask = 2;      ///< K
};

/// The tiling lecture's 2D example ([lecture-tiling], 'Analysis for an 8x8 Output Tile'): 8×8
/// output tiles, K = 5, on a 24×24 image (three tiles per axis: table example-2d).
struct GhostCellExample {
  int tile = 8;   ///< T, the output tile's side
  int mask = 5;   ///< K
  int tiles = 3;  ///< tiles per image side
};

/// One drawing: its file stem, the caption the slide shows under it, and the SVG.
struct Diagram {
  std::string name;     ///< e.g. "tiling-strategy-1" (the file is NAME.svg)
  std::string caption;  ///< one sentence with the sizes it was drawn for
  std::string svg;      ///< the document
  int width = 0;        ///< the SVG's width and height, in its own units (pixels at scale 1)
  int height = 0;
};

/// Strategy 1 (lab 03): the block is the T×T output tile; the (T+K-1)² input tile is loaded in
/// ⌈(T+K-1)²/T²⌉ steps of T² elements, shaded by step; the output tile outlined.
/// @param tile T, threads per block side
/// @param mask K
/// @return the drawing
Diagram tiling_strategy_1(int tile, int mask);

/// Strategy 2 (lab 04): the block is the I×I input tile, one element loaded per thread; the
/// inner O×O threads (O = I-K+1) compute, the ring of K-1 idles.
/// @param in_tile I, threads per block side
/// @param mask K
/// @return the drawing
Diagram tiling_strategy_2(int in_tile, int mask);

/// Strategy 3 (lab 05): the block is the T×T output tile and only that core goes to shared
/// memory; the halo ring of r = (K-1)/2 is read from global memory through L1/L2.
/// @param tile T
/// @param mask K
/// @return the drawing
Diagram tiling_strategy_3(int tile, int mask);

/// The unrolled input of the conv-layer lecture's example: the C input channels, and X_unroll
/// with C·K² rows and Ho·Wo columns, every cell naming the input element it copies.
/// @param ex the sizes
/// @return the drawing
Diagram im2col_unrolled(const Im2colExample& ex);

/// Lab 07's register patch: a thread's (OY+K-1)×(OX+K-1) input window, loaded one row at a
/// time, and its OY×OX outputs; each window row labelled with the output rows it feeds.
/// @param mask K
/// @param out_x OX
/// @param out_y OY
/// @return the drawing
Diagram register_patch(int mask, int out_x, int out_y);

/// Every diagram the decks use, drawn with the code's sizes (lab_config.hpp, lab07_config.hpp).
/// @return the drawings, in a fixed order
/// Ghost cells: the image with its ring of r = (K-1)/2 cells outside it, cut into T×T output
/// tiles; the corner block's (T+K-1)² input tile, split into the inputs it loads and the ghost
/// cells it does not (they are 0), and an interior block's input tile, all inside the image.
/// @param ex the sizes
/// @return the drawing
Diagram ghost_cells(const GhostCellExample& ex);

/// Lab 06 step 3: the BM×BN block tile of Y as a grid of threads, each owning a TM×TN register
/// tile split in four (TM/2)×(TN/2) pieces a half-tile apart (step 3b's float4 mapping: thread
/// (1, 2) shaded), and the pipeline of step 3c: which slice of the reduction each of the
/// `stages` shared-memory buffers holds at iteration kt, one being computed, one being issued
/// by cp.async, the others in flight.
/// @param bm, bn the block tile (RegisterTilePlan's default)
/// @param tm, tn the register tile of one thread (labs/06-im2col/implicit_gemm.cuh)
/// @param stages buffers of each tile in shared memory (four slices in flight)
/// @return the drawing
Diagram lab06_register_tile(int bm, int bn, int tm, int tn, int stages);

std::vector<Diagram> diagrams();

}  // namespace convlab::grader::figures
