#include "docgen/figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "convlab/analysis.hpp"
#include "convlab/lab06_config.hpp"
#include "convlab/lab07_config.hpp"
#include "convlab/lab_config.hpp"
#include "convlab/shapes.hpp"

namespace convlab::grader::figures {

namespace {

// Every drawing is 1160 units wide, the width of a slide's content at 1280×720, and at most
// 470 high (the diagram class's picture height): shown at scale 1, so that text at 22-24
// units is 22-24 px on the slide.
constexpr int kWidth = 1160;
constexpr int kFont = 24;
constexpr int kLine = 36;
constexpr int kGridSide = 420;  // the square the tiling grids fit in

constexpr const char* kBlue = "#9ecae1";
constexpr const char* kOrange = "#fdae6b";
constexpr const char* kGreen = "#a1d99b";
constexpr const char* kPurple = "#bcbddc";
constexpr const char* kPale = "#fee6ce";
constexpr const char* kInk = "#08306b";

/// An SVG document being written: shapes in order, then closed by finish().
class Svg {
 public:
  explicit Svg(int height) : height_(height) {}
  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& stroke = "none",
            double stroke_width = 0, const std::string& extra = "") {
    body_ += fmt::format(R"(<rect x="{:g}" y="{:g}" width="{:g}" height="{:g}" fill="{}" stroke="{}" stroke-width="{:g}"{}/>)",
                         x, y, w, h, fill, stroke, stroke_width, extra.empty() ? "" : " " + extra);
    body_ += '\n';
  }
  void text(double x, double y, const std::string& s, int size = kFont, const std::string& anchor = "start",
            const std::string& weight = "normal") {
    body_ += fmt::format(R"(<text x="{:g}" y="{:g}" font-size="{}" text-anchor="{}" font-weight="{}">{}</text>)", x,
                         y, size, anchor, weight, escape(s));
    body_ += '\n';
  }
  /// A legend line: a swatch (or an outline) and its text; returns the next line's y.
  double legend(double x, double y, const std::string& fill, const std::string& s, bool outline = false,
                int size = kFont) {
    if (outline) rect(x, y - 20, 28, 24, "none", kInk, 4);
    else if (!fill.empty()) rect(x, y - 20, 28, 24, fill, "#555", 1);
    text(x + (fill.empty() && !outline ? 0 : 40), y, s, size);
    return y + kLine;
  }
  /// A path of `d`, stroked.
  void path(const std::string& d, const std::string& stroke, double width) {
    body_ += fmt::format(R"(<path d="{}" stroke="{}" stroke-width="{:g}" fill="none"/>)", d, stroke, width);
    body_ += '\n';
  }
  /// A grid of n×m cells with thin lines, as one path (the cells themselves are filled separately).
  void grid_lines(double x, double y, int cols, int rows, double cell) {
    std::string d;
    for (int c = 0; c <= cols; ++c) d += fmt::format("M{:g} {:g}V{:g}", x + c * cell, y, y + rows * cell);
    for (int r = 0; r <= rows; ++r) d += fmt::format("M{:g} {:g}H{:g}", x, y + r * cell, x + cols * cell);
    body_ += fmt::format(R"(<path d="{}" stroke="#ffffff" stroke-width="{:g}" fill="none"/>)", d,
                         std::max(0.5, cell / 14.0));
    body_ += '\n';
  }
  [[nodiscard]] std::string finish() const {
    return fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" )"
                       R"(font-family="DejaVu Sans, Helvetica, Arial, sans-serif" fill="#222">)"
                       "\n<rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n{2}</svg>\n",
                       kWidth, height_, body_);
  }
  [[nodiscard]] int height() const { return height_; }

 private:
  static std::string escape(const std::string& s) {
    std::string out;
    for (const char c : s) {
      if (c == '<') out += "&lt;";
      else if (c == '>') out += "&gt;";
      else if (c == '&') out += "&amp;";
      else out += c;
    }
    return out;
  }
  int height_;
  std::string body_;
};

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("figures: " + what);
}

std::string pct(double part, double whole) { return fmt::format("{:.0f}%", 100.0 * part / whole); }

