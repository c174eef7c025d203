// Lab 07's register-tiled kernels, counted (see analysis_register_tiling.hpp).
//
// Every load test of the kernel is "this row is in the image" and "this chunk is in the image",
// so a thread's loads are (rows in) × (chunks in) and the grid's total is a product of a sum
// over the thread columns and a sum over the thread rows: O(W/OX + H/OY), whatever the image.
// Divergence is counted by walking the lanes of each warp of the blocks at the edges: along
// each axis all blocks inside the image behave alike, so only a few blocks are walked.
#include "convlab/analysis_register_tiling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <vector>

#include "convlab/analysis.hpp"

namespace convlab::analysis {

namespace {

using lab07::FilterPath;
using lab07::InputPath;
using lab07::RowLoop;
using lab07::TileConfig;

/// The kernel's TileGeometry, computed on the host.
struct Geometry {
  int K, OX, OY, BX, BY, VW, R, RR;
  int left, chunks, window_rows;
  int tile_rows, tile_chunks;
  Geometry(const TileConfig& c, bool vec) {
    K = c.mask_width, OX = c.out_x, OY = c.out_y, BX = c.block_x, BY = c.block_y;
    VW = vec ? c.vector_width() : 1;
    R = (K - 1) / 2;
    RR = K - 1 - R;
    left = (R + VW - 1) / VW;
    chunks = left + (OX - 1 + RR) / VW + 1;
    window_rows = OY + K - 1;
    tile_rows = BY * OY + K - 1;
    tile_chunks = left + (BX * OX - 1 + RR) / VW + 1;
  }
};

/// A chunk of VW floats starting at column `gx` is loaded iff it lies wholly in [0, width).
bool chunk_inside(long long gx, int vw, int width) { return gx >= 0 && gx + vw <= width; }
bool row_inside(long long gy, int height) { return gy >= 0 && gy < height; }

/// Chunks of thread column X's window rows that lie in the image (the same for every row).
std::uint64_t window_colmask(const Geometry& g, long long X, int width) {
  const long long col0 = X * g.OX - static_cast<long long>(g.left) * g.VW;
  std::uint64_t m = 0;
  for (int j = 0; j < g.chunks; ++j) {
    if (chunk_inside(col0 + static_cast<long long>(j) * g.VW, g.VW, width)) m |= std::uint64_t{1} << j;
  }
  return m;
}

/// Window rows of thread row Y that lie in the image.
std::uint64_t window_rowmask(const Geometry& g, long long Y, int height) {
  std::uint64_t m = 0;
  for (int i = 0; i < g.window_rows; ++i) {
    if (row_inside(Y * g.OY - g.R + i, height)) m |= std::uint64_t{1} << i;
  }
  return m;
}

int popcount(std::uint64_t v) {
  int n = 0;
  for (; v; v &= v - 1) ++n;
  return n;
}

/// Whether block column bx (row by) runs the unchecked body along x (along y): the kernel's
/// `interior` test, one axis at a time.
bool x_interior(const Geometry& g, long long bx, int width) {
  const long long bx0 = bx * g.BX * g.OX - static_cast<long long>(g.left) * g.VW;
  return bx0 >= 0 && bx0 + static_cast<long long>(g.BX - 1) * g.OX + static_cast<long long>(g.chunks) * g.VW <= width;
}
bool y_interior(const Geometry& g, long long by, int height) {
  const long long by0 = by * g.BY * g.OY;
  return by0 - g.R >= 0 && by0 + static_cast<long long>(g.BY) * g.OY - 1 + g.RR < height;
}

/// Lanes agree at a test when every lane that reaches it takes the same way.
class Agreement {
 public:
  void see(long long value) {
    if (!seen_) first_ = value, seen_ = true;
    else if (value != first_) split_ = true;
  }
  [[nodiscard]] bool split() const { return split_; }

