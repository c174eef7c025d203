// Warp divergence of one block, by counting rather than by running threads.
//
// A warp is a contiguous range of linear thread ids [a, b). Every branch of the kernels is a
// test "is (x, y) inside some rectangle" where (x, y) is the thread's position (or, in
// strategy 1's load loop, the tile element it handles). A branch is uniform for the warp iff
// the number of active threads inside the rectangle is 0 or all of them, and counting the
// ids of a range that fall in a rectangle is O(1) (count_in_range below). So the whole block
// costs O(warps · K²) however large the image is.
#include <algorithm>

#include "analysis_geometry.hpp"

namespace convlab::analysis::detail {

namespace {

/// Half-open rectangle [x0, x1) × [y0, y1) of positions in a row-major grid.
struct Rect {
  long long x0, x1, y0, y1;
};

Rect intersect(const Rect& a, const Rect& b) {
  return {std::max(a.x0, b.x0), std::min(a.x1, b.x1), std::max(a.y0, b.y0), std::min(a.y1, b.y1)};
}

/// Rectangle shifted by (-dx, -dy): positions t with t + (dx, dy) inside `a`.
Rect shifted_back(const Rect& a, long long dx, long long dy) {
  return {a.x0 - dx, a.x1 - dx, a.y0 - dy, a.y1 - dy};
}

/// How many linear indices i in [0, end) of a grid `width` wide (i = x + y·width) lie in `r`.
long long count_below(long long end, long long width, const Rect& r) {
  const long long full_rows = end / width;
  const long long rest = end % width;
  const long long row_width = overlap(0, width, r.x0, r.x1);
  long long n = overlap(0, full_rows, r.y0, r.y1) * row_width;
  if (full_rows >= r.y0 && full_rows < r.y1) n += overlap(0, rest, r.x0, r.x1);
  return n;
}

/// How many linear indices in [a, b) lie in `r`.
long long count_in_range(long long a, long long b, long long width, const Rect& r) {
  if (b <= a) return 0;
  return count_below(b, width, r) - count_below(a, width, r);
}

/// A branch is divergent when some but not all of the `active` threads take it.
bool split(long long taken, long long active) { return taken > 0 && taken < active; }

/// Load phase of strategy 1: `for (i = tid; i < E; i += nt)` over the span_x × span_y tile,
/// with the in-image test inside the loop.
bool tiled1_load_divergent(long long a, long long b, long long nt, const BlockWindows& w) {
  const long long E = static_cast<long long>(w.x.span) * w.y.span;
  const Rect inside{w.x.in_lo, w.x.in_hi, w.y.in_lo, w.y.in_hi};
  for (long long j = 0; a + j * nt < E; ++j) {
    const long long first = a + j * nt;        // element of the warp's first thread
    const long long last = b - 1 + j * nt;     // element of its last thread
    if (last >= E) return true;                // the loop test: some threads stop here, some go on
    if (split(count_in_range(first, last + 1, w.x.span, inside), last + 1 - first)) return true;
  }
  return false;
}

}  // namespace

Divergence block_divergence(const Config& c, const BlockWindows& w) {
  const AxisWindow& x = w.x;
  const AxisWindow& y = w.y;
  const long long bw = c.threads_x();  // threads are laid out bw wide
  const long long nt = c.threads_per_block();

  // The threads that compute: thread (t + off) computes output t of the tile for t < valid.
  // Strategy 2 centres its output tile in the block (offset r); the others start at 0.
  const long long off_x = c.strategy == Strategy::tiled2 ? x.r : 0;
  const long long off_y = c.strategy == Strategy::tiled2 ? y.r : 0;
  const Rect active{off_x, off_x + x.valid, off_y, off_y + y.valid};
  // In thread coordinates (strategies other than 2), tap (p,q) of thread t reads footprint
  // position t + p; footprint positions inside the image, and inside strategy 3's core:
  const Rect image{x.in_lo, x.in_hi, y.in_lo, y.in_hi};
  const Rect core{x.r, x.r + x.out_tile, y.r, y.r + y.out_tile};

  Divergence d;
  for (long long a = 0; a < nt; a += kWarpSize) {
    const long long b = std::min(a + kWarpSize, nt);
    const long long lanes = b - a;

    bool load = false;
    switch (c.strategy) {
      case Strategy::untiled_global_mask:
      case Strategy::untiled:
        break;  // no load phase
      case Strategy::tiled1:
        load = tiled1_load_divergent(a, b, nt, w);
        break;
      case Strategy::tiled2:  // thread (tx,ty) loads footprint position (tx,ty)
        load = split(count_in_range(a, b, bw, image), lanes);
        break;
      case Strategy::tiled3:  // thread (tx,ty) loads its own pixel, in the image iff it has an output
        load = split(count_in_range(a, b, bw, {0, x.valid, 0, y.valid}), lanes);
        break;
    }

    // Compute phase: first the guard "does this thread have an output".
    const long long computing = count_in_range(a, b, bw, active);
    bool compute = split(computing, lanes);
    if (!compute && computing > 0 && (c.untiled() || c.strategy == Strategy::tiled3)) {
      // Then, per tap, the untiled in-image test, or strategy 3's core / halo / ghost choice.
      for (int q = 0; q < y.k && !compute; ++q) {
        for (int p = 0; p < x.k && !compute; ++p) {
          const Rect in_image = intersect(active, shifted_back(image, p, q));
          const long long n_image = count_in_range(a, b, bw, in_image);
          if (c.untiled()) {
            compute = split(n_image, computing);
          } else {
            const long long n_core = count_in_range(a, b, bw, intersect(active, shifted_back(core, p, q)));
            const long long n_core_image =
                count_in_range(a, b, bw, intersect(in_image, shifted_back(core, p, q)));
            const long long n_halo = n_image - n_core_image;  // global loads
            const long long n_ghost = computing - n_core - n_halo;
            compute = !(n_core == computing || n_halo == computing || n_ghost == computing);
          }
        }
      }
    }
    d.load += load;
    d.compute += compute;
    d.any += load || compute;
  }
  return d;
}

}  // namespace convlab::analysis::detail
