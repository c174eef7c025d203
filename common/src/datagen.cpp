// Seeded dataset generation. Same seed, same bytes: std::mt19937_64's sequence is fixed by the
// C++ standard, and the float mapping below is ours, not the library's.
#include "convlab/datagen.hpp"

#include <fmt/format.h>

#include <random>
#include <stdexcept>

#include "convlab/lab06_config.hpp"

namespace convlab {
namespace {

// Uniform in [-1, 1) with 24 random bits: exactly representable in float32.
float next_value(std::mt19937_64& rng) {
  const std::uint64_t bits = rng() >> 40;                            // 24 bits
  return static_cast<float>(static_cast<double>(bits) * 0x1p-23 - 1.0);  // k·2^-23 - 1
}

Tensor<float> random_tensor(std::mt19937_64& rng, std::vector<std::size_t> shape) {
  Tensor<float> t(std::move(shape));
  for (float& v : t.values()) v = next_value(rng);
  return t;
}

int uniform_int(std::mt19937_64& rng, int lo, int hi) {  // inclusive, bias irrelevant here
  return lo + static_cast<int>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
}

Conv2dSpec c2(int h, int w, int k, std::uint64_t seed, std::string why) {
  return {fmt::format("k{}_{}x{}", k, h, w), {h, w, k}, seed, std::move(why)};
}

ConvLayerSpec cl(int b, int c, int m, int h, int w, int k, int s, int p, int d, std::uint64_t seed,
                 std::string why) {
  ConvLayerShape shape{b, c, m, h, w, k, s, p, d};
  return {fmt::format("b{}_c{}_m{}_{}x{}_k{}_s{}_p{}_d{}", b, c, m, h, w, k, s, p, d), shape, seed,
          std::move(why)};
}

}  // namespace

Conv2dCase generate_case(const Conv2dSpec& spec, bool with_expected) {
  spec.shape.validate();
  std::mt19937_64 rng(spec.seed);
  Conv2dCase c;
  c.info.name = spec.name;
  c.info.problem = Problem::conv2d;
  c.info.conv2d = spec.shape;
  c.info.seed = spec.seed;
  c.info.description = spec.description;
  const auto H = static_cast<std::size_t>(spec.shape.height);
  const auto W = static_cast<std::size_t>(spec.shape.width);
  const auto K = static_cast<std::size_t>(spec.shape.mask_width);
  c.image = random_tensor(rng, {H, W});
  c.mask = random_tensor(rng, {K, K});
  if (with_expected) c.expected = conv2d_reference(c.image, c.mask);
  return c;
}

ConvLayerCase generate_case(const ConvLayerSpec& spec, bool with_expected) {
  spec.shape.validate();
  const ConvLayerShape& s = spec.shape;
  std::mt19937_64 rng(spec.seed);
  ConvLayerCase c;
  c.info.name = spec.name;
  c.info.problem = Problem::conv_layer;
  c.info.layer = s;
  c.info.seed = spec.seed;
  c.info.description = spec.description;
  auto z = [](int v) { return static_cast<std::size_t>(v); };
  c.x = random_tensor(rng, {z(s.batch), z(s.channels), z(s.height), z(s.width)});
  c.w = random_tensor(rng, {z(s.filters), z(s.channels), z(s.mask_width), z(s.mask_width)});
  if (with_expected) c.expected = conv_layer_reference(c.x, c.w, c.params());
  return c;
}

std::vector<Conv2dSpec> public_conv2d_specs() {
  // Seeds are arbitrary but fixed: changing one changes the committed bytes.
  return {
      c2(1, 1, 1, 101, "1x1 image, 1x1 mask: P = N*M"),
      c2(1, 1, 3, 102, "1x1 image, mask larger than the image: only the centre tap is inside"),
      c2(1, 1, 17, 103, "1x1 image, the largest mask"),
      c2(1, 29, 5, 104, "a single row: every output has ghost rows above and below"),
      c2(31, 1, 5, 105, "a single column"),
      c2(2, 3, 5, 106, "image smaller than the mask"),
      c2(5, 5, 17, 107, "image much smaller than the largest mask"),
      c2(7, 7, 3, 108, "small, every output near a border"),
      c2(31, 37, 3, 109, "prime width and height"),
      c2(37, 53, 5, 110, "prime sizes, not a multiple of any tile"),
      c2(61, 67, 7, 111, "prime sizes"),
      c2(97, 101, 9, 112, "prime sizes"),
      c2(33, 65, 5, 113, "one more than a multiple of 32 and 64"),
      c2(100, 100, 11, 114, "not a multiple of a power of two"),
      c2(127, 129, 13, 115, "one less / one more than a power of two"),
      c2(130, 257, 15, 116, "wide, odd"),
      c2(64, 64, 17, 117, "a multiple of the tiles, largest mask"),
      c2(256, 263, 3, 118, "the largest public case: several blocks in each direction"),
      c2(200, 151, 5, 119, "tall, odd width"),
      c2(96, 96, 1, 120, "K=1: a pointwise scaling"),
      // Even masks (lab 07 only): r = (K-1)/2, PyTorch's padding='same' placement.
      c2(1, 1, 2, 130, "even mask on a 1x1 image"),
      c2(64, 71, 2, 131, "even mask, the paper's 2x2"),
      c2(53, 47, 4, 132, "even mask 4x4"),
      c2(40, 41, 6, 133, "even mask 6x6"),
  };
}

std::vector<ConvLayerSpec> public_conv_layer_specs() {
  return {
      cl(1, 1, 1, 7, 7, 3, 1, 1, 1, 201, "one channel, padding 1: the conv2d of a 7x7 image"),
      cl(2, 3, 4, 9, 11, 3, 1, 1, 1, 202, "RGB-like input, several filters, padding 1"),
      cl(1, 1, 8, 16, 16, 1, 1, 0, 1, 203, "1x1 convolution, one channel"),
      cl(2, 16, 8, 13, 13, 1, 2, 0, 1, 204, "1x1 convolution with stride 2"),
      cl(1, 3, 16, 32, 32, 7, 2, 3, 1, 205, "7x7 stride 2 padding 3: a ResNet stem in small"),
      cl(3, 8, 5, 17, 19, 3, 1, 2, 2, 206, "dilation 2, padding 2"),
      cl(2, 5, 7, 23, 21, 5, 3, 1, 1, 207, "stride 3, odd sizes"),
      cl(1, 32, 32, 14, 14, 3, 1, 1, 1, 208, "many channels"),
      cl(4, 4, 4, 8, 8, 2, 2, 0, 1, 209, "even mask, stride 2"),
      cl(1, 2, 3, 5, 5, 3, 1, 0, 2, 210, "dilation 2, no padding: a 1x1 output"),
      cl(2, 64, 1, 6, 6, 3, 1, 1, 1, 211, "many channels, one filter"),
  };
}

std::vector<Conv2dSpec> random_conv2d_specs(std::uint64_t seed, int count, int max_side, MaskWidths masks) {
  if (masks.empty()) throw std::invalid_argument("random_conv2d_specs: no mask width to draw from");
  const std::vector<int> mask_widths = masks.widths();
  std::mt19937_64 rng(seed);
  std::vector<Conv2dSpec> specs;
  for (int i = 0; i < count; ++i) {
    const int h = uniform_int(rng, 1, max_side);
    const int w = uniform_int(rng, 1, max_side);
    const int k = mask_widths.at(static_cast<std::size_t>(uniform_int(rng, 0, static_cast<int>(mask_widths.size()) - 1)));
    const std::uint64_t case_seed = rng();
    Conv2dSpec s = c2(h, w, k, case_seed, fmt::format("random case {} of set {}", i, seed));
    s.name = fmt::format("r{:03d}_{}", i, s.name);
    specs.push_back(s);
  }
  return specs;
}

std::vector<ConvLayerSpec> bench_conv_layer_specs(std::uint64_t seed) {
  std::vector<ConvLayerSpec> specs;
  for (const lab06::BenchLayer& l : lab06::bench_layers()) {
    const ConvLayerShape& s = l.shape;
    ConvLayerSpec spec = cl(s.batch, s.channels, s.filters, s.height, s.width, s.mask_width, s.stride, s.padding,
                            s.dilation, seed + specs.size(), fmt::format("conv_layer_bench's layer {}", l.name));
    spec.name = "bench_" + spec.name;
    specs.push_back(std::move(spec));
  }
  return specs;
}

std::vector<ConvLayerSpec> random_conv_layer_specs(std::uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  std::vector<ConvLayerSpec> specs;
  while (static_cast<int>(specs.size()) < count) {
    ConvLayerShape s;
    s.batch = uniform_int(rng, 1, 3);
    s.channels = uniform_int(rng, 1, 24);
    s.filters = uniform_int(rng, 1, 24);
    s.height = uniform_int(rng, 1, 40);
    s.width = uniform_int(rng, 1, 40);
    s.mask_width = std::vector<int>{1, 2, 3, 3, 5, 7}[static_cast<std::size_t>(uniform_int(rng, 0, 5))];
    s.stride = uniform_int(rng, 1, 3);
    s.padding = uniform_int(rng, 0, 3);
    s.dilation = uniform_int(rng, 1, 2);
    const std::uint64_t case_seed = rng();
    try {
      s.validate();
    } catch (const std::invalid_argument&) {
      continue;  // the mask does not fit this input; draw again
    }
    ConvLayerSpec spec = cl(s.batch, s.channels, s.filters, s.height, s.width, s.mask_width, s.stride,
                            s.padding, s.dilation, case_seed, fmt::format("random case of set {}", seed));
    spec.name = fmt::format("r{:03d}_{}", specs.size(), spec.name);
    specs.push_back(spec);
  }
  return specs;
}

int write_public_datasets(const std::filesystem::path& root) {
  int n = 0;
  for (const Conv2dCase& c : hand_conv2d_cases()) write_case(root / "conv2d" / c.info.name, c), ++n;
  for (const ConvLayerCase& c : hand_conv_layer_cases()) write_case(root / "conv_layer" / c.info.name, c), ++n;
  for (const Conv2dSpec& s : public_conv2d_specs()) write_case(root / "conv2d" / s.name, generate_case(s)), ++n;
  for (const ConvLayerSpec& s : public_conv_layer_specs()) write_case(root / "conv_layer" / s.name, generate_case(s)), ++n;
  return n;
}

}  // namespace convlab
