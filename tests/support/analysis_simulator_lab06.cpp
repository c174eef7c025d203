// Lab 06's three steps executed block by block and thread by thread on the CPU
// (analysis_simulator.hpp), from unroll_gemm.cu, fused_gemm.cu, register_tiled_gemm.cu and
// implicit_gemm.cuh. It shares no code with the model (analysis_im2col.cpp), which multiplies
// per-axis sums; here every load the kernels' loops make is counted one by one.
#include <algorithm>
#include <set>
#include <stdexcept>

#include "analysis_simulator.hpp"

namespace convlab::testing {

namespace {

struct Layer {
  int B, C, M, H, W, K, S, P, D, Ho, Wo, HoWo, Kdim, KK;
  explicit Layer(const ConvLayerShape& s)
      : B(s.batch), C(s.channels), M(s.filters), H(s.height), W(s.width), K(s.mask_width), S(s.stride),
        P(s.padding), D(s.dilation), Ho(s.out_height()), Wo(s.out_width()), HoWo(Ho * Wo),
        Kdim(s.channels * s.mask_width * s.mask_width), KK(s.mask_width * s.mask_width) {}
  // X[b][c][ih][iw] if inside (and its index in X), and whether it is.
  bool tap(int b, int c, int h, int w, int p, int q, const std::vector<double>& x, double* v,
           long long* word = nullptr) const {
    const int ih = h * S - P + p * D, iw = w * S - P + q * D;
    if (ih < 0 || ih >= H || iw < 0 || iw >= W) return false;
    const long long at = ((static_cast<long long>(b) * C + c) * H + ih) * W + iw;
    *v = x.at(static_cast<std::size_t>(at));
    if (word != nullptr) *word = at;
    return true;
  }
};

constexpr int T = lab06::kGemmTileWidth;

// The 16×16 tiled GEMM of steps 1 and 2 for one image: A (rows × inner) from `a_at`, B
// (inner × cols) from `b_at` (each returns whether it loaded, and sets the word it read), C
// written by `store`. A warp is 32 consecutive threads of the block (two rows ty): the words
// its lanes read in one load instruction are counted once each in sim.load_words.
template <class ALoad, class BLoad, class Store>
void tiled_gemm(int rows, int inner, int cols, ALoad a_at, BLoad b_at, Store store, Im2colSim& sim) {
  constexpr int kRowsPerWarp = 32 / T;
  for (int by = 0; by < (rows + T - 1) / T; ++by) {
    for (int bx = 0; bx < (cols + T - 1) / T; ++bx) {
      std::vector<double> sum(T * T, 0.0);
      for (int t = 0; t < (inner + T - 1) / T; ++t) {
        double As[T][T], Bs[T][T];
        std::set<long long> a_words, b_words;  // of the current warp
        for (int ty = 0; ty < T; ++ty) {
          if (ty % kRowsPerWarp == 0) {
            sim.load_words += static_cast<long long>(a_words.size() + b_words.size());
            a_words.clear();
            b_words.clear();
          }
          for (int tx = 0; tx < T; ++tx) {
            const int row = by * T + ty, col = bx * T + tx;
            const int ka = t * T + tx, kb = t * T + ty;
            long long word = 0;
            As[ty][tx] = 0.0;
            if (row < rows && ka < inner && a_at(row, ka, &As[ty][tx], &word)) {
              ++sim.global_loads;
              a_words.insert(word);
            }
            Bs[ty][tx] = 0.0;
            if (kb < inner && col < cols && b_at(kb, col, &Bs[ty][tx], &word)) {
              ++sim.global_loads;
              b_words.insert(word);
            }
          }
        }
        sim.load_words += static_cast<long long>(a_words.size() + b_words.size());
        for (int ty = 0; ty < T; ++ty) {
          for (int tx = 0; tx < T; ++tx) {
            for (int k = 0; k < T; ++k) sum[ty * T + tx] += As[ty][k] * Bs[k][tx];
            sim.fmas += T;
          }
        }
      }
      for (int ty = 0; ty < T; ++ty) {
        for (int tx = 0; tx < T; ++tx) {
          const int row = by * T + ty, col = bx * T + tx;
          if (row < rows && col < cols) {
            store(row, col, sum[ty * T + tx]);
            ++sim.global_stores;
          }
        }
      }
    }
  }
}

}  // namespace

std::vector<double> direct_conv_layer(const ConvLayerShape& s, const std::vector<double>& x,
                                      const std::vector<double>& w) {
  const Layer g(s);
  std::vector<double> y(static_cast<std::size_t>(g.B) * g.M * g.HoWo, 0.0);
  for (int b = 0; b < g.B; ++b) {
    for (int m = 0; m < g.M; ++m) {
      for (int h = 0; h < g.Ho; ++h) {
        for (int ww = 0; ww < g.Wo; ++ww) {
          double sum = 0;
          for (int c = 0; c < g.C; ++c) {
            for (int p = 0; p < g.K; ++p) {
              for (int q = 0; q < g.K; ++q) {
                double v = 0;
                if (g.tap(b, c, h, ww, p, q, x, &v)) sum += v * w[static_cast<std::size_t>(((m * g.C + c) * g.K + p) * g.K + q)];
              }
            }
          }
          y[static_cast<std::size_t>((b * g.M + m) * g.HoWo + h * g.Wo + ww)] = sum;
        }
      }
    }
  }
  return y;
}

Im2colSim simulate_unroll_gemm(const ConvLayerShape& s, int chunk, const std::vector<double>& x,
                               const std::vector<double>& w, std::vector<double>& y) {
  const Layer g(s);
  Im2colSim sim;
  for (int b0 = 0; b0 < g.B; b0 += chunk) {
    const int images = std::min(chunk, g.B - b0);
    // The unroll kernel: one thread per (image, c, h, w), K·K taps each; thread t of the chunk
    // is ((img·C + c)·Ho + h)·Wo + w, and a warp is 32 consecutive t (one load per tap).
    std::vector<double> unrolled(static_cast<std::size_t>(images) * g.Kdim * g.HoWo);
    std::vector<std::set<long long>> warp_words(static_cast<std::size_t>(g.KK));
    auto end_warp = [&] {
      for (std::set<long long>& words : warp_words) {
        sim.load_words += static_cast<long long>(words.size());
        words.clear();
      }
    };
    long long t = 0;
    for (int img = 0; img < images; ++img) {
      for (int c = 0; c < g.C; ++c) {
        for (int h = 0; h < g.Ho; ++h) {
          for (int ww = 0; ww < g.Wo; ++ww, ++t) {
            if (t % 32 == 0) end_warp();
            for (int p = 0; p < g.K; ++p) {
              for (int q = 0; q < g.K; ++q) {
                double v = 0;
                long long word = 0;
                if (g.tap(b0 + img, c, h, ww, p, q, x, &v, &word)) {
                  ++sim.global_loads;
                  warp_words[static_cast<std::size_t>(p * g.K + q)].insert(word);
                }
                unrolled[static_cast<std::size_t>((img * g.Kdim + c * g.KK + p * g.K + q) * g.HoWo + h * g.Wo + ww)] = v;
                ++sim.global_stores;
              }
            }
          }
        }
      }
    }
    end_warp();
    for (int img = 0; img < images; ++img) {
      tiled_gemm(
          g.M, g.Kdim, g.HoWo,
          [&](int m, int k, double* v, long long* word) {
            *word = static_cast<long long>(m) * g.Kdim + k;
            *v = w[static_cast<std::size_t>(*word)];
            return true;
          },
          [&](int k, int n, double* v, long long* word) {
            *word = (static_cast<long long>(img) * g.Kdim + k) * g.HoWo + n;
            *v = unrolled[static_cast<std::size_t>(*word)];
            return true;
          },
          [&](int m, int n, double v) { y[static_cast<std::size_t>(((b0 + img) * g.M + m) * g.HoWo + n)] = v; },
          sim);
    }
  }
  return sim;
}

Im2colSim simulate_fused_gemm(const ConvLayerShape& s, const std::vector<double>& x, const std::vector<double>& w,
                              std::vector<double>& y) {
  const Layer g(s);
  Im2colSim sim;
  for (int b = 0; b < g.B; ++b) {
    tiled_gemm(
        g.M, g.Kdim, g.HoWo,
        [&](int m, int k, double* v, long long* word) {
          *word = static_cast<long long>(m) * g.Kdim + k;
          *v = w[static_cast<std::size_t>(*word)];
          return true;
        },
        [&](int k, int n, double* v, long long* word) {  // the gather: only taps inside X are read
          const int c = k / g.KK, p = (k % g.KK) / g.K, q = k % g.K;
          return g.tap(b, c, n / g.Wo, n % g.Wo, p, q, x, v, word);
        },
        [&](int m, int n, double v) { y[static_cast<std::size_t>((b * g.M + m) * g.HoWo + n)] = v; }, sim);
  }
  return sim;
}

Im2colSim simulate_register_tiled_gemm(const ConvLayerShape& s, const lab06::RegisterTilePlan& plan,
                                       const std::vector<double>& x, const std::vector<double>& w,
                                       std::vector<double>& y) {
  const Layer g(s);
  const int BM = plan.bm, BN = plan.bn, BK = plan.bk;
  const int THREADS = (BM / 8) * (BN / 8), WARPS = THREADS / 32;
  const int A_PER_THREAD = BM * BK / THREADS, B_ROWS = BK / WARPS, B_COLS = BN / 32;
  const int N = g.B * g.HoWo;
  const int k_tiles = (g.Kdim + BK - 1) / BK;
  int splits = std::clamp(plan.splits, 1, k_tiles);
  const int per_split = (k_tiles + splits - 1) / splits;
  splits = (k_tiles + per_split - 1) / per_split;
  std::fill(y.begin(), y.end(), 0.0);
  Im2colSim sim;
  for (int z = 0; z < splits; ++z) {
    for (int by = 0; by < (g.M + BM - 1) / BM; ++by) {
      for (int bx = 0; bx < (N + BN - 1) / BN; ++bx) {
        const int m0 = by * BM, n0 = bx * BN;
        const int kt_begin = z * per_split, kt_end = std::min(k_tiles, kt_begin + per_split);
        if (kt_begin >= kt_end) continue;
        std::vector<double> acc(static_cast<std::size_t>(BM) * BN, 0.0);
        for (int kt = kt_begin; kt < kt_end; ++kt) {
          std::vector<double> As(static_cast<std::size_t>(BK) * BM), Bs(static_cast<std::size_t>(BK) * BN);
          for (int tid = 0; tid < THREADS; ++tid) {
            // SliceLoader::issue: the A copies, then the B copies (gathered from X).
            const int a_k = tid % BK, a_m = tid / BK, lane = tid % 32, warp = tid / 32;
            for (int i = 0; i < A_PER_THREAD; ++i) {
              const int m = m0 + a_m + i * (THREADS / BK), k = kt * BK + a_k;
              const bool ok = m < g.M && k < g.Kdim;
              ++sim.async_copies;
              sim.async_copies_read += ok;
              As[static_cast<std::size_t>(a_k * BM + a_m + i * (THREADS / BK))] =
                  ok ? w[static_cast<std::size_t>(m * g.Kdim + k)] : 0.0;
            }
            for (int r = 0; r < B_ROWS; ++r) {
              const int kr = warp + WARPS * r, k = kt * BK + kr;
              for (int j = 0; j < B_COLS; ++j) {
                const int n = n0 + lane + 32 * j;
                double v = 0;
                bool inside = false;
                if (n < N && k < g.Kdim) {
                  const int b = n / g.HoWo, hw = n % g.HoWo;
                  inside = g.tap(b, k / g.KK, hw / g.Wo, hw % g.Wo, (k % g.KK) / g.K, k % g.K, x, &v);
                }
                ++sim.async_copies;
                sim.async_copies_read += inside;
                Bs[static_cast<std::size_t>(kr * BN + lane + 32 * j)] = inside ? v : 0.0;
              }
            }
          }
          for (int kk = 0; kk < BK; ++kk) {
            for (int i = 0; i < BM; ++i) {
              for (int j = 0; j < BN; ++j) {
                acc[static_cast<std::size_t>(i * BN + j)] +=
                    As[static_cast<std::size_t>(kk * BM + i)] * Bs[static_cast<std::size_t>(kk * BN + j)];
              }
            }
          }
          sim.fmas += static_cast<long long>(THREADS) * 64 * BK;
        }
        for (int i = 0; i < BM && m0 + i < g.M; ++i) {
          for (int j = 0; j < BN && n0 + j < N; ++j) {
            const int n = n0 + j, b = n / g.HoWo;
            y[static_cast<std::size_t>((b * g.M + m0 + i) * g.HoWo + n % g.HoWo)] += acc[static_cast<std::size_t>(i * BN + j)];
            ++sim.global_stores;
          }
        }
      }
    }
  }
  return sim;
}

}  // namespace convlab::testing
