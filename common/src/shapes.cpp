#include "convlab/shapes.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace convlab {

namespace {

void in_range(const char* problem, const char* name, long long v, long long lo, long long hi) {
  if (v < lo) throw std::invalid_argument(fmt::format("{}: {} {} < {}", problem, name, v, lo));
  if (v > hi) {
    throw std::invalid_argument(fmt::format("{}: {} {} is above the limit of {}", problem, name, v, hi));
  }
}

void elements_within(const char* problem, const char* what, std::initializer_list<std::uint64_t> dims,
                     const std::string& shape) {
  if (!product_within(dims, kMaxTensorElements)) {
    throw std::invalid_argument(fmt::format("{}: {} {} holds more than {} elements, the limit", problem, what, shape,
                                            kMaxTensorElements));
  }
}

// Ho or Wo in 64 bits: `(extent + 2P - D(K-1) - 1)/S + 1`, or a negative numerator's -1.
long long out_extent(long long extent, long long padding, long long dilation, long long k, long long stride) {
  const long long numerator = extent + 2 * padding - dilation * (k - 1) - 1;
  return numerator < 0 ? -1 : numerator / stride + 1;
}

}  // namespace

void Conv2dShape::validate() const {
  in_range("conv2d", "height", height, 1, kMaxExtent);
  in_range("conv2d", "width", width, 1, kMaxExtent);
  if (mask_width < 1 || mask_width > kMaxMaskWidth) {
    throw std::invalid_argument(
        fmt::format("conv2d: mask width {} outside 1..{}", mask_width, kMaxMaskWidth));
  }
  elements_within("conv2d", "the image", {std::uint64_t(height), std::uint64_t(width)},
                  fmt::format("{}x{}", height, width));
}

std::string Conv2dShape::describe() const {
  return fmt::format("{}x{} K={}", height, width, mask_width);
}

int ConvLayerShape::out_height() const {
  return static_cast<int>(out_extent(height, padding, dilation, mask_width, stride));
}

int ConvLayerShape::out_width() const {
  return static_cast<int>(out_extent(width, padding, dilation, mask_width, stride));
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
  const char* p = "conv layer";
  in_range(p, "batch", batch, 1, kMaxLayerCount);
  in_range(p, "channels", channels, 1, kMaxLayerCount);
  in_range(p, "filters", filters, 1, kMaxLayerCount);
  in_range(p, "height", height, 1, kMaxExtent);
  in_range(p, "width", width, 1, kMaxExtent);
  if (mask_width < 1) throw std::invalid_argument(fmt::format("conv layer: mask width {} < 1", mask_width));
  if (mask_width > kMaxMaskWidth) {
    throw std::invalid_argument(fmt::format("conv layer: mask width {} > {}", mask_width, kMaxMaskWidth));
  }
  in_range(p, "stride", stride, 1, kMaxLayerStep);
  in_range(p, "padding", padding, 0, kMaxLayerStep);
  in_range(p, "dilation", dilation, 1, kMaxLayerStep);
  // In 64 bits: with every field within its limit none of these can overflow.
  const long long extent = static_cast<long long>(dilation) * (mask_width - 1) + 1;
  const long long padded_h = static_cast<long long>(height) + 2LL * padding;
  const long long padded_w = static_cast<long long>(width) + 2LL * padding;
  if (padded_h < extent || padded_w < extent) {
    throw std::invalid_argument(fmt::format(
        "conv layer: the dilated {}x{} mask (extent {}) does not fit the padded {}x{} input", mask_width,
        mask_width, extent, padded_h, padded_w));
  }
  const auto u = [](long long v) { return static_cast<std::uint64_t>(v); };
  const long long ho = out_extent(height, padding, dilation, mask_width, stride);
  const long long wo = out_extent(width, padding, dilation, mask_width, stride);
  elements_within(p, "the input", {u(batch), u(channels), u(height), u(width)},
                  fmt::format("{}x{}x{}x{}", batch, channels, height, width));
  elements_within(p, "the weights", {u(filters), u(channels), u(mask_width), u(mask_width)},
                  fmt::format("{}x{}x{}x{}", filters, channels, mask_width, mask_width));
  elements_within(p, "the output", {u(batch), u(filters), u(ho), u(wo)},
                  fmt::format("{}x{}x{}x{}", batch, filters, ho, wo));
}

std::string ConvLayerShape::describe() const {
  return fmt::format("B{} C{}->{} {}x{} K{} S{} P{} D{}", batch, channels, filters, height, width,
                     mask_width, stride, padding, dilation);
}

}  // namespace convlab
