// Error maps (error_map.hpp): classes of a failing output -> an RGB picture with a legend -> PNG.
//
// Layout, top to bottom: a margin; the guard strip "before" (only when some write landed before
// the buffer); the image grid, one square cell per output (pooled above 2048 outputs per side so
// a large case still gives a picture of sensible size); the guard strip "after"; the legend
// (title lines, then one swatch per colour with its count). Text is drawn with stb_easy_font's
// quads, rasterised here, so the picture needs nothing but stb.
#include "convlab/error_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "convlab/atomic_file.hpp"
#include "convlab/lab_config.hpp"

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
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_easy_font.h>
#include <stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace convlab {
namespace fs = std::filesystem;

namespace {

constexpr int kMargin = 10;
constexpr int kMaxCellsPerSide = 2048;  // pooled above this
constexpr int kTargetPixels = 512;      // small outputs are scaled up to about this
constexpr int kMaxCell = 48;
constexpr int kMaxGuardRows = 4;        // guard rows drawn each side, at most
constexpr int kFontScale = 2;           // stb_easy_font pixels -> picture pixels
constexpr int kLineHeight = 12 * kFontScale + 4;
constexpr int kSwatch = 8 * kFontScale;

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// Floor division for negative offsets (the element just before the buffer is row -1).
std::ptrdiff_t floor_div(std::ptrdiff_t a, std::ptrdiff_t b) {
  const std::ptrdiff_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// Worse classes win when cells are pooled: the map must never hide a failure.
int severity(OutputClass c) {
  switch (c) {
    case OutputClass::correct: return 0;
    case OutputClass::out_of_tolerance: return 1;
    case OutputClass::not_finite: return 2;
    case OutputClass::unwritten: return 3;
  }
  return 0;
}

// stb_easy_font draws printable ASCII only: "×" becomes "x", anything else outside it "?".
std::string ascii(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0xC3 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x97) {
      out += 'x';
      ++i;
    } else if (c >= 0x80) {
      while (i + 1 < s.size() && (static_cast<unsigned char>(s[i + 1]) & 0xC0) == 0x80) ++i;
      out += '?';
    } else {
      out += (c >= 32 && c < 127) || c == '\n' ? static_cast<char>(c) : '?';
    }
  }
  return out;
}

class Canvas {
 public:
  Canvas(int w, int h) {
    img_.width = w;
    img_.height = h;
    img_.pixels.resize(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
    fill(0, 0, w, h, error_map_colour::kBackground);
  }
  void fill(int x0, int y0, int x1, int y1, Rgb c) {
    x0 = std::max(x0, 0);
    y0 = std::max(y0, 0);
    x1 = std::min(x1, img_.width);
    y1 = std::min(y1, img_.height);
    for (int y = y0; y < y1; ++y) {
      for (int x = x0; x < x1; ++x) {
        const std::size_t i = (static_cast<std::size_t>(y) * static_cast<std::size_t>(img_.width) + static_cast<std::size_t>(x)) * 3;
        img_.pixels[i] = c[0];
        img_.pixels[i + 1] = c[1];
        img_.pixels[i + 2] = c[2];
      }
    }
  }
  // ASCII text with its top-left corner at (x, y).
  void text(int x, int y, const std::string& s) {
    std::vector<char> buf(s.size() * 300 + 64);
    std::string copy = ascii(s);
    const int quads = stb_easy_font_print(0, 0, copy.data(), nullptr, buf.data(), static_cast<int>(buf.size()));
    struct Vertex {
      float x, y, z;
      unsigned char rgba[4];
    };
    const auto* v = reinterpret_cast<const Vertex*>(buf.data());
    for (int q = 0; q < quads; ++q) {
      const Vertex* quad = v + 4 * q;
      float qx0 = quad[0].x, qy0 = quad[0].y, qx1 = quad[0].x, qy1 = quad[0].y;
      for (int k = 1; k < 4; ++k) {
        qx0 = std::min(qx0, quad[k].x);
        qy0 = std::min(qy0, quad[k].y);
        qx1 = std::max(qx1, quad[k].x);
        qy1 = std::max(qy1, quad[k].y);
      }
      fill(x + static_cast<int>(qx0 * kFontScale), y + static_cast<int>(qy0 * kFontScale),
           x + static_cast<int>(qx1 * kFontScale), y + static_cast<int>(qy1 * kFontScale), error_map_colour::kText);
    }
  }
  static int text_width(const std::string& s) {
    std::string copy = ascii(s);
    return stb_easy_font_width(copy.data()) * kFontScale;
  }
  RgbImage take() { return std::move(img_); }

 private:
  RgbImage img_;
};

struct LegendLine {
  std::optional<Rgb> swatch;
  std::string text;
};

}  // namespace

