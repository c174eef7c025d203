// Error maps: the exact colours of a synthetic mismatch, the tile grid, guard-band strips, the
// conv-layer slice, pooling of large outputs, and the PNG on disk.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#include "convlab/error_map.hpp"
#include "grader_test_support.hpp"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#pragma GCC diagnostic ignored "-Wold-style-cast"
#pragma GCC diagnostic ignored "-Wcast-qual"
#pragma GCC diagnostic ignored "-Wshadow"
#endif
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

using namespace convlab;
namespace colour = convlab::error_map_colour;

namespace {

float poison() {
  float f;
  std::uint32_t bits = kPoisonBits;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// A 6×8 output with one element of each failing class: out of tolerance at (1, 2), a computed
// infinity at (2, 5), the NaN poison at (4, 7); everything else exact.
struct Synthetic {
  Tensor<double> expected{{6, 8}};
  Tensor<double> abs_sum{{6, 8}};
  Tensor<float> got{{6, 8}};
  Synthetic() {
    for (std::size_t i = 0; i < got.size(); ++i) {
      expected.data()[i] = static_cast<double>(i);
      abs_sum.data()[i] = static_cast<double>(i) + 1;
      got.data()[i] = static_cast<float>(i);
    }
    got.data()[1 * 8 + 2] += 1.0f;
    got.data()[2 * 8 + 5] = std::numeric_limits<float>::infinity();
    got.data()[4 * 8 + 7] = poison();
  }
  [[nodiscard]] ErrorMapInput input() const {
    ErrorMapInput in = error_map_input(got.shape(), classify_outputs(got, expected, abs_sum, 9, Tolerance::fp32()), {});
    in.tiles = TileGrid{3, 4};
    return in;
  }
};

// The centre pixel of cell (row, col).
Rgb cell_centre(const RgbImage& img, const ErrorMapLayout& l, int row, int col) {
  return img.at(l.origin_x + col * l.cell + l.cell / 2, l.origin_y + row * l.cell + l.cell / 2);
}

}  // namespace

TEST_CASE("error map: each class of a synthetic mismatch is drawn in its own colour", "[error_map]") {
  const Synthetic s;
  const ErrorMapInput in = s.input();
  const RgbImage img = render_error_map(in);
  const ErrorMapLayout l = error_map_layout(in);
  REQUIRE(l.cell >= 8);  // a 6×8 output is scaled up so that it can be seen
  CHECK(cell_centre(img, l, 1, 2) == colour::kOutOfTolerance);
  CHECK(cell_centre(img, l, 2, 5) == colour::kNotFinite);
  CHECK(cell_centre(img, l, 4, 7) == colour::kUnwritten);
  CHECK(cell_centre(img, l, 0, 0) == colour::kCorrect);
  CHECK(cell_centre(img, l, 5, 6) == colour::kCorrect);
  // Exact values: the four classes and the guard colour are told apart by colour alone.
  CHECK(colour::kCorrect == Rgb{176, 214, 176});
  CHECK(colour::kOutOfTolerance == Rgb{214, 39, 40});
  CHECK(colour::kNotFinite == Rgb{160, 32, 240});
  CHECK(colour::kUnwritten == Rgb{255, 190, 0});
  CHECK(colour::kGuardHit == Rgb{31, 90, 255});
  const std::vector<Rgb> all = {colour::kCorrect, colour::kOutOfTolerance, colour::kNotFinite, colour::kUnwritten,
                                colour::kGuardHit, colour::kGuardIntact, colour::kTileGrid, colour::kBackground};
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (std::size_t j = i + 1; j < all.size(); ++j) CHECK(all[i] != all[j]);
  }
}

TEST_CASE("error map: a wrong value just inside the tolerance edge is drawn correct", "[error_map]") {
  Synthetic s;
  const double allowed = allowed_error(9, s.abs_sum.data()[3], Tolerance::fp32());
  s.expected.data()[3] = static_cast<double>(s.got.data()[3]) + allowed;  // |got - expected| == allowed
  const std::vector<OutputClass> c = classify_outputs(s.got, s.expected, s.abs_sum, 9, Tolerance::fp32());
  CHECK(c[3] == OutputClass::correct);
  s.expected.data()[3] = static_cast<double>(s.got.data()[3]) + 2 * allowed;
  CHECK(classify_outputs(s.got, s.expected, s.abs_sum, 9, Tolerance::fp32())[3] == OutputClass::out_of_tolerance);
}

