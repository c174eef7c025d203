// The kernels of labs 01–05 executed thread by thread on the CPU (see analysis_simulator.hpp).
//
// Each kernel is written the way the CUDA solution is, with blockIdx/threadIdx replaced by
// loop variables. Branch outcomes are recorded per (warp, branch site, dynamic instance):
// threads of one warp that reach the same site in the same iteration execute it together, so
// if they disagree the warp diverges there.
#include "analysis_simulator.hpp"

#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "convlab/ceil_div.hpp"

namespace convlab::testing {

namespace {

using analysis::Config;
using analysis::Strategy;

enum Site { kLoadLoop, kLoadGhost, kGuard, kTapInside, kTapCore, kTapHalo };

bool is_load_site(int site) { return site == kLoadLoop || site == kLoadGhost; }

/// Records the branch directions of every warp of one block.
class BranchLog {
 public:
  void branch(int tid, int site, long long instance, bool taken) {
    auto& bits = seen_[{tid / analysis::kWarpSize, site, instance}];
    bits |= taken ? 1 : 2;
  }
  /// Warps divergent in the load phase, the compute phase, and either.
  void count(long long& load, long long& compute, long long& any) const {
    std::map<int, std::pair<bool, bool>> per_warp;
    for (const auto& [key, bits] : seen_) {
      if (bits != 3) continue;
      auto& w = per_warp[std::get<0>(key)];
      (is_load_site(std::get<1>(key)) ? w.first : w.second) = true;
    }
    for (const auto& [warp, w] : per_warp) {
      load += w.first;
      compute += w.second;
      any += w.first || w.second;
    }
  }

 private:
  std::map<std::tuple<int, int, long long>, int> seen_;
};

struct Kernel {
  const Config& c;
  const std::vector<double>& N;
  const std::vector<double>& M;
  std::vector<double>& P;
  int H, W, KX, KY, RX, RY;
  SimResult res;
  BranchLog log;
  bool ghost_seen = false;

  Kernel(const Config& config, const std::vector<double>& image, const std::vector<double>& mask,
         std::vector<double>& out)
      : c(config), N(image), M(mask), P(out), H(config.height), W(config.width),
        KX(config.mask_x()), KY(config.mask_y()), RX((config.mask_x() - 1) / 2),
        RY((config.mask_y() - 1) / 2) {}

  bool inside(long long row, long long col) const { return row >= 0 && row < H && col >= 0 && col < W; }
  double load_global(long long row, long long col) {
    ++res.counts.global_input_loads;
    return N[row * W + col];
  }
  double mask_at(int p, int q) const { return M[p * KX + q]; }
  // Records that output `row` of this block is computed, for the per-row breakdown.
  void untiled_tap(int out_row_local, long long row, long long col) {
    if (!inside(row, col)) {
      ghost_seen = true;
      return;
    }
    ++res.counts.untiled_equivalent;
    if (static_cast<int>(res.untiled_per_row.size()) <= out_row_local) {
      res.untiled_per_row.resize(out_row_local + 1, 0);
    }
    ++res.untiled_per_row[out_row_local];
  }

  // ---- labs 01 and 02 ----
  void untiled(int bx, int by) {
    const int BX = c.block_x, BY = c.block_y;
    // Lab 01 reads M only for in-image taps; the warp issues the load once for its lanes.
    std::set<std::tuple<int, int, int>> mask_loads_issued;  // (warp, p, q)
    for (int ty = 0; ty < BY; ++ty) {
      for (int tx = 0; tx < BX; ++tx) {
        const int tid = tx + ty * BX;
        const long long row = static_cast<long long>(by) * BY + ty;
        const long long col = static_cast<long long>(bx) * BX + tx;
        const bool active = row < H && col < W;
        log.branch(tid, kGuard, 0, active);
        if (!active) continue;
        ++res.counts.outputs;
        double sum = 0;
        for (int p = 0; p < KY; ++p) {
          for (int q = 0; q < KX; ++q) {
            const long long r = row - RY + p, s = col - RX + q;
            const bool in = inside(r, s);
            if (c.strategy == Strategy::untiled_global_mask && in) mask_loads_issued.insert({tid / 32, p, q});
            log.branch(tid, kTapInside, p * KX + q, in);
            untiled_tap(ty, r, s);
            if (in) sum += load_global(r, s) * mask_at(p, q);
          }
        }
        P[row * W + col] = sum;
      }
    }
    res.counts.global_mask_loads += static_cast<long long>(mask_loads_issued.size());
  }

