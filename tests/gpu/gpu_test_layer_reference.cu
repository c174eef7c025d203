// The conv-layer benchmark's float64 reference (grader/bench/layer_reference.cuh) against the CPU
// reference that the grader's datasets use (common/src/reference.cpp), on layers that reach every
// edge of its indexing.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "convlab/device_buffer.cuh"
#include "convlab/reference.hpp"
#include "layer_reference.cuh"

using namespace convlab;

TEST_CASE("gpu bench: the layer benchmark's float64 reference and its S equal the CPU reference's on ragged layers",
          "[gpu][bench]") {
  struct Case {
    int B, C, M, H, W, K, S, P, D;
  };
  // Positions past a block's 512 (Ho·Wo = 900), filters past a group of 8 (M = 13), stride,
  // padding and dilation, a 1 × 1 layer, an even mask.
  for (const Case& c : {Case{2, 3, 13, 30, 30, 3, 1, 1, 1}, Case{3, 5, 8, 17, 23, 5, 2, 2, 1},
                        Case{1, 4, 9, 20, 19, 3, 1, 4, 3}, Case{4, 7, 17, 6, 5, 1, 1, 0, 1},
                        Case{2, 2, 3, 11, 12, 4, 1, 2, 1}}) {
    const ConvLayerParams params{c.S, c.P, c.D};
    std::mt19937 rng(c.B * 1000 + c.M);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    Tensor<float> x({std::size_t(c.B), std::size_t(c.C), std::size_t(c.H), std::size_t(c.W)});
    Tensor<float> w({std::size_t(c.M), std::size_t(c.C), std::size_t(c.K), std::size_t(c.K)});
    for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = u(rng);
    for (std::size_t i = 0; i < w.size(); ++i) w.data()[i] = u(rng);
    const ConvLayerShape shape = conv_layer_shape(x, w, params);
    INFO(shape.describe());
    const Tensor<double> want = conv_layer_reference(x, w, params), want_s = conv_layer_abs_sum(x, w, params);

    DeviceBuffer<float> dx(x.size()), dw(w.size());
    dx.upload(x.data());
    dw.upload(w.data());
    DeviceBuffer<double> ref(shape.output_elements()), s(shape.output_elements());
    ref.fill_bytes(0xFF);  // NaN: an output the kernel does not write fails below
    s.fill_bytes(0xFF);
    bench::layer_reference(shape, dx.data(), dw.data(), ref.data(), s.data());
    std::vector<double> got(shape.output_elements()), got_s(shape.output_elements());
    ref.download(got.data());
    s.download(got_s.data());
    CHECK(ref.check_guards().clean());
    CHECK(s.check_guards().clean());

    // Both sum in double in the same order (channel, row, column of the mask): any difference is
    // a few units of 2^-53 of S, where a wrong index is a whole term.
    std::size_t wrong = 0, wrong_s = 0;
    for (std::size_t o = 0; o < got.size(); ++o) {
      wrong += !(std::fabs(got[o] - want.data()[o]) <= 1e-13 * want_s.data()[o] + 1e-300);
      wrong_s += !(std::fabs(got_s[o] - want_s.data()[o]) <= 1e-13 * want_s.data()[o] + 1e-300);
    }
    CHECK(wrong == 0);
    CHECK(wrong_s == 0);
  }
}
