/// @file lab_config.hpp
/// @brief The launch configurations of labs 01–05: one place that the lab sources (as template
///        arguments) and the analysis model (for its predictions) both read, so that the
///        prediction is always about the kernel that runs.
#pragma once

#include <array>

namespace convlab::config {

/// Labs 01 and 02 (untiled): one thread per output, blocks of kUntiledBlockX × kUntiledBlockY.
inline constexpr int kUntiledBlockX = 32;  ///< threads per block in x (one warp per row)
inline constexpr int kUntiledBlockY = 8;   ///< threads per block in y

/// A thread-block shape.
struct BlockShape {
  int x;  ///< threads in x (along a row)
  int y;  ///< threads in y
};

/// The block shapes of the naive kernel's block-size sweep (`grader bench`, the blog's study):
/// 64 to 1024 threads, warps that span a whole row segment (x ≥ 32) and warps that span
/// several rows (x < 32, uncoalesced), the lab's 32×8 among them.
inline constexpr std::array<BlockShape, 14> kSweepBlocks = {{
    {8, 8}, {16, 8}, {16, 16}, {8, 32}, {32, 2}, {32, 4}, {32, 8}, {32, 16}, {32, 32},
    {64, 2}, {64, 4}, {128, 1}, {128, 4}, {256, 1}}};

/// Lab 03 (strategy 1): the block is the TILE_WIDTH×TILE_WIDTH output tile; the
/// (TILE_WIDTH+K-1)² input tile is loaded in ⌈IN_TILE²/TILE_WIDTH²⌉ steps.
inline constexpr int kLab03TileWidth = 32;

/// Lab 04 (strategy 2): the block is the IN_TILE×IN_TILE input tile; OUT_TILE = IN_TILE-K+1
/// of its threads per dimension compute.
inline constexpr int kLab04InTile = 32;

/// Lab 05 (strategy 3): the block is the TILE_WIDTH×TILE_WIDTH output tile and only that core
/// goes to shared memory; the halo is read from global memory through the caches.
inline constexpr int kLab05TileWidth = 32;

}  // namespace convlab::config