Diagram make(std::string name, std::string caption, const Svg& svg) {
  return Diagram{std::move(name), std::move(caption), svg.finish(), kWidth, svg.height()};
}

}  // namespace

Diagram tiling_strategy_1(int tile, int mask) {
  require(tile >= 1 && mask >= 1 && mask % 2 == 1, "strategy 1 needs T >= 1 and an odd K");
  const int n = tile + mask - 1;
  const int threads = tile * tile;
  const int elements = n * n;
  const int steps = (elements + threads - 1) / threads;
  const double cell = static_cast<double>(kGridSide) / n;
  const double x0 = 20, y0 = 20;
  Svg svg(kGridSide + 40);
  const char* step_colors[] = {kBlue, kOrange, kGreen, kPurple};
  for (int i = 0; i < elements; ++i) {
    const int tr = i / n, tc = i % n;
    svg.rect(x0 + tc * cell, y0 + tr * cell, cell, cell, step_colors[std::min(i / threads, 3)]);
  }
  svg.grid_lines(x0, y0, n, n, cell);
  const int r = (mask - 1) / 2;
  svg.rect(x0 + r * cell, y0 + r * cell, tile * cell, tile * cell, "none", kInk, 4);
  double x = x0 + kGridSide + 40, y = y0 + 30;
  svg.text(x, y, fmt::format("input tile (T + K - 1)² = {}² = {} elements", n, elements), kFont, "start", "bold");
  y += kLine + 8;
  for (int s = 0; s < steps; ++s) {
    const int busy = std::min(threads, elements - s * threads);
    y = svg.legend(x, y, step_colors[std::min(s, 3)],
                   busy == threads ? fmt::format("load step {}: all {} threads", s + 1, threads)
                                   : fmt::format("load step {}: {} of {} threads busy ({})", s + 1, busy, threads,
                                                 pct(busy, threads)));
  }
  y = svg.legend(x, y, "", fmt::format("output tile {0}×{0}: the block's T² threads,", tile), true);
  y = svg.legend(x, y, "", "every one computes an output");
  y += 8;
  svg.text(x, y, fmt::format("T = {} (config::kLab03TileWidth), K = {}", tile, mask));
  return make("tiling-strategy-1",
              fmt::format("Strategy 1 (lab 03), T = {} and K = {}: the {}×{} threads load the {}×{} input tile in {} "
                          "steps, then all of them compute",
                          tile, mask, tile, tile, n, n, steps),
              svg);
}

Diagram tiling_strategy_2(int in_tile, int mask) {
  require(in_tile >= mask && mask >= 1 && mask % 2 == 1, "strategy 2 needs I >= K and an odd K");
  const int n = in_tile;
  const int out = in_tile - mask + 1;
  const int r = (mask - 1) / 2;
  const double cell = static_cast<double>(kGridSide) / n;
  const double x0 = 20, y0 = 20;
  Svg svg(kGridSide + 40);
  for (int tr = 0; tr < n; ++tr) {
    for (int tc = 0; tc < n; ++tc) {
      const bool computes = tr >= r && tr < r + out && tc >= r && tc < r + out;
      svg.rect(x0 + tc * cell, y0 + tr * cell, cell, cell, computes ? kBlue : kOrange);
    }
  }
  svg.grid_lines(x0, y0, n, n, cell);
  svg.rect(x0 + r * cell, y0 + r * cell, out * cell, out * cell, "none", kInk, 4);
  const int threads = n * n, computing = out * out;
  double x = x0 + kGridSide + 40, y = y0 + 30;
  svg.text(x, y, fmt::format("block = input tile {0}×{0}: each of the", n), kFont, "start", "bold");
  y += kLine;
  svg.text(x, y, fmt::format("{} threads loads one element, in one step", threads), kFont, "start", "bold");
  y += kLine + 8;
  y = svg.legend(x, y, kBlue, fmt::format("load, then compute: {0}×{0} = {1} ({2})", out, computing,
                                          pct(computing, threads)));
  y = svg.legend(x, y, kOrange, fmt::format("load only, idle while computing: {}", threads - computing));
  y = svg.legend(x, y, "", fmt::format("output tile O = I - K + 1 = {}", out), true);
  y += 8;
  svg.text(x, y, fmt::format("I = {} (config::kLab04InTile), K = {}", in_tile, mask));
  y += kLine;
  svg.text(x, y, "the grid depends on K: ⌈W / O⌉ × ⌈H / O⌉ blocks");
  return make("tiling-strategy-2",
              fmt::format("Strategy 2 (lab 04), I = {} and K = {}: every thread loads, the inner {}×{} compute", in_tile,
                          mask, out, out),
              svg);
}

