// Why lab 08 has no Winograd step (docs/design.md, Tolerance): the course's rule bounds each
// output's error by n·u·S, S = Σ|x·w| over that output's own terms. Winograd's F(2×2, 3×3)
// (Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks") multiplies transformed tiles
// in which an output's inputs are mixed with its neighbours': a large input beside an output's
// window, met by a large weight, makes products far larger than anything in that output's S,
// and their rounding does not cancel. Here a float32 Winograd F(2×2, 3×3), written out as a
// library would compute it, keeps the rule on the datasets' uniform values and breaks it by
// orders of magnitude on a layer with a wide range of values, where a plain float32 sum keeps it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <utility>

#include "convlab/compare.hpp"
#include "convlab/datagen.hpp"
#include "convlab/reference.hpp"
#include "convlab/tensor.hpp"

using namespace convlab;

namespace {

constexpr int C = 8, M = 4, H = 14, W = 14, K = 3, P = 1;  // a 3×3 layer of stride 1, padded
constexpr int kTiles = H / 2;                               // F(2×2, 3×3): 2×2 outputs per 4×4 tile

// The transforms of F(2×2, 3×3): Y = Aᵀ [(G g Gᵀ) ⊙ (Bᵀ d B)] A, d a 4×4 input tile, g a 3×3 filter.
constexpr float kBT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
constexpr float kG[4][3] = {{1, 0, 0}, {0.5f, 0.5f, 0.5f}, {0.5f, -0.5f, 0.5f}, {0, 0, 1}};
constexpr float kAT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};

/// L (rows × inner) · R (inner × cols), in float32 as written (one rounding per operation).
template <int ROWS, int INNER, int COLS>
void product(const float (&l)[ROWS][INNER], const float (&r)[INNER][COLS], float (&out)[ROWS][COLS]) {
  for (int i = 0; i < ROWS; ++i) {
    for (int j = 0; j < COLS; ++j) {
      float s = 0;
      for (int k = 0; k < INNER; ++k) s += l[i][k] * r[k][j];
      out[i][j] = s;
    }
  }
}

template <int ROWS, int COLS>
void transpose(const float (&in)[ROWS][COLS], float (&out)[COLS][ROWS]) {
  for (int i = 0; i < ROWS; ++i) {
    for (int j = 0; j < COLS; ++j) out[j][i] = in[i][j];
  }
}

/// Y[0][m][y][x] by F(2×2, 3×3) in float32: the channel sum of the transformed products in
/// float32, as a batched GEMM over the 16 tile points computes it.
Tensor<float> winograd_f2x2_3x3(const Tensor<float>& x, const Tensor<float>& w) {
  float B[4][4], AT_T[4][2], G_T[3][4];
  transpose(kBT, B);
  transpose(kAT, AT_T);
  transpose(kG, G_T);
  Tensor<float> y({1, M, H, W});
  for (int ty = 0; ty < kTiles; ++ty) {
    for (int tx = 0; tx < kTiles; ++tx) {
      float acc[M][4][4] = {};
      for (int c = 0; c < C; ++c) {
        float d[4][4], t[4][4], v[4][4];
        for (int i = 0; i < 4; ++i) {
          for (int j = 0; j < 4; ++j) {
            const int yy = 2 * ty - P + i, xx = 2 * tx - P + j;
            d[i][j] = yy >= 0 && yy < H && xx >= 0 && xx < W ? x.at({0, std::size_t(c), std::size_t(yy), std::size_t(xx)}) : 0.0f;
          }
        }
        product(kBT, d, t);
        product(t, B, v);
        for (int m = 0; m < M; ++m) {
          float g[3][3], gt[4][3], u[4][4];
          for (int i = 0; i < K; ++i) {
            for (int j = 0; j < K; ++j) g[i][j] = w.at({std::size_t(m), std::size_t(c), std::size_t(i), std::size_t(j)});
          }
          product(kG, g, gt);
          product(gt, G_T, u);
          for (int i = 0; i < 4; ++i) {
            for (int j = 0; j < 4; ++j) acc[m][i][j] += u[i][j] * v[i][j];
          }
        }
      }
      for (int m = 0; m < M; ++m) {
        float t[2][4], out[2][2];
        product(kAT, acc[m], t);
        product(t, AT_T, out);
        for (int i = 0; i < 2; ++i) {
          for (int j = 0; j < 2; ++j) y.at({0, std::size_t(m), std::size_t(2 * ty + i), std::size_t(2 * tx + j)}) = out[i][j];
        }
      }
    }
  }
  return y;
}

