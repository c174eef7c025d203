/// @file reference.hpp
/// @brief CPU reference convolutions, accumulated in double, exactly as docs/design.md (Conventions) defines them.
///
/// Each reference has an `_abs_sum` twin that returns `S = Σ|term|` per output (the same
/// convolution on |input| and |mask|); compare.hpp turns S into the allowed error.
#pragma once

#include "convlab/shapes.hpp"
#include "convlab/tensor.hpp"

namespace convlab {

/// conv2d reference. @param image H×W float32, @param mask K×K float32 (1 ≤ K ≤ 17, odd or even).
/// @returns H×W in double: `P[i][j] = Σ_{p,q} N[i-r+p][j-r+q]·M[p][q]`, `r=(K-1)/2`, zero ghosts.
/// @throws std::invalid_argument if the tensors are not 2-D or the mask is not square.
Tensor<double> conv2d_reference(const Tensor<float>& image, const Tensor<float>& mask);

/// Σ|N[i-r+p][j-r+q]|·|M[p][q]| per output: the S of the tolerance rule.
Tensor<double> conv2d_abs_sum(const Tensor<float>& image, const Tensor<float>& mask);

/// One output of the conv2d reference and its S.
struct Conv2dOutput {
  double value;    ///< Σ N·M, as conv2d_reference
  double abs_sum;  ///< Σ |N|·|M|, as conv2d_abs_sum
};

/// The reference at output (row, col) alone, from row-major arrays: for a sample of the outputs
/// of an image too large to compute whole (the benchmarks' check). Same sum, same order.
/// @param image      height×width floats, row-major
/// @param height     image rows
/// @param width      image columns
/// @param mask       mask_width² floats, row-major
/// @param mask_width K
/// @param row        the output's row
/// @param col        the output's column
Conv2dOutput conv2d_reference_at(const float* image, int height, int width, const float* mask, int mask_width,
                                 int row, int col);

/// Stride, padding and dilation of a conv layer (batch, channels, sizes come from the tensors).
struct ConvLayerParams {
  int stride = 1;    ///< S ≥ 1
  int padding = 0;   ///< P ≥ 0
  int dilation = 1;  ///< D ≥ 1
};

/// Shape of a conv layer given its input `X[B][C][H][W]` and weights `W[M][C][K][K]`.
/// @throws std::invalid_argument naming what disagrees.
ConvLayerShape conv_layer_shape(const Tensor<float>& x, const Tensor<float>& w, ConvLayerParams p);

/// Conv layer reference: `Y[B][M][Ho][Wo]` in double (see ConvLayerShape for the formula).
Tensor<double> conv_layer_reference(const Tensor<float>& x, const Tensor<float>& w,
                                    ConvLayerParams params);

/// Σ|term| per output of the conv layer: the S of the tolerance rule.
Tensor<double> conv_layer_abs_sum(const Tensor<float>& x, const Tensor<float>& w,
                                  ConvLayerParams params);

/// The conv layer reference at one output alone, and its S: for samples of outputs (the
/// grader's check of timed calls). Same sum, same order as conv_layer_reference.
/// @param x     X[B][C][H][W], row-major
/// @param w     W[M][C][K][K], row-major
/// @param shape the layer
/// @param index the output's row-major offset in Y[B][M][Ho][Wo]
Conv2dOutput conv_layer_reference_at(const float* x, const float* w, const ConvLayerShape& shape, std::size_t index);

}  // namespace convlab