Diagram tiling_strategy_3(int tile, int mask) {
  require(tile >= 1 && mask >= 1 && mask % 2 == 1, "strategy 3 needs T >= 1 and an odd K");
  const int r = (mask - 1) / 2;
  const int n = tile + 2 * r;
  const double cell = static_cast<double>(kGridSide) / n;
  const double x0 = 20, y0 = 20;
  Svg svg(kGridSide + 40);
  for (int tr = 0; tr < n; ++tr) {
    for (int tc = 0; tc < n; ++tc) {
      const bool core = tr >= r && tr < r + tile && tc >= r && tc < r + tile;
      svg.rect(x0 + tc * cell, y0 + tr * cell, cell, cell, core ? kBlue : kPale);
    }
  }
  svg.grid_lines(x0, y0, n, n, cell);
  svg.rect(x0 + r * cell, y0 + r * cell, tile * cell, tile * cell, "none", kInk, 4);
  svg.rect(x0, y0, n * cell, n * cell, "none", "#e6550d", 3, R"(stroke-dasharray="10 6")");
  const int halo = n * n - tile * tile;
  double x = x0 + kGridSide + 40, y = y0 + 30;
  svg.text(x, y, fmt::format("block = output tile {0}×{0}: only its core", tile), kFont, "start", "bold");
  y += kLine;
  svg.text(x, y, "goes to shared memory", kFont, "start", "bold");
  y += kLine + 8;
  y = svg.legend(x, y, kBlue, fmt::format("core: each of the {} threads loads one", tile * tile));
  y = svg.legend(x, y, "", "element and computes one output");
  y = svg.legend(x, y, kPale, fmt::format("halo, r = {}: {} elements never loaded", r, halo));
  y = svg.legend(x, y, "", "by this block: edge threads read them from");
  y = svg.legend(x, y, "", "global memory, a hit in L1/L2 if a neighbour");
  y = svg.legend(x, y, "", "block has just loaded them");
  y += 8;
  svg.text(x, y, fmt::format("T = {} (config::kLab05TileWidth), K = {}", tile, mask));
  return make("tiling-strategy-3",
              fmt::format("Strategy 3 (lab 05), T = {} and K = {}: the core in shared memory, the {} halo elements "
                          "through the caches",
                          tile, mask, halo),
              svg);
}

