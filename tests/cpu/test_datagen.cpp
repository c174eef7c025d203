// The generator: same seed, same bytes; the committed public set is exactly what it makes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <random>
#include <set>

#include "convlab/datagen.hpp"
#include "convlab/lab06_config.hpp"

using namespace convlab;
namespace fs = std::filesystem;

namespace {

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::vector<fs::path> files_under(const fs::path& root) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) files.push_back(fs::relative(e.path(), root));
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("datagen: same seed gives the same values, another seed other values", "[datagen]") {
  const Conv2dSpec spec{"k5_17x19", {17, 19, 5}, 1234, ""};
  const Conv2dCase a = generate_case(spec);
  const Conv2dCase b = generate_case(spec);
  CHECK(a.image.values() == b.image.values());
  CHECK(a.mask.values() == b.mask.values());
  Conv2dSpec other = spec;
  other.seed = 1235;
  CHECK(generate_case(other).image.values() != a.image.values());
}

TEST_CASE("datagen: values are random, between -1 and 1, and not uniform", "[datagen]") {
  const Conv2dCase c = generate_case(Conv2dSpec{"k7_64x64", {64, 64, 7}, 99, ""});
  std::set<float> distinct(c.mask.values().begin(), c.mask.values().end());
  CHECK(distinct.size() == 49);  // a non-uniform mask: no two taps alike
  const auto [lo, hi] = std::minmax_element(c.image.values().begin(), c.image.values().end());
  CHECK(*lo >= -1.0f);
  CHECK(*hi < 1.0f);
  CHECK(*lo < -0.9f);
  CHECK(*hi > 0.9f);
}

TEST_CASE("datagen: the first values of a seed are fixed forever", "[datagen]") {
  // Pinned from std::mt19937_64(7): if this changes, every committed case changes.
  const Conv2dCase c = generate_case(Conv2dSpec{"k1_1x2", {1, 2, 1}, 7, ""});
  std::mt19937_64 rng(7);
  for (float v : c.image.values()) {
    const double expect = static_cast<double>(rng() >> 40) * 0x1p-23 - 1.0;
    CHECK(v == static_cast<float>(expect));
  }
}

TEST_CASE("datagen: the committed public set is byte-identical to a regeneration", "[datagen]") {
  const fs::path tmp = fs::temp_directory_path() / "convlab-test-datagen";
  fs::remove_all(tmp);
  const int n = write_public_datasets(tmp);
  const fs::path committed = fs::path(CONVLAB_SOURCE_DIR) / "datasets";
  std::vector<fs::path> want = files_under(tmp);
  std::vector<fs::path> have;
  for (const fs::path& f : files_under(committed))
    if (f.begin()->string() == "conv2d" || f.begin()->string() == "conv_layer") have.push_back(f);
  CHECK(n >= 30);
  REQUIRE(have == want);
  for (const fs::path& f : want) {
    INFO(f.string());
    CHECK(bytes_of(tmp / f) == bytes_of(committed / f));
  }
}

TEST_CASE("datagen: random sets respect their ranges and are reproducible", "[datagen]") {
  const auto a = random_conv2d_specs(5, 40, 50, MaskWidths::of({3, 5}));
  const auto b = random_conv2d_specs(5, 40, 50, MaskWidths::of({3, 5}));
  REQUIRE(a.size() == 40);
  std::set<std::string> names;
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].name == b[i].name);
    CHECK(a[i].seed == b[i].seed);
    CHECK(a[i].shape.height >= 1);
    CHECK(a[i].shape.height <= 50);
    CHECK((a[i].shape.mask_width == 3 || a[i].shape.mask_width == 5));
    names.insert(a[i].name);
  }
  CHECK(names.size() == 40);
  for (const ConvLayerSpec& s : random_conv_layer_specs(3, 25)) CHECK_NOTHROW(s.shape.validate());
}

TEST_CASE("datagen: the bench layers are conv_layer_bench's four layers, valid, named by their shape, one seed each",
          "[datagen][lab06]") {
  const std::vector<ConvLayerSpec> specs = bench_conv_layer_specs(40);
  const std::vector<lab06::BenchLayer> layers = lab06::bench_layers();
  REQUIRE(specs.size() == layers.size());
  REQUIRE(specs.size() == 4);
  std::set<std::uint64_t> seeds;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    INFO(specs[i].name);
    CHECK(specs[i].shape.describe() == layers[i].shape.describe());
    CHECK_NOTHROW(specs[i].shape.validate());
    CHECK(specs[i].name.rfind("bench_b", 0) == 0);
    CHECK(specs[i].description.find(layers[i].name) != std::string::npos);
    seeds.insert(specs[i].seed);
  }
  CHECK(seeds == std::set<std::uint64_t>{40, 41, 42, 43});
  CHECK(specs[1].name == "bench_b32_c256_m256_14x14_k3_s1_p1_d1");  // the split-K layer
}