/// The same layer as one float32 sum per output, in the lecture's loop order (lab 01's).
Tensor<float> direct_float32(const Tensor<float>& x, const Tensor<float>& w) {
  Tensor<float> y({1, M, H, W});
  for (int m = 0; m < M; ++m) {
    for (int oy = 0; oy < H; ++oy) {
      for (int ox = 0; ox < W; ++ox) {
        float s = 0;
        for (int c = 0; c < C; ++c) {
          for (int i = 0; i < K; ++i) {
            for (int j = 0; j < K; ++j) {
              const int yy = oy - P + i, xx = ox - P + j;
              if (yy < 0 || yy >= H || xx < 0 || xx >= W) continue;
              s += x.at({0, std::size_t(c), std::size_t(yy), std::size_t(xx)}) *
                   w.at({std::size_t(m), std::size_t(c), std::size_t(i), std::size_t(j)});
            }
          }
        }
        y.at({0, std::size_t(m), std::size_t(oy), std::size_t(ox)}) = s;
      }
    }
  }
  return y;
}

/// The layer's X and W as the datasets draw them (datagen.hpp); `wide`: times 2^13 in every
/// fourth input column (x % 4 == 2) and in each filter's left tap column, times 2^-10 elsewhere.
struct Layer {
  Tensor<float> x, w;
};
Layer make_layer(bool wide, std::uint64_t seed) {
  ConvLayerCase c = generate_case(ConvLayerSpec{"winograd", {1, C, M, H, W, K, 1, P, 1}, seed, ""}, false);
  if (wide) {
    for (std::size_t i = 0; i < c.x.size(); ++i) c.x.values()[i] *= i % W % 4 == 2 ? 0x1p13f : 0x1p-10f;
    for (std::size_t i = 0; i < c.w.size(); ++i) c.w.values()[i] *= i % K == 0 ? 0x1p13f : 0x1p-10f;
  }
  return {std::move(c.x), std::move(c.w)};
}

CompareResult fp32_rule(const Tensor<float>& got, const Layer& l) {
  const ConvLayerParams p{1, P, 1};
  return compare_outputs(got, conv_layer_reference(l.x, l.w, p), conv_layer_abs_sum(l.x, l.w, p),
                         static_cast<std::size_t>(C) * K * K, Tolerance::fp32());
}

}  // namespace

TEST_CASE("a float32 Winograd F(2x2,3x3) keeps the FP32 rule on the datasets' uniform values", "[tolerance][winograd]") {
  const Layer l = make_layer(false, 21);
  const CompareResult winograd = fp32_rule(winograd_f2x2_3x3(l.x, l.w), l);
  INFO(winograd.summary());
  CHECK(winograd.ok());
  CHECK(winograd.worst_error_ratio < 0.1);
  CHECK(fp32_rule(direct_float32(l.x, l.w), l).ok());
}

TEST_CASE("a float32 Winograd F(2x2,3x3) breaks the FP32 rule on wide-range values where the float32 sum keeps it",
          "[tolerance][winograd]") {
  const Layer l = make_layer(true, 22);
  const CompareResult direct = fp32_rule(direct_float32(l.x, l.w), l);
  INFO("direct: " << direct.summary());
  CHECK(direct.ok());
  CHECK(direct.worst_error_ratio < 0.5);
  const CompareResult winograd = fp32_rule(winograd_f2x2_3x3(l.x, l.w), l);
  INFO("Winograd: " << winograd.summary());
  CHECK(winograd.bad * 5 > winograd.elements);  // more than a fifth of the outputs
  CHECK(winograd.worst_error_ratio > 1000);     // by three orders of magnitude and more
}