Diagram im2col_unrolled(const Im2colExample& ex) {
  require(ex.channels >= 1 && ex.channels <= 4 && ex.height >= ex.mask && ex.mask >= 1 && ex.height <= 4,
          "the im2col drawing takes 1-4 channels of at most 4×4");
  ConvLayerShape layer;
  layer.channels = ex.channels;
  layer.height = layer.width = ex.height;
  layer.mask_width = ex.mask;
  const int ho = layer.out_height(), wo = layer.out_width();
  const int rows = ex.channels * ex.mask * ex.mask, cols = ho * wo;
  const analysis::Im2colTraffic traffic = analysis::im2col_traffic(layer);
  const char* channel_colors[] = {kBlue, kOrange, kGreen, kPurple};

  // The input channels, stacked on the left.
  const double in_cell = 36, gap = 22, x0 = 20, y0 = 50;
  const double ux0 = 300, ucw = 56, uch = std::min(36.0, 390.0 / rows);
  const int height = static_cast<int>(std::max(y0 + ex.channels * (ex.height * in_cell + gap), y0 + rows * uch) + 30);
  Svg svg(height);
  svg.text(x0, 32, "X: C input maps", kFont, "start", "bold");
  for (int c = 0; c < ex.channels; ++c) {
    const double cy = y0 + c * (ex.height * in_cell + gap);
    for (int h = 0; h < ex.height; ++h) {
      for (int w = 0; w < ex.height; ++w) {
        svg.rect(x0 + w * in_cell, cy + h * in_cell, in_cell, in_cell, channel_colors[c], "#ffffff", 2);
        svg.text(x0 + (w + 0.5) * in_cell, cy + (h + 0.72) * in_cell, std::to_string(h * ex.height + w), 20, "middle");
      }
    }
    svg.text(x0 + ex.height * in_cell + 12, cy + ex.height * in_cell / 2 + 8, fmt::format("c = {}", c), 22);
  }
  // X_unroll: row c·K² + p·K + q, column h·Wo + w holds X[c][h + p][w + q].
  svg.text(ux0, 32, fmt::format("X_unroll: {} × {}", rows, cols), kFont, "start", "bold");
  for (int c = 0; c < ex.channels; ++c) {
    for (int p = 0; p < ex.mask; ++p) {
      for (int q = 0; q < ex.mask; ++q) {
        const int row = c * ex.mask * ex.mask + p * ex.mask + q;
        for (int h = 0; h < ho; ++h) {
          for (int w = 0; w < wo; ++w) {
            const int col = h * wo + w;
            const double x = ux0 + col * ucw, y = y0 + row * uch;
            svg.rect(x, y, ucw, uch, channel_colors[c], "#ffffff", 2);
            svg.text(x + ucw / 2, y + uch * 0.74, std::to_string((h + p) * ex.height + (w + q)), 20, "middle");
          }
        }
      }
    }
  }
  double x = ux0 + cols * ucw + 40, y = y0 + 20;
  y = svg.legend(x, y, "", fmt::format("C = {}, {}×{} maps, K = {}: Ho = Wo = {}", ex.channels, ex.height, ex.height,
                                       ex.mask, ho));
  y = svg.legend(x, y, "", fmt::format("row c·K² + p·K + q: channel c, tap (p, q)"));
  y = svg.legend(x, y, "", fmt::format("column h·Wo + w: output (h, w)"));
  y = svg.legend(x, y, "", "cell: the input element it copies");
  y += 12;
  svg.text(x, y, fmt::format("{} elements copied from {}:", traffic.unrolled_elements, layer.input_elements()), kFont,
           "start", "bold");
  y += kLine;
  svg.text(x, y, fmt::format("replication {:.2f}×", traffic.replication), kFont, "start", "bold");
  y += kLine + 12;
  svg.text(x, y, fmt::format("Y = W ({} × {}) · X_unroll ({} × {})", layer.filters, rows, rows, cols));
  return make("im2col-unrolled",
              fmt::format("The conv-layer lecture's example unrolled: C = {}, {}×{} inputs, K = {}: X_unroll is {} × {}, "
                          "{} elements for {} inputs",
                          ex.channels, ex.height, ex.height, ex.mask, rows, cols, traffic.unrolled_elements,
                          layer.input_elements()),
              svg);
}