 private:
  long long first_ = 0;
  bool seen_ = false, split_ = false;
};

/// Whether warp `w` of block (bx, by) has lanes that disagree at a boundary test, and whether at
/// the early return (a branch). `checked`: the block runs the body with tests.
std::pair<bool, bool> warp_divergence(const Geometry& g, const TileConfig& c, int height, int width, long long bx,
                                      long long by, int w, bool checked) {
  const bool early_return = c.filter == FilterPath::constant && c.input == InputPath::global;
  Agreement leave, load_rows, load_cols_hi, load_cols_lo, rows_stored, cols_stored;
  std::vector<Agreement> tile_loop;
  const int threads = g.BX * g.BY;
  const int total = g.tile_rows * g.tile_chunks;
  const int steps = (total + threads - 1) / threads;
  if (c.input == InputPath::shared) tile_loop.resize(static_cast<std::size_t>(steps));
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const int tid = w * kWarpSize + lane;
    const long long X = bx * g.BX + tid % g.BX;
    const long long Y = by * g.BY + tid / g.BX;
    const long long x0 = X * g.OX, y0 = Y * g.OY;
    if (c.input == InputPath::shared) {
      // The tile loop: idx < TOTAL in every block, the chunk's inside test in checked ones.
      const long long gx0 = bx * g.BX * g.OX - static_cast<long long>(g.left) * g.VW;
      const long long gy0 = by * g.BY * g.OY - g.R;
      for (int it = 0; it < steps; ++it) {
        const int idx = tid + it * threads;
        long long outcome = idx < total ? 1 : 0;
        if (idx < total && checked) {
          const int tr = idx / g.tile_chunks, tc = idx % g.tile_chunks;
          outcome += row_inside(gy0 + tr, height) && chunk_inside(gx0 + static_cast<long long>(tc) * g.VW, g.VW, width);
        }
        tile_loop[static_cast<std::size_t>(it)].see(outcome);
      }
    }
    if (!checked) continue;
    const bool active = x0 < width && y0 < height;
    if (early_return) {
      leave.see(active);
      if (!active) continue;
    }
    if (c.input == InputPath::global) {
      // (row i in, chunk j in) for every (i, j): the lanes agree iff they load the same chunks.
      const std::uint64_t rows = window_rowmask(g, Y, height);
      const std::uint64_t cols = window_colmask(g, X, width);
      const bool none = rows == 0 || cols == 0;
      load_rows.see(none ? 0 : static_cast<long long>(rows));
      load_cols_hi.see(none ? 0 : static_cast<long long>(cols >> 1));  // 64 bits in two parts
      load_cols_lo.see(none ? 0 : static_cast<long long>(cols & 1));
    }
    // Stores: rows until the first one past the image, then chunks wholly inside.
    const long long stored_rows = std::clamp<long long>(height - y0, 0, g.OY);
    rows_stored.see(stored_rows);
    if (stored_rows > 0) {
      long long chunks = 0;
      for (int j = 0; j < g.OX / g.VW; ++j) chunks += x0 + static_cast<long long>(j) * g.VW + g.VW <= width;
      cols_stored.see(chunks);
    }
  }
  bool any = leave.split() || load_rows.split() || load_cols_hi.split() || load_cols_lo.split() || rows_stored.split() || cols_stored.split();
  for (const Agreement& a : tile_loop) any = any || a.split();
  return {any, leave.split()};
}

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

/// Σ over the n outputs of one axis of the taps (of k, anchored at r) inside [0, n).
long long axis_taps(int n, int k) {
  const int r = (k - 1) / 2;
  long long total = 0;
  for (int p = 0; p < k; ++p) {
    const long long lo = std::max(0, r - p), hi = std::min<long long>(n, static_cast<long long>(n) + r - p);
    total += std::max(0LL, hi - lo);
  }
  return total;
}

/// The configuration and image checked; `vec` as the launcher takes it. @throws std::invalid_argument
bool checked_vector_path(const TileConfig& c, int height, int width, bool vec) {
  if (const std::string why = c.check(); !why.empty()) {
    throw std::invalid_argument("analysis: lab 07 configuration " + c.key() + ": " + why);
  }
  if (height < 1 || width < 1) {
    throw std::invalid_argument(fmt::format("analysis: image {}x{}: height and width must be >= 1", height, width));
  }
  vec = vec && c.vector_width() > 1;
  if (vec && width % c.vector_width() != 0) {
    throw std::invalid_argument(fmt::format("analysis: width {} is not a multiple of the vector width {}: the "
                                            "launcher takes the scalar path",
                                            width, c.vector_width()));
  }
  return vec;
}

/// The grid and its threads, and the untiled kernel's loads (lab 01's count) to compare against.
void count_grid(const Geometry& g, RegisterTilingAnalysis& a) {
  a.vw = g.VW;
  a.chunks = g.chunks;
  a.row_floats = g.chunks * g.VW;
  a.window_rows = g.window_rows;
  a.grid_x = ceil_div(a.width, static_cast<long long>(g.BX) * g.OX);
  a.grid_y = ceil_div(a.height, static_cast<long long>(g.BY) * g.OY);
  a.blocks = a.grid_x * a.grid_y;
  a.threads = a.blocks * g.BX * g.BY;
  a.warps = a.threads / kWarpSize;
  a.outputs = static_cast<long long>(a.height) * a.width;
  a.untiled_loads = axis_taps(a.width, g.K) * axis_taps(a.height, g.K);
}

/// Whether a thread whose first output is past the image leaves before its loads: on the
/// global path with the constant filter only (the shfl path needs every lane at each
/// __shfl_sync; the shared path, every thread at the tile's barrier).
bool returns_early(const TileConfig& c) { return c.filter == FilterPath::constant && c.input == InputPath::global; }

/// The FMAs of the threads that stay past the early return (all of them where there is none).
void count_fmas(const Geometry& g, RegisterTilingAnalysis& a) {
  const bool early_return = returns_early(a.config);
  long long stay_x = 0, stay_y = 0;  // per axis
  for (long long X = 0; X < a.grid_x * g.BX; ++X) stay_x += !early_return || X * g.OX < a.width;
  for (long long Y = 0; Y < a.grid_y * g.BY; ++Y) stay_y += !early_return || Y * g.OY < a.height;
  a.fmas = stay_x * stay_y * g.OX * g.OY * static_cast<long long>(g.K) * g.K;
}

/// The compiled loads: a chunk's load narrowed to the smallest naturally aligned vector that
/// holds the floats its row's FMAs use (window columns -R .. OX-1+RR around x0). narrowed[j]
/// is chunk j's width in floats (0: unused).
std::vector<int> narrowed_chunks(const Geometry& g) {
  std::vector<int> narrowed(static_cast<std::size_t>(g.chunks));
  for (int j = 0; j < g.chunks; ++j) {
    const int first = j * g.VW - g.left * g.VW;  // chunk j's columns relative to x0
    const int lo = std::max(first, -g.R) - first, hi = std::min(first + g.VW, g.OX + g.RR) - first;
    int size = 0;
    if (hi > lo) {
      for (size = 1; lo / size != (hi - 1) / size;) size *= 2;
    }
    narrowed[static_cast<std::size_t>(j)] = size;
  }
  return narrowed;
}

/// Global→register: each staying thread loads its window's chunks that lie in the image.
void count_global_loads(const Geometry& g, RegisterTilingAnalysis& a) {
  const bool early_return = returns_early(a.config);
  const std::vector<int> narrowed = narrowed_chunks(g);
  long long cols = 0, rows = 0, narrowed_cols = 0;  // Σ chunks in, Σ rows in, over the threads that stay
  for (long long X = 0; X < a.grid_x * g.BX; ++X) {
    if (early_return && X * g.OX >= a.width) continue;
    const std::uint64_t m = window_colmask(g, X, a.width);
    cols += popcount(m);
    for (int j = 0; j < g.chunks; ++j) narrowed_cols += (m >> j) & 1 ? narrowed[static_cast<std::size_t>(j)] : 0;
  }
  for (long long Y = 0; Y < a.grid_y * g.BY; ++Y) {
    if (!early_return || Y * g.OY < a.height) rows += popcount(window_rowmask(g, Y, a.height));
  }
  a.input_load_instructions = cols * rows;
  a.compiled_input_loads = narrowed_cols * rows;
}

/// Shared→register: each block loads its tile's chunks that lie in the image, whole, into
/// shared memory; every thread reads its window from there.
void count_shared_loads(const Geometry& g, RegisterTilingAnalysis& a) {
  long long cols = 0, rows = 0;  // Σ over blocks of the tile's chunks and rows in the image
  for (long long bx = 0; bx < a.grid_x; ++bx) {
    const long long gx0 = bx * g.BX * g.OX - static_cast<long long>(g.left) * g.VW;
    for (int tc = 0; tc < g.tile_chunks; ++tc) cols += chunk_inside(gx0 + static_cast<long long>(tc) * g.VW, g.VW, a.width);
  }
  for (long long by = 0; by < a.grid_y; ++by) {
    for (int tr = 0; tr < g.tile_rows; ++tr) rows += row_inside(by * g.BY * g.OY - g.R + tr, a.height);
  }
  a.input_load_instructions = cols * rows;
  a.shared_stores = a.blocks * g.tile_rows * g.tile_chunks * g.VW;
  a.shared_loads = a.threads * g.window_rows * g.chunks * g.VW;
}

/// Input and mask loads.
void count_loads(const Geometry& g, RegisterTilingAnalysis& a) {
  const TileConfig& c = a.config;
  if (c.input == InputPath::global) {
    count_global_loads(g, a);
  } else {
    count_shared_loads(g, a);
  }
  a.input_loads = a.input_load_instructions * g.VW;
  if (c.input == InputPath::shared) a.compiled_input_loads = a.input_loads;  // whole chunks go to shared memory
  if (c.filter == FilterPath::shfl) {
    // Every lane of a warp covers one of 32 consecutive tap indices (threads are whole warps).
    a.mask_loads = a.warps * static_cast<long long>(g.K) * g.K * (c.rows == RowLoop::rolled ? g.OY : 1);
  }
}

/// One thread's patch: its registers at least, and its floats and load instructions per FMA.
void count_patch(const Geometry& g, RegisterTilingAnalysis& a) {
  const TileConfig& c = a.config;
  const long long taps = static_cast<long long>(g.K) * g.K;
  const int shfl_regs = c.filter != FilterPath::shfl ? 0 : c.rows == RowLoop::rolled ? 2 * g.OY : (g.K * g.K + 31) / 32;
  a.patch_registers = g.OX * g.OY + a.row_floats * (c.rows == RowLoop::rolled ? 2 : 1) + shfl_regs;
  const double fmas_per_thread = static_cast<double>(g.OX) * g.OY * static_cast<double>(taps);
  a.floats_per_fma = static_cast<double>(g.window_rows) * a.row_floats / fmas_per_thread;
  a.load_instructions_per_fma = static_cast<double>(g.window_rows) * g.chunks / fmas_per_thread;
  a.interior_reduction = c.input == InputPath::global
                             ? 1.0 / a.floats_per_fma
                             : static_cast<double>(taps) * g.BX * g.OX * g.BY * g.OY /
                                   (static_cast<double>(g.tile_rows) * g.tile_chunks * g.VW);
}

/// Block columns (or rows) that behave alike: along an axis every block that passes the
/// kernel's interior test is one class of `count` blocks; the others are one each.
struct AxisClass {
  long long index;
  long long count;
  bool interior;
};

template <class Interior>
std::vector<AxisClass> axis_classes(long long blocks, Interior interior_at) {
  std::vector<AxisClass> out;
  long long inner = 0, first_inner = -1;
  for (long long b = 0; b < blocks; ++b) {
    if (interior_at(b)) {
      if (first_inner < 0) first_inner = b;
      ++inner;
    } else {
      out.push_back({b, 1, false});
    }
  }
  if (inner > 0) out.push_back({first_inner, inner, true});
  return out;
}

/// Divergence: one block of each class of block columns × rows walked warp by warp.
void count_divergence(const Geometry& g, RegisterTilingAnalysis& a) {
  const auto xs = axis_classes(a.grid_x, [&](long long b) { return x_interior(g, b, a.width); });
  const auto ys = axis_classes(a.grid_y, [&](long long b) { return y_interior(g, b, a.height); });
  const int warps_per_block = g.BX * g.BY / kWarpSize;
  for (const AxisClass& cy : ys) {
    for (const AxisClass& cx : xs) {
      const bool checked = !(cx.interior && cy.interior);
      if (!checked) a.interior_blocks += cx.count * cy.count;
      long long any = 0, branch = 0;
      for (int w = 0; w < warps_per_block; ++w) {
        const auto [d, b] = warp_divergence(g, a.config, a.height, a.width, cx.index, cy.index, w, checked);
        any += d;
        branch += b;
      }
      a.divergent_warps += any * cx.count * cy.count;
      a.divergent_warps_branch += branch * cx.count * cy.count;
    }
  }
}

}  // namespace

double RegisterTilingAnalysis::reduction() const {
  if (input_loads == 0) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(untiled_loads) / static_cast<double>(input_loads);
}

double RegisterTilingAnalysis::global_load_bytes() const {
  return kBytesPerFloat * static_cast<double>(compiled_input_loads + mask_loads);
}

std::string RegisterTilingAnalysis::describe() const {
  return fmt::format("lab07 K={} {} on {}×{} ({}) grid {}×{}", config.mask_width, config.describe(), height, width,
                     vw == 4 ? "float4 loads" : vw == 2 ? "float2 loads" : "scalar loads", grid_x, grid_y);
}

bool lab07_vector_path(const TileConfig& config, int width) {
  const int vw = config.vector_width();
  return vw > 1 && width % vw == 0;
}

RegisterTilingAnalysis analyze_register_tiling(const TileConfig& c, int height, int width, bool vec) {
  RegisterTilingAnalysis a;
  a.config = c;
  a.height = height;
  a.width = width;
  a.vec = checked_vector_path(c, height, width, vec);
  const Geometry g(c, a.vec);
  count_grid(g, a);
  count_fmas(g, a);
  count_loads(g, a);
  count_patch(g, a);
  count_divergence(g, a);
  return a;
}

}  // namespace convlab::analysis
