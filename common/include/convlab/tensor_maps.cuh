/// @file tensor_maps.cuh
/// @brief Tensor maps for Hopper's Tensor Memory Accelerator (TMA, compute capability 9.0 and
///        later), made by the harness for a lab's kernels.
///
/// A map is the driver's description of a tensor in global memory and of the box one TMA copy
/// moves. The driver's encoders (cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col) are driver API,
/// which a lab's host code may not call (grader/build/host_code_rules.cpp: through the driver a
/// lab could reach streams and clocks); making a map starts no work and reads no clock, so the
/// harness makes them, and the lab passes the map to its kernel as a `const __grid_constant__`
/// parameter. Both maps here hold floats, write each box into shared memory as rows of 128 bytes
/// in the 128-byte swizzle (16-byte chunk j of row r at chunk position j ^ (r % 8)), and read
/// anything outside the tensor as zeros.
#pragma once

#include <cuda.h>

namespace convlab {

/// Rows × cols floats, row-major (rows `cols` floats apart; cols·4 a multiple of 16), copied in
/// boxes of box_rows rows × box_cols floats (box_cols·4 ≤ 128; each ≤ 256). A copy names the box's
/// first column and row.
/// @throws std::runtime_error naming what the driver refused.
CUtensorMap tensor_map_rows_sw128(const float* base, long long rows, long long cols, int box_cols, int box_rows);

/// An NHWC tensor [images][height][width][channels] (channels·4 a multiple of 16) in the TMA's
/// im2col mode: a copy takes `pixels` output positions of a convolution, walked along a row, then
/// down the rows, then on to the next image, `box_channels` channels of each (box_channels·4 ≤
/// 128), from the input position one filter tap gives. `lower` and `upper` are the corners of
/// the window the walk slides on both axes, for stride 1: −P and P − (K − 1)·D, each in
/// [−128, 127]. A copy names (channel, w, h, image) of the first position's window corner,
/// (wo − P, ho − P), and the tap's offset (q·D, p·D).
/// @throws std::runtime_error naming what the driver refused.
CUtensorMap tensor_map_im2col_nhwc_sw128(const float* base, int images, int height, int width, int channels, int lower,
                                         int upper, int box_channels, int pixels);

}  // namespace convlab