Diagram register_patch(int mask, int out_x, int out_y) {
  require(mask >= 1 && out_x >= 1 && out_y >= 1, "the register patch needs K, OX, OY >= 1");
  const int wr = out_y + mask - 1, wc = out_x + mask - 1;
  const double cell = std::min({48.0, 420.0 / wc, 380.0 / wr});
  const double x0 = 20, y0 = 50;
  const double ox0 = x0 + wc * cell + 50;
  const double ocell = std::min(48.0, 240.0 / out_x);
  const int height = static_cast<int>(std::max(y0 + wr * cell, 440.0) + 20);
  Svg svg(height);
  // A window row i feeds output rows oy with p = i - oy in [0, K): the shade says how many.
  const char* shades[] = {"#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6"};
  auto fed = [&](int i) { return std::min(out_y - 1, i) - std::max(0, i - mask + 1) + 1; };
  svg.text(x0, 32, fmt::format("input window {} × {}", wr, wc), kFont, "start", "bold");
  for (int i = 0; i < wr; ++i) {
    for (int j = 0; j < wc; ++j) {
      svg.rect(x0 + j * cell, y0 + i * cell, cell, cell, shades[std::min(fed(i), 5) - 1]);
    }
  }
  svg.grid_lines(x0, y0, wc, wr, cell);
  // One row, loaded once: outlined, with the outputs it feeds.
  const int shown = std::min(mask - 1, wr - 1);
  svg.rect(x0, y0 + shown * cell, wc * cell, cell, "none", "#e6550d", 4);
  svg.text(ox0, 32, fmt::format("outputs {} × {}", out_y, out_x), kFont, "start", "bold");
  for (int oy = 0; oy < out_y; ++oy) {
    const int p = shown - oy;
    const bool feeds = p >= 0 && p < mask;
    for (int ox = 0; ox < out_x; ++ox) {
      svg.rect(ox0 + ox * ocell, y0 + oy * ocell, ocell, ocell, feeds ? kOrange : "#eeeeee", "#ffffff", 2);
    }
  }
  double x = ox0, y = y0 + out_y * ocell + 44;
  const int loads = wr * wc, fmas = mask * mask * out_x * out_y;
  constexpr int kSmall = 22;
  y = svg.legend(x, y, "", fmt::format("K = {}, OX = {}, OY = {}", mask, out_x, out_y), false, kSmall);
  y = svg.legend(x, y, "", fmt::format("{} loads for {} FMAs: {:.3f} loads per FMA", loads, fmas,
                                       static_cast<double>(loads) / fmas), false, kSmall);
  y = svg.legend(x, y, "", fmt::format("outlined: window row {}, loaded once,", shown), false, kSmall);
  y = svg.legend(x, y, "", fmt::format("feeds output rows oy with {} - oy in [0, K)", shown), false, kSmall);
  y = svg.legend(x, y, "", "darker rows feed more output rows", false, kSmall);
  (void)y;
  return make(fmt::format("register-patch-k{:02d}", mask),
              fmt::format("Lab 07's register patch for K = {} (lab07::default_config): a thread loads its {}×{} "
                          "window one row at a time and keeps {}×{} outputs in registers",
                          mask, wr, wc, out_y, out_x),
              svg);
}