TEST_CASE("error map: the tile grid is drawn on the first pixel of every tile and nowhere else", "[error_map]") {
  const Synthetic s;
  const ErrorMapInput in = s.input();
  const RgbImage img = render_error_map(in);
  const ErrorMapLayout l = error_map_layout(in);
  const int mid_row_y = l.origin_y + l.cell / 2;  // inside row 0
  CHECK(img.at(l.origin_x, mid_row_y) == colour::kTileGrid);                // column 0: a tile edge
  CHECK(img.at(l.origin_x + 4 * l.cell, mid_row_y) == colour::kTileGrid);   // column 4: a tile edge
  CHECK(img.at(l.origin_x + 4 * l.cell + 1, mid_row_y) == colour::kCorrect);
  CHECK(img.at(l.origin_x + 2 * l.cell, mid_row_y) == colour::kCorrect);    // column 2: inside a tile
  const int mid_col_x = l.origin_x + l.cell / 2;
  CHECK(img.at(mid_col_x, l.origin_y + 3 * l.cell) == colour::kTileGrid);   // row 3: a tile edge
  CHECK(img.at(mid_col_x, l.origin_y + 1 * l.cell) == colour::kCorrect);    // row 1: inside a tile

  ErrorMapInput none = in;
  none.tiles.reset();
  CHECK(render_error_map(none).at(l.origin_x + 4 * l.cell, mid_row_y) == colour::kCorrect);
}

TEST_CASE("error map: writes past either end of the buffer land in strips where the layout puts them", "[error_map]") {
  const Synthetic s;
  ErrorMapInput in = s.input();
  in.guard_hits = {-1, 48, 48 + 8 + 3};  // just before (row -1, col 7); just after (row 6, col 0); row 7, col 3
  const RgbImage img = render_error_map(in);
  const ErrorMapLayout l = error_map_layout(in);
  REQUIRE(l.guard_rows == 2);
  const int gap = std::max(2, l.cell / 2);
  auto strip_before = [&](int row, int col) {  // row -1 is the strip row next to the image
    return img.at(l.origin_x + col * l.cell + l.cell / 2, l.origin_y - gap + row * l.cell + l.cell / 2);
  };
  auto strip_after = [&](int r, int col) {  // r = 0 is the row just after the image
    return img.at(l.origin_x + col * l.cell + l.cell / 2, l.origin_y + 6 * l.cell + gap + r * l.cell + l.cell / 2);
  };
  CHECK(strip_before(-1, 7) == colour::kGuardHit);
  CHECK(strip_before(-1, 6) == colour::kGuardIntact);
  CHECK(strip_before(-2, 7) == colour::kGuardIntact);
  CHECK(strip_after(0, 0) == colour::kGuardHit);
  CHECK(strip_after(0, 1) == colour::kGuardIntact);
  CHECK(strip_after(1, 3) == colour::kGuardHit);
  CHECK(strip_after(1, 2) == colour::kGuardIntact);

  const ErrorMapLayout clean = error_map_layout(s.input());
  CHECK(clean.guard_rows == 0);
  CHECK(clean.origin_y < l.origin_y);
}

TEST_CASE("error map: a conv-layer output is drawn as its first failing (batch, filter) slice", "[error_map]") {
  const std::vector<std::size_t> shape = {2, 3, 2, 2};  // B = 2, M = 3, 2×2 outputs
  std::vector<OutputClass> classes(24, OutputClass::correct);
  classes[(1 * 3 + 0) * 4 + 1] = OutputClass::unwritten;         // slice (1, 0), element (0, 1)
  classes[(1 * 3 + 2) * 4 + 3] = OutputClass::out_of_tolerance;  // slice (1, 2)
  const ErrorMapInput in = error_map_input(shape, classes, {24});
  CHECK(in.height == 2);
  CHECK(in.width == 2);
  REQUIRE(in.classes.size() == 4);
  CHECK(in.classes[1] == OutputClass::unwritten);
  CHECK(in.classes[0] == OutputClass::correct);
  CHECK(in.guard_hits == std::vector<std::ptrdiff_t>{24 - 12});  // relative to slice 3's first element
  REQUIRE(in.title.size() == 1);
  CHECK(in.title[0] == "conv layer: slice batch 1 filter 0 (the first failing one); 2 of 6 slices fail");
}

