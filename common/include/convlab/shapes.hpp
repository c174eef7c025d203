/// @file shapes.hpp
/// @brief The shapes of convlab's two problems: conv2d (labs 01–05, 07) and the conv layer (lab 06).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "convlab/limits.hpp"

namespace convlab {

/// conv2d: one float32 image `N` of height×width, a K×K mask `M`, output `P` of height×width.
///
/// `P[i][j] = Σ_{p,q<K} N[i-r+p][j-r+q]·M[p][q]` with `r = (K-1)/2` and zero ghost cells
/// (cross-correlation, as in the lectures; for even K this is PyTorch's `padding='same'`).
struct Conv2dShape {
  int height = 0;      ///< image rows (H)
  int width = 0;       ///< image columns (W)
  int mask_width = 0;  ///< K, the mask is K×K

  /// Offset of the mask's anchor: `(K-1)/2` (integer division).
  [[nodiscard]] int radius() const { return (mask_width - 1) / 2; }
  /// Number of input (and output) pixels, H·W.
  [[nodiscard]] std::size_t pixels() const {
    return static_cast<std::size_t>(height) * static_cast<std::size_t>(width);
  }
  /// Multiply-adds per output, K² (ghost terms included: a kernel may add their zeros).
  [[nodiscard]] std::size_t terms_per_output() const {
    return static_cast<std::size_t>(mask_width) * static_cast<std::size_t>(mask_width);
  }
  /// Throws std::invalid_argument naming the bad field and the limit unless 1 ≤ H, W ≤
  /// kMaxExtent, H·W ≤ kMaxTensorElements and 1 ≤ K ≤ 17 (limits.hpp).
  void validate() const;
  /// "H×W K=K", for messages.
  [[nodiscard]] std::string describe() const;
};

/// Convolution layer: `X[B][C][H][W]`, `W[M][C][K][K]`, `Y[B][M][Ho][Wo]`.
///
/// `Y[b][m][h][w] = Σ_{c,p,q} X[b][c][h·S-P+p·D][w·S-P+q·D] · W[m][c][p][q]`, zero outside X,
/// with `Ho = (H + 2P - D(K-1) - 1)/S + 1` (likewise Wo).
struct ConvLayerShape {
  int batch = 1;       ///< B, images
  int channels = 1;    ///< C, input feature maps
  int filters = 1;     ///< M, output feature maps
  int height = 0;      ///< H, input rows
  int width = 0;       ///< W, input columns
  int mask_width = 1;  ///< K, each filter is C×K×K
  int stride = 1;      ///< S ≥ 1
  int padding = 0;     ///< P ≥ 0, zeros on every side
  int dilation = 1;    ///< D ≥ 1, distance between mask taps

  [[nodiscard]] int out_height() const;  ///< Ho
  [[nodiscard]] int out_width() const;   ///< Wo
  /// Multiply-adds per output, C·K².
  [[nodiscard]] std::size_t terms_per_output() const;
  [[nodiscard]] std::size_t input_elements() const;   ///< B·C·H·W
  [[nodiscard]] std::size_t weight_elements() const;  ///< M·C·K·K
  [[nodiscard]] std::size_t output_elements() const;  ///< B·M·Ho·Wo
  /// Throws std::invalid_argument naming the bad field and the limit it breaks (limits.hpp),
  /// including an empty output and a tensor of more than kMaxTensorElements; computed in 64
  /// bits, so that no field can overflow it. After it passes, every count above fits `int`.
  void validate() const;
  /// e.g. "B2 C3→4 9×11 K3 S1 P1 D1", for messages.
  [[nodiscard]] std::string describe() const;
};

}  // namespace convlab