  // ---- lab 03: strategy 1 ----
  void tiled1(int bx, int by) {
    const int TX = c.tile_x, TY = c.tile_y;
    const int INX = TX + KX - 1, INY = TY + KY - 1;
    const int nt = TX * TY;
    std::vector<double> tile(static_cast<size_t>(INX) * INY);
    for (int tid = 0; tid < nt; ++tid) {  // load phase
      long long iter = 0;
      for (int i = tid;; i += nt, ++iter) {
        const bool more = i < INX * INY;
        log.branch(tid, kLoadLoop, iter, more);
        if (!more) break;
        const int tr = i / INX, tc = i % INX;
        const long long gr = static_cast<long long>(by) * TY - RY + tr;
        const long long gc = static_cast<long long>(bx) * TX - RX + tc;
        const bool in = inside(gr, gc);
        log.branch(tid, kLoadGhost, iter, in);
        if (!in) ghost_seen = true;
        tile[tr * INX + tc] = in ? load_global(gr, gc) : 0.0;
        ++res.counts.shared_stores;
      }
    }
    for (int tid = 0; tid < nt; ++tid) {  // compute phase, after __syncthreads()
      const int tx = tid % TX, ty = tid / TX;
      const long long row = static_cast<long long>(by) * TY + ty;
      const long long col = static_cast<long long>(bx) * TX + tx;
      const bool active = row < H && col < W;
      log.branch(tid, kGuard, 0, active);
      if (!active) continue;
      ++res.counts.outputs;
      double sum = 0;
      for (int p = 0; p < KY; ++p) {
        for (int q = 0; q < KX; ++q) {
          ++res.counts.shared_loads;
          sum += tile[(ty + p) * INX + tx + q] * mask_at(p, q);
          untiled_tap(ty, row - RY + p, col - RX + q);
        }
      }
      P[row * W + col] = sum;
    }
  }

  // ---- lab 04: strategy 2 ----
  void tiled2(int bx, int by) {
    const int IX = c.tile_x, IY = c.tile_y;
    const int OX = IX - KX + 1, OY = IY - KY + 1;
    std::vector<double> tile(static_cast<size_t>(IX) * IY);
    for (int ty = 0; ty < IY; ++ty) {
      for (int tx = 0; tx < IX; ++tx) {
        const int tid = tx + ty * IX;
        const long long gr = static_cast<long long>(by) * OY + ty - RY;
        const long long gc = static_cast<long long>(bx) * OX + tx - RX;
        const bool in = inside(gr, gc);
        log.branch(tid, kLoadGhost, 0, in);
        if (!in) ghost_seen = true;
        tile[ty * IX + tx] = in ? load_global(gr, gc) : 0.0;
        ++res.counts.shared_stores;
      }
    }
    for (int ty = 0; ty < IY; ++ty) {
      for (int tx = 0; tx < IX; ++tx) {
        const int tid = tx + ty * IX;
        const int ox = tx - RX, oy = ty - RY;
        const long long row = static_cast<long long>(by) * OY + oy;
        const long long col = static_cast<long long>(bx) * OX + ox;
        const bool active = ox >= 0 && ox < OX && oy >= 0 && oy < OY && row < H && col < W;
        log.branch(tid, kGuard, 0, active);
        if (!active) continue;
        ++res.counts.outputs;
        double sum = 0;
        for (int p = 0; p < KY; ++p) {
          for (int q = 0; q < KX; ++q) {
            ++res.counts.shared_loads;
            sum += tile[(oy + p) * IX + ox + q] * mask_at(p, q);
            untiled_tap(oy, row - RY + p, col - RX + q);
          }
        }
        P[row * W + col] = sum;
      }
    }
  }

