// The CPU references against values computed by hand, and against each other.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string_view>

#include "convlab/datagen.hpp"
#include "convlab/reference.hpp"

using namespace convlab;

namespace {

Tensor<float> mat(std::size_t r, std::size_t c, std::vector<float> v) { return Tensor<float>({r, c}, std::move(v)); }

const Conv2dCase& hand_case(std::string_view name) {
  static const std::vector<Conv2dCase> cases = hand_conv2d_cases();
  for (const auto& c : cases) if (c.info.name == name) return c;
  FAIL("no hand case " << name);
  throw;
}

const ConvLayerCase& hand_layer(std::string_view name) {
  static const std::vector<ConvLayerCase> cases = hand_conv_layer_cases();
  for (const auto& c : cases) if (c.info.name == name) return c;
  FAIL("no hand case " << name);
  throw;
}

Tensor<float> random_tensor(std::vector<std::size_t> shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  Tensor<float> t(std::move(shape));
  for (float& v : t.values()) v = d(rng);
  return t;
}

}  // namespace

TEST_CASE("conv2d reference: the talk's 4x4 example, by hand", "[reference]") {
  const Conv2dCase& c = hand_case("hand_talk_4x4_k3");
  const Tensor<double> P = conv2d_reference(c.image, c.mask);
  // Interior: the talk's 3+6+3+4+5+4+4+2+3.
  CHECK(P.at({1, 1}) == 34);
  // All nine taps inside: rows 1..3, cols 0..2 → (12+15+2) + (4+1+2) + (1+4+15).
  CHECK(P.at({2, 1}) == 56);
  // Corners: only four taps inside the image, the rest are ghost cells.
  CHECK(P.at({0, 0}) == 1 * 1 + 2 * 2 + 4 * 2 + 5 * 3);  // 28
  CHECK(P.at({0, 3}) == 3 * 1 + 1 * 1 + 2 * 1 + 3 * 2);  // 12
  CHECK(P.at({3, 3}) == 1 * 3 + 5 * 3 + 5 * 1 + 2 * 1);  // 25
}

TEST_CASE("conv2d reference: even mask uses r = (K-1)/2 (PyTorch 'same')", "[reference]") {
  const Tensor<double> P = conv2d_reference(mat(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9}), mat(2, 2, {1, 2, 3, 4}));
  CHECK(P.at({0, 0}) == 1 * 1 + 2 * 2 + 4 * 3 + 5 * 4);  // 37
  CHECK(P.at({1, 1}) == 5 * 1 + 6 * 2 + 8 * 3 + 9 * 4);  // 77
  CHECK(P.at({0, 2}) == 3 * 1 + 6 * 3);                  // 21: right column is ghost
  CHECK(P.at({2, 2}) == 9);                              // only the anchor tap is inside
}

TEST_CASE("conv2d reference: identity, box, K=1 and a mask larger than the image", "[reference]") {
  const Conv2dCase& id = hand_case("hand_identity_5x4_k3");
  const Tensor<double> P = conv2d_reference(id.image, id.mask);
  for (std::size_t i = 0; i < P.size(); ++i) CHECK(P.data()[i] == id.image.data()[i]);

  const Tensor<double> box = conv2d_reference(mat(3, 3, std::vector<float>(9, 1.f)), mat(3, 3, std::vector<float>(9, 1.f)));
  CHECK(box.at({0, 0}) == 4);
  CHECK(box.at({0, 1}) == 6);
  CHECK(box.at({1, 1}) == 9);

  const Tensor<double> k1 = conv2d_reference(mat(2, 2, {1, -2, 3, 4}), mat(1, 1, {0.5f}));
  CHECK(k1.at({1, 0}) == 1.5);
  CHECK(k1.at({0, 1}) == -1);

  const Tensor<double> tiny = conv2d_reference(mat(1, 1, {3}), mat(3, 3, {9, 9, 9, 9, 2, 9, 9, 9, 9}));
  CHECK(tiny.at({0, 0}) == 6);  // only M[1][1] meets the single pixel
}

TEST_CASE("conv2d reference: rejects malformed operands", "[reference]") {
  CHECK_THROWS_WITH(conv2d_reference(Tensor<float>({2, 2, 2}), mat(3, 3, std::vector<float>(9))),
                    Catch::Contains("image must be 2-D"));
  CHECK_THROWS_WITH(conv2d_reference(mat(2, 2, {1, 2, 3, 4}), Tensor<float>({2, 3})),
                    Catch::Contains("mask must be square"));
}

TEST_CASE("conv2d equals a one-channel conv layer with the right padding", "[reference]") {
  for (int K : {1, 3, 5, 7, 17}) {
    const Tensor<float> img = random_tensor({13, 9}, 1000 + K);
    const Tensor<float> msk = random_tensor({static_cast<std::size_t>(K), static_cast<std::size_t>(K)}, 2000 + K);
    const Tensor<double> P = conv2d_reference(img, msk);
    const Tensor<float> x({1, 1, 13, 9}, img.values());
    const Tensor<float> w({1, 1, static_cast<std::size_t>(K), static_cast<std::size_t>(K)}, msk.values());
    const Tensor<double> Y = conv_layer_reference(x, w, {1, (K - 1) / 2, 1});
    REQUIRE(Y.shape() == std::vector<std::size_t>{1, 1, 13, 9});
    for (std::size_t i = 0; i < P.size(); ++i) CHECK(Y.data()[i] == Approx(P.data()[i]).margin(1e-12));
  }
  // Even K: symmetric padding K/2 gives one extra row and column; conv2d is its lower-right
  // H×W block, since PyTorch's 'same' pads r=(K-1)/2 before and K-1-r after.
  for (int K : {2, 4, 6}) {
    const Tensor<float> img = random_tensor({7, 10}, 3000 + K);
    const Tensor<float> msk = random_tensor({static_cast<std::size_t>(K), static_cast<std::size_t>(K)}, 4000 + K);
    const Tensor<double> P = conv2d_reference(img, msk);
    const Tensor<double> Y = conv_layer_reference(Tensor<float>({1, 1, 7, 10}, img.values()),
                                                  Tensor<float>({1, 1, static_cast<std::size_t>(K), static_cast<std::size_t>(K)}, msk.values()),
                                                  {1, K / 2, 1});
    REQUIRE(Y.shape() == std::vector<std::size_t>{1, 1, 8, 11});
    for (std::size_t i = 0; i < 7; ++i)
      for (std::size_t j = 0; j < 10; ++j) CHECK(Y.at({0, 0, i + 1, j + 1}) == Approx(P.at({i, j})).margin(1e-12));
  }
}