Rgb class_colour(OutputClass c) {
  switch (c) {
    case OutputClass::correct: return error_map_colour::kCorrect;
    case OutputClass::out_of_tolerance: return error_map_colour::kOutOfTolerance;
    case OutputClass::not_finite: return error_map_colour::kNotFinite;
    case OutputClass::unwritten: return error_map_colour::kUnwritten;
  }
  return error_map_colour::kBackground;
}

std::optional<TileGrid> lab_tile_grid(const std::string& lab_id, int mask_width) {
  using namespace config;
  if (lab_id == "lab01" || lab_id == "lab02") return TileGrid{kUntiledBlockY, kUntiledBlockX};
  if (lab_id == "lab03") return TileGrid{kLab03TileWidth, kLab03TileWidth};
  if (lab_id == "lab04") {
    const int out = kLab04InTile - mask_width + 1;
    if (out < 1) return std::nullopt;
    return TileGrid{out, out};
  }
  if (lab_id == "lab05") return TileGrid{kLab05TileWidth, kLab05TileWidth};
  return std::nullopt;
}

Rgb RgbImage::at(int x, int y) const {
  if (x < 0 || y < 0 || x >= width || y >= height) throw std::out_of_range("RgbImage::at: outside the picture");
  const std::size_t i = (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)) * 3;
  return {pixels[i], pixels[i + 1], pixels[i + 2]};
}

ErrorMapLayout error_map_layout(const ErrorMapInput& in) {
  ErrorMapLayout l;
  const int side = std::max({in.height, in.width, 1});
  l.stride = side > kMaxCellsPerSide ? ceil_div(side, kMaxCellsPerSide) : 1;
  const int cells = ceil_div(side, l.stride);
  l.cell = std::clamp(kTargetPixels / cells, 1, kMaxCell);
  if (!in.guard_hits.empty() && in.width > 0) {
    // Rows of the buffer's continuation that the farthest hit needs, capped.
    std::ptrdiff_t rows = 1;
    for (std::ptrdiff_t o : in.guard_hits) {
      const std::ptrdiff_t row = floor_div(o, in.width);
      rows = std::max(rows, row < 0 ? -row : row - in.height + 1);
    }
    rows = std::min<std::ptrdiff_t>(rows, static_cast<std::ptrdiff_t>(kMaxGuardRows) * l.stride);
    l.guard_rows = ceil_div(static_cast<int>(rows), l.stride);
  }
  const int gap = std::max(2, l.cell / 2);
  l.origin_x = kMargin;
  l.origin_y = kMargin + (l.guard_rows > 0 ? l.guard_rows * l.cell + gap : 0);
  return l;
}