TEST_CASE("error map: outputs above 2048 per side are pooled and a cell shows the worst class in it", "[error_map]") {
  ErrorMapInput in;
  in.height = 1;
  in.width = 4100;  // 3 outputs per cell
  in.classes.assign(4100, OutputClass::correct);
  in.classes[4099] = OutputClass::unwritten;
  in.classes[4098] = OutputClass::out_of_tolerance;
  in.classes[0] = OutputClass::not_finite;
  const ErrorMapLayout l = error_map_layout(in);
  REQUIRE(l.stride == 3);
  const RgbImage img = render_error_map(in);
  CHECK(cell_centre(img, l, 0, 4099 / 3) == colour::kUnwritten);
  CHECK(cell_centre(img, l, 0, 0) == colour::kNotFinite);
  CHECK(cell_centre(img, l, 0, 1) == colour::kCorrect);
}

TEST_CASE("error map: the tile grid of each lab comes from its launch configuration", "[error_map]") {
  const auto lab01 = lab_tile_grid("lab01", 5);
  REQUIRE(lab01);
  CHECK(lab01->width == 32);  // 32 threads in x: 32 columns
  CHECK(lab01->height == 8);
  CHECK(lab_tile_grid("lab03", 5)->width == 32);
  CHECK(lab_tile_grid("lab04", 5)->width == 28);  // OUT_TILE = 32 - 5 + 1
  CHECK(lab_tile_grid("lab04", 17)->height == 16);
  CHECK(lab_tile_grid("lab05", 9)->width == 32);
  CHECK_FALSE(lab_tile_grid("lab06", 3));
  CHECK_FALSE(lab_tile_grid("lab07", 3));
}

TEST_CASE("error map: a class list that does not fill the grid is rejected", "[error_map]") {
  ErrorMapInput in;
  in.height = 2;
  in.width = 3;
  in.classes.assign(5, OutputClass::correct);
  CHECK_THROWS_AS(render_error_map(in), std::invalid_argument);
  CHECK_THROWS_AS(classify_outputs(Tensor<float>({2, 2}), Tensor<double>({2, 3}), Tensor<double>({2, 3}), 1,
                                   Tolerance::fp32()),
                  std::invalid_argument);
}

TEST_CASE("error map: the PNG on disk holds the rendered picture under lab__variant__case.png", "[error_map]") {
  const grader::testing::TempDir dir("error-map");
  const Synthetic s;
  const ErrorMapRun run{"lab03", "tiled", "k3_6x8", "conv2d/k3_6x8", 3};
  const std::filesystem::path file =
      write_error_map(dir.path() / "maps", run, s.got, s.expected, s.abs_sum, 9, Tolerance::fp32(), {48});
  CHECK(file == dir.path() / "maps" / "lab03__tiled__k3_6x8.png");
  int w = 0, h = 0, channels = 0;
  unsigned char* data = stbi_load(file.string().c_str(), &w, &h, &channels, 3);
  REQUIRE(data != nullptr);
  ErrorMapInput in = s.input();
  in.tiles = lab_tile_grid("lab03", 3);
  in.guard_hits = {48};
  in.title = {"lab03 tiled on conv2d/k3_6x8, output (6, 8)"};
  const RgbImage expected = render_error_map(in);
  CHECK(w == expected.width);
  CHECK(h == expected.height);
  const bool same = w == expected.width && h == expected.height &&
                    std::memcmp(data, expected.pixels.data(), expected.pixels.size()) == 0;
  stbi_image_free(data);
  CHECK(same);
  // A name that could escape the folder is flattened.
  const ErrorMapRun hostile{"lab03", "../x", "a/b", "conv2d/a/b", 3};
  CHECK(write_error_map(dir.path(), hostile, s.got, s.expected, s.abs_sum, 9, Tolerance::fp32(), {}).filename() ==
        "lab03__.._x__a_b.png");
}