TEST_CASE("conv layer: each output map is the sum over channels of conv2d", "[reference]") {
  const Tensor<float> x = random_tensor({2, 3, 8, 11}, 7);
  const Tensor<float> w = random_tensor({4, 3, 5, 5}, 8);
  const Tensor<double> Y = conv_layer_reference(x, w, {1, 2, 1});
  for (std::size_t b = 0; b < 2; ++b) {
    for (std::size_t m = 0; m < 4; ++m) {
      Tensor<double> sum({8, 11});
      for (std::size_t c = 0; c < 3; ++c) {
        Tensor<float> img({8, 11});
        Tensor<float> msk({5, 5});
        for (std::size_t i = 0; i < 88; ++i) img.data()[i] = x.data()[(b * 3 + c) * 88 + i];
        for (std::size_t i = 0; i < 25; ++i) msk.data()[i] = w.data()[(m * 3 + c) * 25 + i];
        const Tensor<double> P = conv2d_reference(img, msk);
        for (std::size_t i = 0; i < 88; ++i) sum.data()[i] += P.data()[i];
      }
      for (std::size_t i = 0; i < 88; ++i) CHECK(Y.data()[(b * 4 + m) * 88 + i] == Approx(sum.data()[i]).margin(1e-12));
    }
  }
}

TEST_CASE("conv layer: the blog's worked examples, recomputed by hand", "[reference]") {
  auto values = [](const Tensor<double>& t) { return std::vector<double>(t.values().begin(), t.values().end()); };
  // 4 channels, 2x2 filter (the blog printed 8,7,6 / 5,8,9 / 7,5,4).
  const ConvLayerCase& four = hand_layer("hand_blog_4ch_k2");
  CHECK(values(conv_layer_reference(four.x, four.w, four.params())) == std::vector<double>{10, 9, 8, 5, 7, 11, 8, 8, 6});
  // Stride 2: windows at (0,0), (0,2), (2,0), (2,2) of [[1,0],[1,1]].
  const ConvLayerCase& s2 = hand_layer("hand_blog_stride2");
  CHECK(values(conv_layer_reference(s2.x, s2.w, s2.params())) == std::vector<double>{2, 5, 4, 2});
  // Dilation 2: taps (0,0), (2,0), (2,2) of each 3x3 window.
  const ConvLayerCase& d2 = hand_layer("hand_blog_dilation2");
  CHECK(values(conv_layer_reference(d2.x, d2.w, d2.params())) == std::vector<double>{3, 4, 2, 3});
  // Padding 1, dilation 2 on 5x5: Ho = (5 + 2 - 2 - 1)/1 + 1 = 5.
  const ConvLayerCase& pd = hand_layer("hand_blog_pad1_dil2_5x5");
  const Tensor<double> Y = conv_layer_reference(pd.x, pd.w, pd.params());
  REQUIRE(Y.shape() == std::vector<std::size_t>{1, 1, 5, 5});
  CHECK(Y.at({0, 0, 2, 2}) == 7 + 9);
  CHECK(Y.at({0, 0, 0, 0}) == 7);  // X[-1][-1] is a ghost; X[1][1] = 7
  CHECK(Y.at({0, 0, 4, 4}) == 9);  // tap (0,0) is X[3][3] = 9; tap (1,1) is X[5][5], a ghost
}

TEST_CASE("conv layer: shape errors name the problem", "[reference]") {
  CHECK_THROWS_WITH(conv_layer_reference(Tensor<float>({1, 2, 4, 4}), Tensor<float>({1, 3, 3, 3}), {}),
                    Catch::Contains("X has 2 channels but W has 3"));
  CHECK_THROWS_WITH(conv_layer_reference(Tensor<float>({1, 1, 2, 2}), Tensor<float>({1, 1, 5, 5}), {}),
                    Catch::Contains("does not fit"));
  CHECK_THROWS_WITH(conv_layer_reference(Tensor<float>({1, 1, 4, 4}), Tensor<float>({1, 1, 3, 3}), {0, 0, 1}),
                    Catch::Contains("stride"));
}

TEST_CASE("abs_sum is the reference of the magnitudes", "[reference]") {
  const Tensor<float> img = random_tensor({6, 7}, 11);
  const Tensor<float> msk = random_tensor({3, 3}, 12);
  Tensor<float> aimg = img, amsk = msk;
  for (float& v : aimg.values()) v = std::fabs(v);
  for (float& v : amsk.values()) v = std::fabs(v);
  const Tensor<double> S = conv2d_abs_sum(img, msk);
  const Tensor<double> R = conv2d_reference(aimg, amsk);
  const Tensor<double> P = conv2d_reference(img, msk);
  for (std::size_t i = 0; i < S.size(); ++i) {
    CHECK(S.data()[i] == Approx(R.data()[i]).margin(1e-12));
    CHECK(S.data()[i] >= std::fabs(P.data()[i]) - 1e-12);
  }
}
