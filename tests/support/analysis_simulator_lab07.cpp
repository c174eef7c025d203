// Lab 07's register-tiled kernel executed thread by thread on the CPU (analysis_simulator.hpp).
//
// Written from register_tiling_kernel.cuh, loop for loop, with blockIdx/threadIdx replaced by
// loop variables; it shares no code with the model (analysis_register_tiling.cpp), which counts
// with per-axis sums. Branch outcomes are logged per (warp, test site, instance) as in
// analysis_simulator.cpp: lanes of a warp that reach one test in one instance and disagree
// make the warp divergent. The mask loads' lane tests (every warp on the shfl path) are not
// boundary tests and are not logged, as in the model.
#include <map>
#include <stdexcept>
#include <tuple>

#include "analysis_simulator.hpp"

namespace convlab::testing {

namespace {

using lab07::FilterPath;
using lab07::InputPath;
using lab07::RowLoop;

enum Site { kExit, kLoad, kStoreRow, kStoreCol, kTileLoop, kTileOk };

class WarpLog {
 public:
  void branch(long long warp, int site, long long instance, bool taken) {
    seen_[{warp, site, instance}] |= taken ? 1 : 2;
  }
  void count(long long& any, long long& at_exit) const {
    std::map<long long, std::pair<bool, bool>> warps;
    for (const auto& [key, bits] : seen_) {
      if (bits != 3) continue;
      auto& w = warps[std::get<0>(key)];
      w.first = true;
      if (std::get<1>(key) == kExit) w.second = true;
    }
    for (const auto& [warp, w] : warps) {
      any += w.first;
      at_exit += w.second;
    }
  }

