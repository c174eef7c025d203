/// @file error_map.hpp
/// @brief Error maps: a picture of one failing run, for students who would rather look than read.
///
/// Every output element is drawn as a square cell in the colour of its class (compare.hpp's
/// rule: correct, out of tolerance, not finite, unwritten), over the image grid, with the tile
/// grid of the lab's launch configuration drawn on top, so that the shape of the wrong region
/// names the bug: a halo bug is a frame inside every tile, a missing barrier scattered tiles, a
/// half-written output a band of unwritten rows. Writes past either end of the output buffer
/// (guard-band hits, docs/design.md "NaN poison and guard bands") are drawn as strips of the
/// buffer's linear continuation above and below the image. A legend under the picture gives
/// the counts and the tile grid.
///
/// Host only: the lab runner (`--error-map DIR`) and the grader (`grader grade --error-map DIR`)
/// both call write_error_map() with the run's output, so both draw the same picture.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "convlab/compare.hpp"
#include "convlab/tensor.hpp"

namespace convlab {

/// An RGB colour.
using Rgb = std::array<std::uint8_t, 3>;

/// The colours of an error map (the legend repeats them).
namespace error_map_colour {
inline constexpr Rgb kBackground{255, 255, 255};    ///< around the picture
inline constexpr Rgb kCorrect{176, 214, 176};       ///< pale green: nothing to see
inline constexpr Rgb kOutOfTolerance{214, 39, 40};  ///< red: written, wrong value
inline constexpr Rgb kNotFinite{160, 32, 240};      ///< purple: a NaN or infinity the kernel computed
inline constexpr Rgb kUnwritten{255, 190, 0};       ///< amber: still the NaN poison
inline constexpr Rgb kGuardIntact{224, 224, 232};   ///< guard-band element left alone
inline constexpr Rgb kGuardHit{31, 90, 255};        ///< blue: a write past the end of the buffer
inline constexpr Rgb kTileGrid{0, 0, 0};            ///< black lines on tile boundaries
inline constexpr Rgb kText{0, 0, 0};                ///< legend text
}  // namespace error_map_colour

/// The colour of a class.
Rgb class_colour(OutputClass c);

/// A tile of the lab's launch configuration, in output elements.
struct TileGrid {
  int height = 0;  ///< rows per tile
  int width = 0;   ///< columns per tile
};

/// The tile grid that lab `lab_id` ("lab01" ... "lab07") puts over a K×K conv2d output, from
/// lab_config.hpp: the 32×8 block for labs 01–02 (32 columns, 8 rows), the output tile for
/// labs 03 and 05 (TILE_WIDTH), and OUT_TILE = IN_TILE − K + 1 for lab 04. None for lab 06
/// (its tiles are GEMM tiles, not image regions) and lab 07 (its tile depends on the tuned
/// configuration).
std::optional<TileGrid> lab_tile_grid(const std::string& lab_id, int mask_width);

/// What one picture shows: a 2-D grid of classes.
struct ErrorMapInput {
  int height = 0;                          ///< rows of the grid
  int width = 0;                           ///< columns of the grid
  std::vector<OutputClass> classes;        ///< height × width, row-major
  /// Guard-band hits, as element offsets from the grid's first element: negative before it,
  /// ≥ height × width after it. Drawn where the buffer's row-major layout puts them.
  std::vector<std::ptrdiff_t> guard_hits;
  std::optional<TileGrid> tiles;           ///< drawn when present
  std::vector<std::string> title;          ///< lines printed above the legend
};

/// An RGB picture, row-major, 3 bytes per pixel.
struct RgbImage {
  int width = 0;                     ///< pixels per row
  int height = 0;                    ///< rows
  std::vector<std::uint8_t> pixels;  ///< width × height × 3 bytes: R, G, B, row-major from the top
  /// The colour at (x, y).
  [[nodiscard]] Rgb at(int x, int y) const;
};

/// How an error map lays out its grid: cell size in pixels, and the margin of the grid's
/// top-left corner. Exposed so that a test can find the pixels of a cell.
struct ErrorMapLayout {
  int cell = 1;        ///< pixels per cell side (≥ 1); small outputs are scaled up
  int stride = 1;      ///< outputs per cell side (≥ 1); outputs above 2048 per side are pooled
  int origin_x = 0;    ///< pixel column of the grid's left edge
  int origin_y = 0;    ///< pixel row of the grid's top edge (below the guard strip, if any)
  int guard_rows = 0;  ///< rows of guard band drawn above and below (0: no hits)
};

/// The layout render_error_map() uses for `in`.
ErrorMapLayout error_map_layout(const ErrorMapInput& in);

/// Draws the map. Pooled cells (stride > 1) take the worst class inside them (unwritten, then
/// not finite, then out of tolerance, then correct). Tile lines are drawn on the first pixel
/// row/column of each tile when a tile is at least 6 pixels wide.
/// @throws std::invalid_argument if `classes` does not hold height × width entries
RgbImage render_error_map(const ErrorMapInput& in);

/// Writes `image` as a PNG (stb_image_write).
/// @throws std::runtime_error naming the file if it cannot be written
void write_png(const std::filesystem::path& file, const RgbImage& image);

/// The map's input for a whole output: a 2-D output (conv2d) as it is; a 4-D conv-layer output
/// [B][M][Ho][Wo] as its first failing (b, m) slice in row-major order (the title says which
/// slice, and how many of the B·M slices fail), with the guard offsets taken relative to that
/// slice. Other ranks are drawn as one row.
ErrorMapInput error_map_input(const std::vector<std::size_t>& shape, const std::vector<OutputClass>& classes,
                              const std::vector<std::ptrdiff_t>& guard_hits);

/// One failing run's picture: `DIR/LAB__VARIANT__CASE.png`, the file name made of those
/// three names with any character outside [A-Za-z0-9._-] replaced by '_'.
struct ErrorMapRun {
  std::string lab;        ///< "lab03"
  std::string variant;    ///< "tiled"
  std::string case_name;  ///< the case's name within its problem, "k5_37x53"
  std::string case_id;    ///< for the title, "conv2d/k5_37x53"
  int mask_width = 0;     ///< K, for the tile grid of lab 04
};

/// Classifies `got` against the reference, draws the map and writes it into `dir` (created).
/// @return the file written
/// @throws std::runtime_error / std::invalid_argument as classify_outputs() and write_png()
std::filesystem::path write_error_map(const std::filesystem::path& dir, const ErrorMapRun& run,
                                      const Tensor<float>& got, const Tensor<double>& expected,
                                      const Tensor<double>& abs_sum, std::size_t terms, Tolerance tol,
                                      const std::vector<std::ptrdiff_t>& guard_hits);

}  // namespace convlab
