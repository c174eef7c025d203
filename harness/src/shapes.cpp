#include "convlab/shapes.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace convlab {

void Conv2dShape::validate() const {
  if (height < 1) throw std::invalid_argument(fmt::format("conv2d: height {} < 1", height));
  if (width < 1) throw std::invalid_argument(fmt::format("conv2d: width {} < 1", width));
  if (mask_width < 1 || mask_width > kMaxMaskWidth) {
    throw std::invalid_argument(
        fmt::format("conv2d: mask width {} outside 1..{}", mask_width, kMaxMaskWidth));
  }
}

std::string Conv2dShape::describe() const {
  return fmt::format("{}x{} K={}", height, width, mask_width);
}

int ConvLayerShape::out_height() const {
  return (height + 2 * padding - dilation * (mask_width - 1) - 1) / stride + 1;
}

int ConvLayerShape::out_width() const {
  return (width + 2 * padding - dilation * (mask_width - 1) - 1) / stride + 1;
}

std::size_t ConvLayerShape::terms_per_output() const {
  return static_cast<std::size_t>(channels) * mask_width * mask_width;
}

std::size_t ConvLayerShape::input_elements() const {
  return static_cast<std::size_t>(batch) * channels * height * width;
}

std::size_t ConvLayerShape::weight_elements() const {
  return static_cast<std::size_t>(filters) * channels * mask_width * mask_width;
}

std::size_t ConvLayerShape::output_elements() const {
  return static_cast<std::size_t>(batch) * filters * out_height() * out_width();
}

void ConvLayerShape::validate() const {
  auto positive = [](const char* name, int v) {
    if (v < 1) throw std::invalid_argument(fmt::format("conv layer: {} {} < 1", name, v));
  };
  positive("batch", batch);
  positive("channels", channels);
  positive("filters", filters);
  positive("height", height);
  positive("width", width);
  positive("mask width", mask_width);
  positive("stride", stride);
  positive("dilation", dilation);
  if (padding < 0) throw std::invalid_argument(fmt::format("conv layer: padding {} < 0", padding));
  if (mask_width > kMaxMaskWidth) {
    throw std::invalid_argument(
        fmt::format("conv layer: mask width {} > {}", mask_width, kMaxMaskWidth));
  }
  // The numerator of Ho can be negative; C++ division truncates toward zero, so test it
  // directly rather than trusting out_height() to come out < 1.
  if (height + 2 * padding - dilation * (mask_width - 1) - 1 < 0 ||
      width + 2 * padding - dilation * (mask_width - 1) - 1 < 0) {
    throw std::invalid_argument(fmt::format(
        "conv layer: the dilated {}x{} mask (extent {}) does not fit the padded {}x{} input",
        mask_width, mask_width, dilation * (mask_width - 1) + 1, height + 2 * padding,
        width + 2 * padding));
  }
}

std::string ConvLayerShape::describe() const {
  return fmt::format("B{} C{}->{} {}x{} K{} S{} P{} D{}", batch, channels, filters, height, width,
                     mask_width, stride, padding, dilation);
}

}  // namespace convlab