RgbImage render_error_map(const ErrorMapInput& in) {
  if (in.height < 0 || in.width < 0 ||
      in.classes.size() != static_cast<std::size_t>(in.height) * static_cast<std::size_t>(in.width)) {
    throw std::invalid_argument(fmt::format("error map: {} classes for a {}x{} grid", in.classes.size(), in.height, in.width));
  }
  const ErrorMapLayout l = error_map_layout(in);
  const int gh = ceil_div(std::max(in.height, 1), l.stride), gw = ceil_div(std::max(in.width, 1), l.stride);
  const int gap = std::max(2, l.cell / 2);

  // Counts at full resolution, for the legend.
  std::size_t count[4] = {0, 0, 0, 0};
  for (OutputClass c : in.classes) ++count[static_cast<int>(c)];

  // Guard hits -> cells of the strips; the ones farther than the strips are counted.
  const std::ptrdiff_t elements = static_cast<std::ptrdiff_t>(in.height) * in.width;
  std::vector<char> before(static_cast<std::size_t>(l.guard_rows) * static_cast<std::size_t>(gw), 0);
  std::vector<char> after(before.size(), 0);
  std::size_t not_drawn = 0;
  for (std::ptrdiff_t o : in.guard_hits) {
    if (in.width == 0 || (o >= 0 && o < elements)) continue;  // not a guard offset
    const std::ptrdiff_t row = floor_div(o, in.width), col = o - row * in.width;
    const std::ptrdiff_t cell_col = col / l.stride;
    if (row < 0) {
      const std::ptrdiff_t r = l.guard_rows + floor_div(row, l.stride);  // row -1 -> last strip row
      if (r < 0) { ++not_drawn; continue; }
      before[static_cast<std::size_t>(r * gw + cell_col)] = 1;
    } else {
      const std::ptrdiff_t r = (row - in.height) / l.stride;
      if (r >= l.guard_rows) { ++not_drawn; continue; }
      after[static_cast<std::size_t>(r * gw + cell_col)] = 1;
    }
  }

  // Legend text.
  std::vector<LegendLine> legend;
  for (const std::string& t : in.title) legend.push_back({std::nullopt, t});
  legend.push_back({error_map_colour::kCorrect, fmt::format("correct: {}", count[0])});
  legend.push_back({error_map_colour::kOutOfTolerance, fmt::format("wrong value (out of tolerance): {}", count[1])});
  legend.push_back({error_map_colour::kNotFinite, fmt::format("NaN or inf computed (not finite): {}", count[2])});
  legend.push_back({error_map_colour::kUnwritten, fmt::format("unwritten (still the NaN poison): {}", count[3])});
  std::string guard_text = fmt::format("write past the output buffer (guard band): {}", in.guard_hits.size());
  if (!in.guard_hits.empty()) guard_text += " - strips above and below the image";
  if (not_drawn > 0) guard_text += fmt::format(", {} farther away not drawn", not_drawn);
  legend.push_back({error_map_colour::kGuardHit, guard_text});
  std::string tile_text = "no tile grid for this lab";
  bool draw_tiles = false;
  if (in.tiles && in.tiles->width > 0 && in.tiles->height > 0) {
    draw_tiles = std::min(in.tiles->width, in.tiles->height) * l.cell / l.stride >= 6;
    tile_text = fmt::format("black lines: tiles of {} x {} outputs (cols x rows), one block each{}", in.tiles->width,
                            in.tiles->height, draw_tiles ? "" : " - not drawn, too fine at this size");
  }
  legend.push_back({error_map_colour::kTileGrid, tile_text});
  if (l.stride > 1) {
    legend.push_back({std::nullopt, fmt::format("one cell = {0} x {0} outputs, drawn in the worst class among them", l.stride)});
  }

  const int map_w = gw * l.cell, map_h = gh * l.cell;
  const int strip_h = l.guard_rows > 0 ? l.guard_rows * l.cell + gap : 0;
  int legend_w = 0;
  for (const LegendLine& line : legend) {
    legend_w = std::max(legend_w, (line.swatch ? kSwatch + 8 : 0) + Canvas::text_width(line.text));
  }
  const int width = 2 * kMargin + std::max(map_w, legend_w);
  const int legend_y = l.origin_y + map_h + strip_h + kMargin;
  const int height = legend_y + static_cast<int>(legend.size()) * kLineHeight + kMargin;
  Canvas canvas(width, height);

  // The grid.
  for (int cy = 0; cy < gh; ++cy) {
    for (int cx = 0; cx < gw; ++cx) {
      OutputClass worst = OutputClass::correct;
      for (int y = cy * l.stride; y < std::min(in.height, (cy + 1) * l.stride); ++y) {
        for (int x = cx * l.stride; x < std::min(in.width, (cx + 1) * l.stride); ++x) {
          const OutputClass c = in.classes[static_cast<std::size_t>(y) * static_cast<std::size_t>(in.width) + static_cast<std::size_t>(x)];
          if (severity(c) > severity(worst)) worst = c;
        }
      }
      const int px = l.origin_x + cx * l.cell, py = l.origin_y + cy * l.cell;
      canvas.fill(px, py, px + l.cell, py + l.cell, class_colour(worst));
    }
  }
  // The guard strips.
  for (int r = 0; r < l.guard_rows; ++r) {
    for (int cx = 0; cx < gw; ++cx) {
      const int px = l.origin_x + cx * l.cell;
      const int top = l.origin_y - gap - (l.guard_rows - r) * l.cell;
      const int bottom = l.origin_y + map_h + gap + r * l.cell;
      const std::size_t i = static_cast<std::size_t>(r * gw + cx);
      canvas.fill(px, top, px + l.cell, top + l.cell, before[i] ? error_map_colour::kGuardHit : error_map_colour::kGuardIntact);
      canvas.fill(px, bottom, px + l.cell, bottom + l.cell, after[i] ? error_map_colour::kGuardHit : error_map_colour::kGuardIntact);
    }
  }
  // The tile grid: a line on the first pixel row/column of every tile, and one closing the image.
  if (draw_tiles) {
    for (int x = 0; x <= in.width; x += in.tiles->width) {
      const int px = l.origin_x + std::min(x / l.stride * l.cell, map_w - 1);
      canvas.fill(px, l.origin_y, px + 1, l.origin_y + map_h, error_map_colour::kTileGrid);
    }
    for (int y = 0; y <= in.height; y += in.tiles->height) {
      const int py = l.origin_y + std::min(y / l.stride * l.cell, map_h - 1);
      canvas.fill(l.origin_x, py, l.origin_x + map_w, py + 1, error_map_colour::kTileGrid);
    }
  }
  // The legend.
  for (std::size_t i = 0; i < legend.size(); ++i) {
    const int y = legend_y + static_cast<int>(i) * kLineHeight;
    int x = kMargin;
    if (legend[i].swatch) {
      canvas.fill(x, y, x + kSwatch, y + kSwatch, *legend[i].swatch);
      x += kSwatch + 8;
    }
    canvas.text(x, y, legend[i].text);
  }
  return canvas.take();
}

