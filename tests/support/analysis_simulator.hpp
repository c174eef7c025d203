// A brute-force simulator of the lab kernels for testing the analysis model.
//
// It runs every thread of a block through the kernel's code on the CPU (load loop,
// __syncthreads, compute loop), on a real image and mask, and counts what the threads do:
// global and shared loads, shared stores, and for every dynamic branch the directions taken
// by each warp's active threads. It shares no code with the model: where the model counts
// with closed forms, this walks the loops.
#pragma once

#include <vector>

#include "convlab/analysis.hpp"
#include "convlab/lab06_config.hpp"
#include "convlab/lab07_config.hpp"
#include "convlab/shapes.hpp"

namespace convlab::testing {

/// What the simulated threads of one block (or a whole grid) did.
struct SimResult {
  analysis::Counts counts;                  ///< the same fields the model predicts
  std::vector<long long> untiled_per_row;   ///< untiled-equivalent loads per output row (one block)
  bool interior = false;                    ///< no ghost touched and every thread had an output
};

/// Simulates block (bx, by) of `config` on `image` (height × width, row-major) with `mask`
/// (mask_y × mask_x, row-major), writing the block's outputs into `out` (height × width).
SimResult simulate_block(const analysis::Config& config, int bx, int by,
                         const std::vector<double>& image, const std::vector<double>& mask,
                         std::vector<double>& out);

/// Simulates every block; `out` receives the whole output image.
SimResult simulate_grid(const analysis::Config& config, const std::vector<double>& image,
                        const std::vector<double>& mask, std::vector<double>& out);

/// The convolution by definition: P[i][j] = Σ N[i-r+p][j-r+q]·M[p][q], zero ghosts.
std::vector<double> direct_convolution(const analysis::Config& config,
                                       const std::vector<double>& image,
                                       const std::vector<double>& mask);

// ---- Lab 07: the register-tiled kernel family, thread by thread --------------------------

/// What the threads of a lab 07 launch did, counted the way the model counts.
struct RegisterTilingSim {
  long long input_loads = 0;              ///< floats of N read from global memory
  long long input_load_instructions = 0;  ///< chunk loads
  long long mask_loads = 0;               ///< floats of M read from global memory
  long long fmas = 0;                     ///< multiply-adds executed
  long long shared_stores = 0;            ///< floats stored to the shared tile
  long long shared_loads = 0;             ///< floats read from it
  long long interior_blocks = 0;          ///< blocks that took the body without tests
  long long divergent_warps = 0;          ///< warps split at some boundary test
  long long divergent_warps_branch = 0;   ///< of which at the early return
};

/// Runs every thread of register_tiled<config, vec> over `image` (height × width) with `mask`
/// (K×K) as the kernel is written — interior test, early return, the shfl path's mask loads,
/// the shared tile loop, the window rows chunk by chunk, the FMAs, the stores — writing `out`.
RegisterTilingSim simulate_register_tiling(const lab07::TileConfig& config, int height, int width, bool vec,
                                           const std::vector<double>& image, const std::vector<double>& mask,
                                           std::vector<double>& out);

// ---- Lab 06: the three steps' kernels, loop by loop -------------------------------------

/// What one step's kernels did, in floats (thread-level).
struct Im2colSim {
  long long global_loads = 0;       ///< ordinary loads, thread-level
  long long load_words = 0;         ///< distinct words per warp-level load instruction, summed (steps 1, 2)
  long long async_copies = 0;       ///< cp.async issued
  long long async_copies_read = 0;  ///< of which with source size 4
  long long global_stores = 0;
  long long fmas = 0;
};

/// Step 1 (unroll kernel per chunk of `chunk` images, then the 16×16 tiled GEMM), step 2 (the
/// fused GEMM) and step 3 (the register-tiled GEMM with `plan`), every thread walked; each
/// writes Y (B×M×Ho×Wo) into `y` so that the walk can be checked against the definition.
Im2colSim simulate_unroll_gemm(const ConvLayerShape& s, int chunk, const std::vector<double>& x,
                               const std::vector<double>& w, std::vector<double>& y);
Im2colSim simulate_fused_gemm(const ConvLayerShape& s, const std::vector<double>& x, const std::vector<double>& w,
                              std::vector<double>& y);
Im2colSim simulate_register_tiled_gemm(const ConvLayerShape& s, const lab06::RegisterTilePlan& plan,
                                       const std::vector<double>& x, const std::vector<double>& w,
                                       std::vector<double>& y);

/// The conv layer by definition, Y[b][m][h][w] = Σ X[b][c][h·S-P+p·D][w·S-P+q·D]·W[m][c][p][q].
std::vector<double> direct_conv_layer(const ConvLayerShape& s, const std::vector<double>& x,
                                      const std::vector<double>& w);

}  // namespace convlab::testing
