// Small cases a reader verifies by hand. Several come from the seeds' worked examples; their
// expected outputs are recomputed by the reference here (tests/cpu/test_reference.cpp pins the
// hand-computed values), and where a seed printed a different value the description says so.
#include <fmt/format.h>

#include "convlab/datagen.hpp"

namespace convlab {
namespace {

Tensor<float> mat(std::size_t rows, std::size_t cols, std::vector<float> v) {
  return Tensor<float>({rows, cols}, std::move(v));
}

Conv2dCase conv2d_case(std::string name, std::string description, Tensor<float> image, Tensor<float> mask) {
  Conv2dCase c;
  c.info.name = std::move(name);
  c.info.problem = Problem::conv2d;
  c.info.conv2d = {static_cast<int>(image.dim(0)), static_cast<int>(image.dim(1)), static_cast<int>(mask.dim(0))};
  c.info.description = std::move(description);
  c.expected = conv2d_reference(image, mask);
  c.image = std::move(image);
  c.mask = std::move(mask);
  return c;
}

ConvLayerCase layer_case(std::string name, std::string description, Tensor<float> x, Tensor<float> w,
                         ConvLayerParams p) {
  ConvLayerCase c;
  c.info.name = std::move(name);
  c.info.problem = Problem::conv_layer;
  c.info.layer = conv_layer_shape(x, w, p);
  c.info.description = std::move(description);
  c.expected = conv_layer_reference(x, w, p);
  c.x = std::move(x);
  c.w = std::move(w);
  return c;
}

// The blog's 4×4 single-channel input, used by its stride and dilation examples.
Tensor<float> blog_input_4x4() {
  return Tensor<float>({1, 1, 4, 4}, {1, 2, 0, 1,  0, 1, 3, 2,  1, 2, 1, 0,  2, 1, 0, 1});
}
Tensor<float> blog_filter_2x2() { return Tensor<float>({1, 1, 2, 2}, {1, 0, 1, 1}); }

}  // namespace

std::vector<Conv2dCase> hand_conv2d_cases() {
  std::vector<Conv2dCase> cases;
  // The talk's example: P[1][1] = 34 (its 3×3 window times the mask: 3+6+3+4+5+4+4+2+3).
  cases.push_back(conv2d_case(
      "hand_talk_4x4_k3",
      "GTC talk example: 4x4 image, 3x3 mask; P[1][1] = 34 as the talk shows, P[0][0] = 28 with ghosts",
      mat(4, 4, {1, 2, 3, 1, 4, 5, 2, 3, 4, 1, 1, 5, 1, 2, 5, 2}),
      mat(3, 3, {3, 3, 1, 1, 1, 2, 1, 2, 3})));
  cases.push_back(conv2d_case(
      "hand_even_3x3_k2",
      "even mask: r = (2-1)/2 = 0, so P[i][j] = sum N[i+p][j+q] M[p][q]; P[0][0] = 37, P[2][2] = 9",
      mat(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9}), mat(2, 2, {1, 2, 3, 4})));
  cases.push_back(conv2d_case(
      "hand_identity_5x4_k3",
      "a mask with 1 at its centre copies the image: P = N",
      mat(5, 4, {1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12, 13, -14, 15, -16, 17, -18, 19, -20}),
      mat(3, 3, {0, 0, 0, 0, 1, 0, 0, 0, 0})));
  cases.push_back(conv2d_case(
      "hand_box_3x3_k3",
      "a box mask of ones sums each 3x3 window: corners add 4 pixels, edges 6, the centre 9",
      mat(3, 3, {1, 1, 1, 1, 1, 1, 1, 1, 1}), mat(3, 3, {1, 1, 1, 1, 1, 1, 1, 1, 1})));
  return cases;
}

std::vector<ConvLayerCase> hand_conv_layer_cases() {
  std::vector<ConvLayerCase> cases;
  cases.push_back(layer_case(
      "hand_blog_4ch_k2",
      "blog's 4-channel 4x4 input and 2x2 filter: the exact output is [[10,9,8],[5,7,11],[8,8,6]]; "
      "the blog printed [[8,7,6],[5,8,9],[7,5,4]] (its term-by-term sum pairs the wrong elements)",
      Tensor<float>({1, 4, 4, 4},
                    {1, 2, 0, 1, 0, 1, 3, 2, 1, 2, 1, 0, 2, 1, 0, 1,     // channel 1
                     1, 0, 1, 2, 2, 1, 0, 1, 0, 1, 2, 0, 2, 0, 1, 1,     // channel 2
                     0, 1, 2, 1, 1, 2, 0, 1, 1, 1, 0, 2, 2, 0, 1, 0,     // channel 3
                     1, 2, 1, 0, 2, 0, 1, 1, 0, 1, 2, 2, 1, 0, 1, 1}),   // channel 4
      Tensor<float>({1, 4, 2, 2}, {1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0}), {1, 0, 1}));
  cases.push_back(layer_case(
      "hand_blog_stride2",
      "blog's stride-2 example: exact output [[2,5],[4,2]]; the blog printed [[7,6],[6,3]]",
      blog_input_4x4(), blog_filter_2x2(), {2, 0, 1}));
  cases.push_back(layer_case(
      "hand_blog_dilation2",
      "blog's dilation-2 example: exact output [[3,4],[2,3]]; the blog printed [[4,2],[3,4]]",
      blog_input_4x4(), blog_filter_2x2(), {1, 0, 2}));
  cases.push_back(layer_case(
      "hand_blog_pad1_dil2_5x5",
      "blog's padding 1, dilation 2 example: Ho = (5+2-2-1)/1+1 = 5, so the output is 5x5, not the "
      "3x3 the blog printed; centre value Y[2][2] = X[1][1]+X[3][3] = 7+9 = 16",
      Tensor<float>({1, 1, 5, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5}),
      Tensor<float>({1, 1, 2, 2}, {1, 0, 0, 1}), {1, 1, 2}));
  // Not a case: the blog's padding-1, stride-2 example (section 2.4.3) prints a 3x3 output but
  // never gives its filter, so the output cannot be recomputed (docs/sources.md, Errata).
  cases.push_back(layer_case(
      "hand_lecture_unroll_c3_k2",
      "conv-layer lecture's unrolling example: 3 channels of 3x3, K=2, Hout=Wout=2; two filters",
      Tensor<float>({1, 3, 3, 3}, {1, 2, 0, 1, 1, 3, 0, 2, 2,  0, 2, 1, 0, 3, 2, 1, 1, 0,  1, 2, 1, 2, 1, 0, 3, 1, 1}),
      Tensor<float>({2, 3, 2, 2}, {1, 1, 2, 2, 1, 1, 1, 1, 0, 1, 1, 0,  1, 0, 0, 1, 2, 1, 2, 1, 1, 2, 1, 2}),
      {1, 0, 1}));
  return cases;
}

}  // namespace convlab