void write_png(const fs::path& file, const RgbImage& image) {
  // Encoded in memory, then written by the one atomic writer (stb's own fopen would follow a
  // planted symlink and leave half a file behind on a failure).
  std::string png;
  const auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  const int ok = stbi_write_png_to_func(append, &png, image.width, image.height, 3, image.pixels.data(), image.width * 3);
  if (ok == 0) throw std::runtime_error(fmt::format("{}: cannot encode the PNG", file.string()));
  write_file_atomically(file, png);
}

ErrorMapInput error_map_input(const std::vector<std::size_t>& shape, const std::vector<OutputClass>& classes,
                              const std::vector<std::ptrdiff_t>& guard_hits) {
  ErrorMapInput in;
  in.guard_hits = guard_hits;
  if (shape.size() == 2) {
    in.height = static_cast<int>(shape[0]);
    in.width = static_cast<int>(shape[1]);
    in.classes = classes;
    return in;
  }
  if (shape.size() != 4) {
    in.height = 1;
    in.width = static_cast<int>(classes.size());
    in.classes = classes;
    return in;
  }
  const std::size_t slices = shape[0] * shape[1], per = shape[2] * shape[3];
  std::size_t first = slices, failing = 0;
  for (std::size_t s = 0; s < slices; ++s) {
    const auto begin = classes.begin() + static_cast<std::ptrdiff_t>(s * per);
    if (std::any_of(begin, begin + static_cast<std::ptrdiff_t>(per), [](OutputClass c) { return c != OutputClass::correct; })) {
      ++failing;
      if (first == slices) first = s;
    }
  }
  if (first == slices) first = 0;
  in.height = static_cast<int>(shape[2]);
  in.width = static_cast<int>(shape[3]);
  const auto begin = classes.begin() + static_cast<std::ptrdiff_t>(first * per);
  in.classes.assign(begin, begin + static_cast<std::ptrdiff_t>(per));
  for (std::ptrdiff_t& o : in.guard_hits) o -= static_cast<std::ptrdiff_t>(first * per);
  in.title.push_back(fmt::format("conv layer: slice batch {} filter {} (the first failing one); {} of {} slices fail",
                                 first / shape[1], first % shape[1], failing, slices));
  return in;
}

fs::path write_error_map(const fs::path& dir, const ErrorMapRun& run, const Tensor<float>& got,
                         const Tensor<double>& expected, const Tensor<double>& abs_sum, std::size_t terms,
                         Tolerance tol, const std::vector<std::ptrdiff_t>& guard_hits) {
  ErrorMapInput in = error_map_input(got.shape(), classify_outputs(got, expected, abs_sum, terms, tol), guard_hits);
  if (got.shape().size() == 2) in.tiles = lab_tile_grid(run.lab, run.mask_width);
  in.title.insert(in.title.begin(), fmt::format("{} {} on {}, output {}", run.lab, run.variant, run.case_id,
                                                shape_string(got.shape())));
  auto safe = [](std::string s) {
    for (char& c : s) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
      if (!ok) c = '_';
    }
    return s;
  };
  fs::create_directories(dir);
  const fs::path file = dir / fmt::format("{}__{}__{}.png", safe(run.lab), safe(run.variant), safe(run.case_name));
  write_png(file, render_error_map(in));
  return file;
}

}  // namespace convlab