Diagram ghost_cells(const GhostCellExample& ex) {
  require(ex.tile >= 1 && ex.mask >= 1 && ex.mask % 2 == 1 && ex.tiles >= 3, "ghost cells need T >= 1, odd K, 3+ tiles");
  const int r = (ex.mask - 1) / 2, image = ex.tile * ex.tiles, padded = image + 2 * r, in = ex.tile + ex.mask - 1;
  const double cell = static_cast<double>(kGridSide) / padded;
  const double x0 = 20, y0 = 20;
  constexpr const char* kGhost = "#bdbdbd";
  constexpr const char* kImage = "#f0f0f0";
  Svg svg(kGridSide + 40);
  // Padded coordinates: (i, j) in [0, padded)²; the image is [r, r + image)².
  auto inside = [&](int i, int j) { return i >= r && i < r + image && j >= r && j < r + image; };
  // Block (by, bx)'s input tile starts at padded (by·T, bx·T): its output tile, shifted by r.
  auto in_tile = [&](int by, int bx, int i, int j) {
    return i >= by * ex.tile && i < by * ex.tile + in && j >= bx * ex.tile && j < bx * ex.tile + in;
  };
  int corner_ghosts = 0;
  for (int i = 0; i < padded; ++i) {
    for (int j = 0; j < padded; ++j) {
      const bool corner = in_tile(0, 0, i, j);
      corner_ghosts += corner && !inside(i, j);
      const char* fill = corner ? (inside(i, j) ? kBlue : "#969696") : inside(i, j) ? kImage : kGhost;
      if (!corner && in_tile(1, 1, i, j)) fill = kGreen;
      svg.rect(x0 + j * cell, y0 + i * cell, cell, cell, fill);
    }
  }
  svg.grid_lines(x0, y0, padded, padded, cell);
  // The image's edge and its output tiles.
  svg.rect(x0 + r * cell, y0 + r * cell, image * cell, image * cell, "none", kInk, 3);
  std::string d;
  for (int t = 1; t < ex.tiles; ++t) {
    const double at = (r + t * ex.tile) * cell;
    d += fmt::format("M{:g} {:g}V{:g}M{:g} {:g}H{:g}", x0 + at, y0 + r * cell, y0 + (r + image) * cell, x0 + r * cell,
                     y0 + at, x0 + (r + image) * cell);
  }
  svg.path(d, kInk, 1.5);
  // Both input tiles outlined: they overlap, as every neighbouring pair of input tiles does.
  svg.rect(x0, y0, in * cell, in * cell, "none", "#08519c", 3);
  svg.rect(x0 + ex.tile * cell, y0 + ex.tile * cell, in * cell, in * cell, "none", "#006d2c", 3, "stroke-dasharray=\"8 5\"");
  double x = x0 + kGridSide + 40, y = y0 + 30;
  svg.text(x, y, fmt::format("{0}×{0} image, {1}×{1} output tiles, K = {2}", image, ex.tile, ex.mask), kFont, "start",
           "bold");
  y += kLine + 8;
  const int loaded = in * in - corner_ghosts;
  y = svg.legend(x, y, kGhost, fmt::format("ghost cells: the ring of r = {} outside the image (0)", r));
  y = svg.legend(x, y, "#969696", fmt::format("corner block (0,0): {} of its {} input cells", corner_ghosts, in * in));
  svg.text(x + 40, y, "are ghosts, never loaded");
  y += kLine;
  y = svg.legend(x, y, kBlue, fmt::format("corner block (0,0): the {} inputs it loads", loaded));
  y = svg.legend(x, y, kGreen, fmt::format("interior block (1,1): all {} = ({} + {} - 1)² loaded", in * in, ex.tile,
                                           ex.mask));
  y += 8;
  svg.text(x, y, "The corner block loads fewer inputs and makes fewer", 22);
  svg.text(x, y + 30, "accesses: its reduction differs from the interior's.", 22);
  return make("ghost-cells",
              fmt::format("Ghost cells of the tiling lecture's 2D example ({0}×{0} tiles, K = {1}, a {2}×{2} image): "
                          "the corner block loads {3} of its {4} input cells, an interior block all {4}",
                          ex.tile, ex.mask, image, loaded, in * in),
              svg);
}

