// A conv-layer or conv2d case run in process on the GPU, as the runner would run it: for the GPU
// tests that call a solution's launcher directly (tile plans and epilogues the runner never sees,
// lab 08's accuracy against the FP32 rule).
#pragma once

#include <catch2/catch.hpp>

#include <cstddef>

#include "convlab/dataset.hpp"
#include "convlab/device_buffer.cuh"
#include "convlab/lab_api.cuh"
#include "convlab/tensor.hpp"

namespace convlab::testing {

/// Uploads case `c`, runs `run(args)` on a NaN-filled output, checks the output's guard bands and
/// downloads it: Y [B][M][Ho][Wo].
template <class Run>
Tensor<float> run_conv_layer_on_device(const ConvLayerCase& c, Run run) {
  const ConvLayerShape& s = c.info.layer;
  DeviceBuffer<float> x(c.x.size()), w(c.w.size()), y(s.output_elements());
  x.upload(c.x.data());
  w.upload(c.w.data());
  y.fill_bytes(0xFF);
  run(ConvLayerArgs{x.data(), w.data(), y.data(), s});
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(y.check_guards().clean());
  auto z = [](int d) { return static_cast<std::size_t>(d); };
  Tensor<float> got({z(s.batch), z(s.filters), z(s.out_height()), z(s.out_width())});
  y.download(got.data());
  return got;
}

/// Uploads conv2d case `c`, runs `run(args)` on a NaN-filled output, checks the output's guard
/// bands and downloads it: P [H][W].
template <class Run>
Tensor<float> run_conv2d_on_device(const Conv2dCase& c, Run run) {
  const Conv2dShape& s = c.info.conv2d;
  DeviceBuffer<float> n(c.image.size()), m(c.mask.size()), p(s.pixels());
  n.upload(c.image.data());
  m.upload(c.mask.data());
  p.fill_bytes(0xFF);
  run(Conv2dArgs{n.data(), m.data(), p.data(), s.height, s.width, s.mask_width});
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(p.check_guards().clean());
  Tensor<float> got({static_cast<std::size_t>(s.height), static_cast<std::size_t>(s.width)});
  p.download(got.data());
  return got;
}

}  // namespace convlab::testing
