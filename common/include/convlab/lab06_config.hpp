/// @file lab06_config.hpp
/// @brief Lab 06's launch configurations on the host: step 3's block tiles and the plan it
///        launches a layer with, one place that the solution's launcher and the analysis model
///        (its predictions, `grader analyze --lab lab06`) both read, as lab_config.hpp is for
///        labs 01–05.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "convlab/shapes.hpp"

namespace convlab::lab06 {

/// Steps 1 and 2: the textbook shared-memory tiled GEMM, TILE_WIDTH² threads, one output each.
inline constexpr int kGemmTileWidth = 16;

/// Step 1: the most bytes of X_unroll the launcher keeps; it unrolls as many images at a time
/// as fit (at least one).
inline constexpr long long kUnrollBufferBytes = 256LL << 20;

/// Step 3's default slice depth (shared-memory tiles BM×BK and BK×BN; four slices in flight).
inline constexpr int kStep3SliceDepth = 8;

/// One of the four real layers lab 06 is measured on (docs/design.md, Targets): what
/// `conv_layer_bench` times against cuDNN and cuBLAS, and what `grader datagen --bench-layers`
/// writes as cases, so that a student times their own steps on the same layers.
struct BenchLayer {
  const char* name;      ///< "B32 C64→64 56×56 K3 P1", for tables
  ConvLayerShape shape;  ///< B, C, M, H, W, K, S, P, D
};

/// The layer B×C×H×W → M filters of K×K, stride S, padding P, dilation D.
inline ConvLayerShape conv_layer(int b, int c, int m, int h, int w, int k, int s, int p, int d) {
  ConvLayerShape x;
  x.batch = b, x.channels = c, x.filters = m, x.height = h, x.width = w;
  x.mask_width = k, x.stride = s, x.padding = p, x.dilation = d;
  return x;
}

/// The benchmark's layers: a ResNet-style 3×3 layer at 56×56 and at 14×14 (few columns: the
/// case for split-K), the 7×7 stride-2 stem on 224×224 (three input channels), and a wide 3×3
/// layer at 128×128.
inline std::vector<BenchLayer> bench_layers() {
  return {{"B32 C64→64 56×56 K3 P1", conv_layer(32, 64, 64, 56, 56, 3, 1, 1, 1)},
          {"B32 C256→256 14×14 K3 P1", conv_layer(32, 256, 256, 14, 14, 3, 1, 1, 1)},
          {"B16 C3→64 224×224 K7 S2 P3", conv_layer(16, 3, 64, 224, 224, 7, 2, 3, 1)},
          {"B8 C128→128 128×128 K3 P1", conv_layer(8, 128, 128, 128, 128, 3, 1, 1, 1)}};
}

/// A launch plan of step 3: block tile bm×bn of Y, how many blocks share one output's C·K·K
/// reduction (split-K; 1 = none), and the depth of a reduction slice.
struct RegisterTilePlan {
  int bm = 128;     ///< rows of Y per block (output channels)
  int bn = 128;     ///< columns of Y per block (output pixels)
  int splits = 1;   ///< blocks sharing one output's reduction (split-K)
  int bk = 8;  ///< depth of a reduction slice: 8 (four slices in flight) or 16 (two), 16 only for bn = 128
};

/// The plan step 3 launches a layer with on a GPU of `sms` SMs: the tile and split with the
/// best predicted use of the GPU. Blocks are handed to SMs in waves; an SM runs its blocks at
/// about the same total rate whether one or two are resident (measured), so the time is set
/// by the SM with the most blocks: ⌈blocks / SMs⌉ block-times. The score is the useful fraction
/// of that time, times the tile's own efficiency (smaller tiles reuse each loaded float less:
/// measured on an H200 at full occupancy), times a toll for split-K (a memset of Y and atomic
/// adds).
/// @param s the layer (validated by the caller)
/// @param sms_count streaming multiprocessors of the GPU
/// @param allow_split false for epilogues that need the whole sum (bias + ReLU)
inline RegisterTilePlan choose_register_tile_plan(const ConvLayerShape& s, int sms_count, bool allow_split) {
  const double sms = std::max(1, sms_count);
  const long long kdim = static_cast<long long>(s.channels) * s.mask_width * s.mask_width;
  const long long n = static_cast<long long>(s.batch) * s.out_height() * s.out_width();
  const long long k_tiles = (kdim + kStep3SliceDepth - 1) / kStep3SliceDepth;
  struct Tile {
    int bm, bn;
    double efficiency;
  };
  const Tile tiles[] = {{128, 128, 1.0}, {64, 128, 0.88}, {128, 64, 0.84}, {64, 64, 0.72}};
  RegisterTilePlan best{128, 128, 1, kStep3SliceDepth};
  double best_score = -1;
  for (const Tile& t : tiles) {
    const double rows = std::ceil(static_cast<double>(s.filters) / t.bm);
    const double cols = std::ceil(static_cast<double>(n) / t.bn);
    const double fill = (s.filters / (rows * t.bm)) * (static_cast<double>(n) / (cols * t.bn));  // ragged tiles
    for (int splits : {1, 2, 3, 4, 6, 8}) {
      if (splits > 1 && (!allow_split || k_tiles / splits < 16)) continue;  // ≥ 128 k per block
      const double blocks = rows * cols * splits;
      const double waves = std::ceil(blocks / sms);
      const double score = t.efficiency * fill * blocks / (waves * sms) * (splits > 1 ? 0.9 : 1.0);
      if (score > best_score * 1.02) {  // ties go to the bigger tile and fewer splits
        best_score = score;
        best = {t.bm, t.bn, splits, kStep3SliceDepth};
      }
    }
  }
  return best;
}

}  // namespace convlab::lab06