Diagram lab06_register_tile(int bm, int bn, int tm, int tn, int stages) {
  constexpr const char* kOwn = "#e6550d";
  require(bm > 0 && bn > 0 && tm > 0 && tn > 0 && tm % 2 == 0 && tn % 2 == 0 && bm % tm == 0 && bn % tn == 0,
          "the register tile needs even TM, TN dividing BM, BN");
  require(stages >= 2 && stages <= 6, "the pipeline is drawn for 2 to 6 stages");
  const int rows = bm / tm, cols = bn / tn;  // the thread grid, ty × tx
  const double side = kGridSide - 20;  // the title above it, within the 470 units of a slide
  const double cell = std::min(side / bm, side / bn);
  const double x0 = 20, y0 = 50;
  Svg svg(static_cast<int>(y0 + bm * cell + 20));
  svg.text(x0, 32, fmt::format("block tile {} × {} of Y", bm, bn), kFont, "start", "bold");
  svg.rect(x0, y0, bn * cell, bm * cell, "#eeeeee");
  // Thread (ty, tx) = (1, 2) owns rows ty·(TM/2) + i and BM/2 + ty·(TM/2) + i, and the columns
  // likewise: four pieces, so that a warp's float4 reads of As and Bs are consecutive.
  const int ty = 1, tx = 2, hm = tm / 2, hn = tn / 2;
  for (const int r0 : {ty * hm, bm / 2 + ty * hm}) {
    for (const int c0 : {tx * hn, bn / 2 + tx * hn}) svg.rect(x0 + c0 * cell, y0 + r0 * cell, hn * cell, hm * cell, kOwn);
  }
  // One line per thread row and column of the grid (each strip TM/2 or TN/2 outputs wide, twice).
  std::string d;
  for (int c = 0; c <= 2 * cols; ++c) d += fmt::format("M{:g} {:g}V{:g}", x0 + c * hn * cell, y0, y0 + bm * cell);
  for (int r = 0; r <= 2 * rows; ++r) d += fmt::format("M{:g} {:g}H{:g}", x0, y0 + r * hm * cell, x0 + bn * cell);
  svg.rect(x0, y0, bn * cell, bm * cell, "none", kInk, 2);
  svg.path(d, "#ffffff", 1);

  // The pipeline: iterations kt across, stages down.
  const double px = x0 + bn * cell + 60, pcell_w = 84, pcell_h = 38;
  const int iterations = 6;
  svg.text(px, 32, fmt::format("{} stages in shared memory, by iteration", stages), kFont, "start", "bold");
  for (int kt = 0; kt < iterations; ++kt) {
    svg.text(px + 110 + kt * pcell_w + pcell_w / 2, y0 + 24, fmt::format("kt={}", kt), 20, "middle");
  }
  for (int st = 0; st < stages; ++st) {
    const double y = y0 + 40 + st * pcell_h;
    svg.text(px, y + 26, fmt::format("stage {}", st), 20);
    for (int kt = 0; kt < iterations; ++kt) {
      // Stage st holds the slice s ≡ st (mod stages) in kt .. kt + stages - 1.
      const int slice = kt + ((st - kt) % stages + stages) % stages;
      const char* fill = slice == kt ? kBlue : slice == kt + stages - 1 ? kOrange : kPale;
      svg.rect(px + 110 + kt * pcell_w, y, pcell_w - 4, pcell_h - 4, fill);
      svg.text(px + 110 + kt * pcell_w + pcell_w / 2 - 2, y + 26, fmt::format("{}", slice), 20, "middle");
    }
  }
  double y = y0 + 40 + stages * pcell_h + 32;
  constexpr int kSmall = 22;
  y = svg.legend(px, y, kOwn, fmt::format("thread (1, 2)'s {}×{} outputs, in four pieces", tm, tn), false, kSmall);
  y = svg.legend(px, y, kBlue, "slice kt: its FMAs, after a wait for it", false, kSmall);
  y = svg.legend(px, y, kOrange, fmt::format("slice kt + {}: cp.async issued into the freed stage", stages - 1), false,
                 kSmall);
  y = svg.legend(px, y, kPale, "slices in flight", false, kSmall);
  y = svg.legend(px, y, "", "split-K (3d): S blocks share a tile's slices, each", false, kSmall);
  y = svg.legend(px, y, "", "atomicAdds its partial sums into Y", false, kSmall);
  (void)y;
  return make("lab06-register-tile",
              fmt::format("Lab 06 step 3: a {}×{} block tile, {}×{} threads of {}×{} outputs each, in four {}×{} "
                          "pieces as drawn (3b–3d; 3a's lie {} rows and {} columns apart), and the ring of {} "
                          "shared-memory stages that keeps {} slices in flight (3c)",
                          bm, bn, rows, cols, tm, tn, tm / 2, tn / 2, rows, cols, stages, stages),
              svg);
}

std::vector<Diagram> diagrams() {
  std::vector<Diagram> out;
  out.push_back(tiling_strategy_1(config::kLab03TileWidth, kTilingExampleMask));
  out.push_back(tiling_strategy_2(config::kLab04InTile, kTilingExampleMask));
  out.push_back(tiling_strategy_3(config::kLab05TileWidth, kTilingExampleMask));
  out.push_back(im2col_unrolled(Im2colExample{}));
  out.push_back(ghost_cells(GhostCellExample{}));
  for (const int k : {3, 17}) {
    const lab07::TileConfig* c = lab07::default_config(k);
    if (c == nullptr) throw std::logic_error(fmt::format("figures: lab 07 has no default configuration for K = {}", k));
    out.push_back(register_patch(k, c->out_x, c->out_y));
  }
  // The thread tile TM×TN = 8×8 and the ring of four stages are the lab's own
  // (labs/06-im2col/implicit_gemm.cuh, async_copies.cuh); test_figures.cpp holds them equal.
  const lab06::RegisterTilePlan plan;
  out.push_back(lab06_register_tile(plan.bm, plan.bn, 8, 8, 4));
  return out;
}

}  // namespace convlab::grader::figures