 private:
  std::map<std::tuple<long long, int, long long>, int> seen_;
};

}  // namespace

RegisterTilingSim simulate_register_tiling(const lab07::TileConfig& c, int height, int width, bool vec,
                                           const std::vector<double>& image, const std::vector<double>& mask,
                                           std::vector<double>& out) {
  const int K = c.mask_width, OX = c.out_x, OY = c.out_y, BX = c.block_x, BY = c.block_y;
  const int VW = vec ? c.vector_width() : 1;
  const int R = (K - 1) / 2, RR = K - 1 - R;
  const int LEFT = (R + VW - 1) / VW;
  const int CHUNKS = LEFT + (OX - 1 + RR) / VW + 1;
  const int RF = CHUNKS * VW;
  const int WINDOW_OFFSET = LEFT * VW - R;
  const int WINDOW_ROWS = OY + K - 1;
  const int TILE_ROWS = BY * OY + K - 1;
  const int TILE_CHUNKS = LEFT + (BX * OX - 1 + RR) / VW + 1;
  const int TILE_PITCH = (TILE_CHUNKS + 1) * VW;
  const int SHFL_REGS = (K * K + 31) / 32;
  const int THREADS = BX * BY;
  const bool constant_global = c.filter == FilterPath::constant && c.input == InputPath::global;
  const int grid_x = (width + BX * OX - 1) / (BX * OX);
  const int grid_y = (height + BY * OY - 1) / (BY * OY);
  auto N = [&](long long row, long long col) {
    if (row < 0 || row >= height || col < 0 || col >= width) {
      throw std::logic_error("register tiling: a load outside the image");
    }
    return image[static_cast<std::size_t>(row * width + col)];
  };

  RegisterTilingSim sim;
  WarpLog log;
  std::vector<double> tile(static_cast<std::size_t>(TILE_ROWS) * TILE_PITCH);
  for (int by = 0; by < grid_y; ++by) {
    for (int bx = 0; bx < grid_x; ++bx) {
      const long long warp_base = (static_cast<long long>(by) * grid_x + bx) * (THREADS / 32);
      const long long bx0 = static_cast<long long>(bx) * BX * OX - LEFT * VW;
      const long long by0 = static_cast<long long>(by) * BY * OY;
      const bool interior = bx0 >= 0 && bx0 + static_cast<long long>(BX - 1) * OX + CHUNKS * VW <= width &&
                            by0 - R >= 0 && by0 + BY * OY - 1 + RR < height;
      const bool checked = !interior;
      sim.interior_blocks += interior;

      // The shared path's cooperative tile load (all threads, then the barrier).
      if (c.input == InputPath::shared) {
        const int TOTAL = TILE_ROWS * TILE_CHUNKS;
        const long long gx0 = static_cast<long long>(bx) * BX * OX - LEFT * VW;
        const long long gy0 = static_cast<long long>(by) * BY * OY - R;
        for (int tid = 0; tid < THREADS; ++tid) {
          for (int it = 0; it < (TOTAL + THREADS - 1) / THREADS; ++it) {
            const int idx = tid + it * THREADS;
            log.branch(warp_base + tid / 32, kTileLoop, it, idx < TOTAL);
            if (idx >= TOTAL) continue;
            const int tr = idx / TILE_CHUNKS, tc = idx % TILE_CHUNKS;
            const long long gy = gy0 + tr, gx = gx0 + static_cast<long long>(tc) * VW;
            const bool ok = !checked || (gy >= 0 && gy < height && gx >= 0 && gx + VW <= width);
            if (checked) log.branch(warp_base + tid / 32, kTileOk, it, ok);
            if (ok) ++sim.input_load_instructions;
            for (int e = 0; e < VW; ++e) {
              tile[static_cast<std::size_t>(tr * TILE_PITCH + tc * VW + e)] = ok ? N(gy, gx + e) : 0.0;
              ++sim.shared_stores;
              sim.input_loads += ok;
            }
          }
        }
      }

      for (int tid = 0; tid < THREADS; ++tid) {
        const int tx = tid % BX, ty = tid / BX, lane = tid % 32;
        const long long warp = warp_base + tid / 32;
        const long long x0 = (static_cast<long long>(bx) * BX + tx) * OX;
        const long long y0 = (static_cast<long long>(by) * BY + ty) * OY;
        if (checked && constant_global) {
          const bool leave = x0 >= width || y0 >= height;
          log.branch(warp, kExit, 0, leave);
          if (leave) continue;
        }
        if (c.filter == FilterPath::shfl && c.rows == RowLoop::unrolled) {
          for (int j = 0; j < SHFL_REGS; ++j) sim.mask_loads += j * 32 + lane < K * K;
        }
        std::vector<double> acc(static_cast<std::size_t>(OX) * OY, 0.0);
        const long long col0 = x0 - LEFT * VW;
        for (int i = 0; i < WINDOW_ROWS; ++i) {
          std::vector<double> row(static_cast<std::size_t>(RF), 0.0);
          if (c.input == InputPath::global) {
            const long long gy = y0 - R + i;
            for (int j = 0; j < CHUNKS; ++j) {
              const long long gx = col0 + static_cast<long long>(j) * VW;
              const bool ok = !checked || (gy >= 0 && gy < height && gx >= 0 && gx + VW <= width);
              if (checked) log.branch(warp, kLoad, static_cast<long long>(i) * 64 + j, ok);
              if (!ok) continue;
              ++sim.input_load_instructions;
              for (int e = 0; e < VW; ++e) {
                row[static_cast<std::size_t>(j * VW + e)] = N(gy, gx + e);
                ++sim.input_loads;
              }
            }
          } else {
            for (int f = 0; f < RF; ++f) {
              row[static_cast<std::size_t>(f)] = tile[static_cast<std::size_t>((ty * OY + i) * TILE_PITCH + tx * OX + f)];
              ++sim.shared_loads;
            }
          }
          if (c.filter == FilterPath::shfl && c.rows == RowLoop::rolled) {
            for (int oy = 0; oy < OY; ++oy) sim.mask_loads += lane < K && i - oy >= 0 && i - oy < K;
          }
          for (int oy = 0; oy < OY; ++oy) {
            const int p = i - oy;
            if (p < 0 || p >= K) continue;
            for (int q = 0; q < K; ++q) {
              for (int ox = 0; ox < OX; ++ox) {
                acc[static_cast<std::size_t>(oy * OX + ox)] +=
                    row[static_cast<std::size_t>(WINDOW_OFFSET + ox + q)] * mask[static_cast<std::size_t>(p * K + q)];
                ++sim.fmas;
              }
            }
          }
        }
        for (int oy = 0; oy < OY; ++oy) {
          const long long gy = y0 + oy;
          if (checked) log.branch(warp, kStoreRow, oy, gy >= height);
          if (checked && gy >= height) break;
          for (int j = 0; j < OX / VW; ++j) {
            const long long gx = x0 + static_cast<long long>(j) * VW;
            const bool ok = !checked || gx + VW <= width;
            if (checked) log.branch(warp, kStoreCol, static_cast<long long>(oy) * 64 + j, ok);
            if (!ok) continue;
            for (int e = 0; e < VW; ++e) {
              out.at(static_cast<std::size_t>(gy * width + gx + e)) = acc[static_cast<std::size_t>(oy * OX + j * VW + e)];
            }
          }
        }
      }
    }
  }
  log.count(sim.divergent_warps, sim.divergent_warps_branch);
  return sim;
}

}  // namespace convlab::testing
