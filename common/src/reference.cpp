// CPU references in double. Straight loops in the definition's own order: a reader checks them
// against docs/design.md (Conventions) line by line. Rows are shared among hardware threads only to keep large
// generated cases (8192², K=17) bearable.
#include "convlab/reference.hpp"

#include "convlab/parallel_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>
#include <vector>

namespace convlab {
namespace {

void check_conv2d_operands(const Tensor<float>& image, const Tensor<float>& mask) {
  if (image.rank() != 2) {
    throw std::invalid_argument("conv2d reference: image must be 2-D, got shape " + shape_string(image.shape()));
  }
  if (mask.rank() != 2 || mask.dim(0) != mask.dim(1)) {
    throw std::invalid_argument("conv2d reference: mask must be square 2-D, got shape " + shape_string(mask.shape()));
  }
}

// magnitude=false: Σ N·M;  magnitude=true: Σ |N|·|M| (the S of the tolerance rule).
double conv2d_sum(const float* N, int H, int W, const float* M, int K, int i, int j, bool magnitude) {
  const int r = (K - 1) / 2;
  double sum = 0.0;
  for (int p = 0; p < K; ++p) {
    const int row = i - r + p;
    if (row < 0 || row >= H) continue;  // ghost row: zeros
    for (int q = 0; q < K; ++q) {
      const int col = j - r + q;
      if (col < 0 || col >= W) continue;  // ghost column: zeros
      const double n = N[static_cast<std::size_t>(row) * W + col];
      const double m = M[p * K + q];
      sum += magnitude ? std::fabs(n) * std::fabs(m) : n * m;
    }
  }
  return sum;
}

Tensor<double> conv2d_impl(const Tensor<float>& image, const Tensor<float>& mask, bool magnitude) {
  check_conv2d_operands(image, mask);
  const int H = static_cast<int>(image.dim(0));
  const int W = static_cast<int>(image.dim(1));
  const int K = static_cast<int>(mask.dim(0));
  Tensor<double> out({image.dim(0), image.dim(1)});
  double* P = out.data();
  parallel_rows(H, [&](int i) {
    for (int j = 0; j < W; ++j) {
      P[static_cast<std::size_t>(i) * W + j] = conv2d_sum(image.data(), H, W, mask.data(), K, i, j, magnitude);
    }
  });
  return out;
}

// Output (b, m, ho, wo) of a conv layer, or its S: the one sum of both references.
double conv_layer_sum(const float* X, const float* Wt, const ConvLayerShape& s, int b, int m, int ho, int wo,
                      bool magnitude) {
  const int K = s.mask_width;
  double sum = 0.0;
  for (int c = 0; c < s.channels; ++c) {
    for (int p = 0; p < K; ++p) {
      const int h = ho * s.stride - s.padding + p * s.dilation;
      if (h < 0 || h >= s.height) continue;
      for (int q = 0; q < K; ++q) {
        const int col = wo * s.stride - s.padding + q * s.dilation;
        if (col < 0 || col >= s.width) continue;
        const double xv = X[((static_cast<std::size_t>(b) * s.channels + c) * s.height + h) * s.width + col];
        const double wv = Wt[((static_cast<std::size_t>(m) * s.channels + c) * K + p) * K + q];
        sum += magnitude ? std::fabs(xv) * std::fabs(wv) : xv * wv;
      }
    }
  }
  return sum;
}

Tensor<double> conv_layer_impl(const Tensor<float>& x, const Tensor<float>& w, ConvLayerParams prm,
                               bool magnitude) {
  const ConvLayerShape s = conv_layer_shape(x, w, prm);
  const int Ho = s.out_height();
  const int Wo = s.out_width();
  Tensor<double> y({static_cast<std::size_t>(s.batch), static_cast<std::size_t>(s.filters),
                    static_cast<std::size_t>(Ho), static_cast<std::size_t>(Wo)});
  double* Y = y.data();
  // One "row" of work = one (b, m, ho) output row.
  parallel_rows(s.batch * s.filters * Ho, [&](int job) {
    const int ho = job % Ho;
    const int m = (job / Ho) % s.filters;
    const int b = job / (Ho * s.filters);
    for (int wo = 0; wo < Wo; ++wo) {
      Y[((static_cast<std::size_t>(b) * s.filters + m) * Ho + ho) * Wo + wo] =
          conv_layer_sum(x.data(), w.data(), s, b, m, ho, wo, magnitude);
    }
  });
  return y;
}

}  // namespace

Tensor<double> conv2d_reference(const Tensor<float>& image, const Tensor<float>& mask) {
  return conv2d_impl(image, mask, false);
}

Tensor<double> conv2d_abs_sum(const Tensor<float>& image, const Tensor<float>& mask) {
  return conv2d_impl(image, mask, true);
}

Conv2dOutput conv2d_reference_at(const float* image, int height, int width, const float* mask, int mask_width,
                                 int row, int col) {
  return {conv2d_sum(image, height, width, mask, mask_width, row, col, false),
          conv2d_sum(image, height, width, mask, mask_width, row, col, true)};
}

ConvLayerShape conv_layer_shape(const Tensor<float>& x, const Tensor<float>& w, ConvLayerParams p) {
  if (x.rank() != 4) {
    throw std::invalid_argument("conv layer: X must be 4-D [B][C][H][W], got shape " + shape_string(x.shape()));
  }
  if (w.rank() != 4) {
    throw std::invalid_argument("conv layer: W must be 4-D [M][C][K][K], got shape " + shape_string(w.shape()));
  }
  if (w.dim(2) != w.dim(3)) {
    throw std::invalid_argument("conv layer: W's mask is not square, shape " + shape_string(w.shape()));
  }
  if (w.dim(1) != x.dim(1)) {
    throw std::invalid_argument(fmt::format("conv layer: X has {} channels but W has {}", x.dim(1), w.dim(1)));
  }
  ConvLayerShape s;
  s.batch = static_cast<int>(x.dim(0));
  s.channels = static_cast<int>(x.dim(1));
  s.height = static_cast<int>(x.dim(2));
  s.width = static_cast<int>(x.dim(3));
  s.filters = static_cast<int>(w.dim(0));
  s.mask_width = static_cast<int>(w.dim(2));
  s.stride = p.stride;
  s.padding = p.padding;
  s.dilation = p.dilation;
  s.validate();
  return s;
}

Tensor<double> conv_layer_reference(const Tensor<float>& x, const Tensor<float>& w, ConvLayerParams p) {
  return conv_layer_impl(x, w, p, false);
}

Tensor<double> conv_layer_abs_sum(const Tensor<float>& x, const Tensor<float>& w, ConvLayerParams p) {
  return conv_layer_impl(x, w, p, true);
}

Conv2dOutput conv_layer_reference_at(const float* x, const float* w, const ConvLayerShape& s, std::size_t index) {
  const auto Ho = static_cast<std::size_t>(s.out_height());
  const auto Wo = static_cast<std::size_t>(s.out_width());
  const int wo = static_cast<int>(index % Wo);
  const int ho = static_cast<int>(index / Wo % Ho);
  const int m = static_cast<int>(index / (Wo * Ho) % static_cast<std::size_t>(s.filters));
  const int b = static_cast<int>(index / (Wo * Ho * static_cast<std::size_t>(s.filters)));
  return {conv_layer_sum(x, w, s, b, m, ho, wo, false), conv_layer_sum(x, w, s, b, m, ho, wo, true)};
}

}  // namespace convlab