  // ---- lab 05: strategy 3 ----
  void tiled3(int bx, int by) {
    const int TX = c.tile_x, TY = c.tile_y;
    std::vector<double> tile(static_cast<size_t>(TX) * TY);
    for (int ty = 0; ty < TY; ++ty) {
      for (int tx = 0; tx < TX; ++tx) {
        const int tid = tx + ty * TX;
        const long long row = static_cast<long long>(by) * TY + ty;
        const long long col = static_cast<long long>(bx) * TX + tx;
        const bool in = inside(row, col);
        log.branch(tid, kLoadGhost, 0, in);
        tile[ty * TX + tx] = in ? load_global(row, col) : 0.0;
        ++res.counts.shared_stores;
      }
    }
    for (int ty = 0; ty < TY; ++ty) {
      for (int tx = 0; tx < TX; ++tx) {
        const int tid = tx + ty * TX;
        const long long row = static_cast<long long>(by) * TY + ty;
        const long long col = static_cast<long long>(bx) * TX + tx;
        const bool active = row < H && col < W;
        log.branch(tid, kGuard, 0, active);
        if (!active) continue;
        ++res.counts.outputs;
        double sum = 0;
        for (int p = 0; p < KY; ++p) {
          for (int q = 0; q < KX; ++q) {
            const int sr = ty - RY + p, sc = tx - RX + q;
            const long long gr = row - RY + p, gc = col - RX + q;
            const bool core = sr >= 0 && sr < TY && sc >= 0 && sc < TX;
            log.branch(tid, kTapCore, p * KX + q, core);
            untiled_tap(ty, gr, gc);
            double v = 0;
            if (core) {
              ++res.counts.shared_loads;
              v = tile[sr * TX + sc];
            } else {
              const bool in = inside(gr, gc);
              log.branch(tid, kTapHalo, p * KX + q, in);
              if (in) v = load_global(gr, gc);
            }
            sum += v * mask_at(p, q);
          }
        }
        P[row * W + col] = sum;
      }
    }
  }
};

}  // namespace

SimResult simulate_block(const Config& c, int bx, int by, const std::vector<double>& image,
                         const std::vector<double>& mask, std::vector<double>& out) {
  Kernel k(c, image, mask, out);
  switch (c.strategy) {
    case Strategy::untiled_global_mask:
    case Strategy::untiled: k.untiled(bx, by); break;
    case Strategy::tiled1: k.tiled1(bx, by); break;
    case Strategy::tiled2: k.tiled2(bx, by); break;
    case Strategy::tiled3: k.tiled3(bx, by); break;
  }
  SimResult r = std::move(k.res);
  r.counts.blocks = 1;
  r.counts.threads = c.threads_per_block();
  r.counts.warps = ceil_div(r.counts.threads, static_cast<long long>(analysis::kWarpSize));
  k.log.count(r.counts.divergent_warps_load, r.counts.divergent_warps_compute,
              r.counts.divergent_warps_any);
  r.interior = !k.ghost_seen &&
               r.counts.outputs == static_cast<long long>(c.out_tile_x()) * c.out_tile_y();
  return r;
}

SimResult simulate_grid(const Config& c, const std::vector<double>& image,
                        const std::vector<double>& mask, std::vector<double>& out) {
  SimResult total;
  for (int by = 0; by < c.grid_y(); ++by) {
    for (int bx = 0; bx < c.grid_x(); ++bx) {
      total.counts += simulate_block(c, bx, by, image, mask, out).counts;
    }
  }
  return total;
}

std::vector<double> direct_convolution(const Config& c, const std::vector<double>& image,
                                       const std::vector<double>& mask) {
  const int H = c.height, W = c.width, KX = c.mask_x(), KY = c.mask_y();
  const int RX = (KX - 1) / 2, RY = (KY - 1) / 2;
  std::vector<double> out(static_cast<size_t>(H) * W, 0.0);
  for (int i = 0; i < H; ++i) {
    for (int j = 0; j < W; ++j) {
      double sum = 0;
      for (int p = 0; p < KY; ++p) {
        for (int q = 0; q < KX; ++q) {
          const int r = i - RY + p, s = j - RX + q;
          if (r >= 0 && r < H && s >= 0 && s < W) sum += image[r * W + s] * mask[p * KX + q];
        }
      }
      out[i * W + j] = sum;
    }
  }
  return out;
}

}  // namespace convlab::testing
