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

}  // namespace convlab::testing
