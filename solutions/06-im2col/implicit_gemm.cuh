/// @file implicit_gemm.cuh
/// @brief What step 3 (register_tiled_gemm.cu) and the TF32 stretch step (tf32_gemm.cu) share:
///        the layer's geometry, the per-column and per-row decoding of the conceptual unrolled
///        matrix, asynchronous global→shared copies, and the slice loader built from them.
///
/// The conceptual unrolled matrix of the whole batch has rows k = c·K·K + p·K + q (C·K·K of them)
/// and columns n = b·Ho·Wo + h·Wo + w (B·Ho·Wo of them); element (k, n) is
/// X[b][c][h·S-P+p·D][w·S-P+q·D], zero outside X. A kernel that gathers a tile of it decodes each
/// of its columns once (ColumnOrigin) and walks the rows with a cursor (RowCursor), so the inner
/// loop does no division.
#pragma once

#include <climits>
#include <stdexcept>

#include "convlab/lab_api.cuh"

namespace convlab::lab06::gemm {

// The layer as the kernels see it (ints, derived sizes precomputed on the host).
struct Geometry {
  int C, H, W, K, S, P, D;  // input channels and size, mask width, stride, padding, dilation
  int M, Ho, Wo;            // filters, output size
  int HW, CHW, KK;          // H·W, C·H·W, K·K
  int HoWo;                 // GEMM columns per image
  int Kdim;                 // C·K·K, the GEMM's reduction length
  int N;                    // B·Ho·Wo, the GEMM's columns over the whole batch
  int step_c, step_p, step_q;  // the slice depth BK written as c·K·K + p·K + q (q, p < K)
};

/// The Geometry of a layer, for kernels that walk the reduction in slices of `bk`.
/// @throws std::invalid_argument for an invalid shape or one too large for int indexing.
inline Geometry make_geometry(const ConvLayerShape& s, int bk) {
  s.validate();
  const long long limit = INT_MAX;
  if (static_cast<long long>(s.input_elements()) > limit || static_cast<long long>(s.output_elements()) > limit ||
      static_cast<long long>(s.weight_elements()) > limit) {
    throw std::invalid_argument("lab06: tensors of 2^31 elements or more are not supported (int indexing)");
  }
  Geometry g{};
  g.C = s.channels, g.H = s.height, g.W = s.width, g.K = s.mask_width;
  g.S = s.stride, g.P = s.padding, g.D = s.dilation;
  g.M = s.filters, g.Ho = s.out_height(), g.Wo = s.out_width();
  g.HW = g.H * g.W, g.CHW = g.C * g.HW, g.KK = g.K * g.K;
  g.HoWo = g.Ho * g.Wo;
  g.Kdim = g.C * g.KK;
  g.N = s.batch * g.HoWo;
  g.step_c = bk / g.KK;
  g.step_p = (bk % g.KK) / g.K;
  g.step_q = bk % g.K;
  return g;
}

// Where a column's unrolled inputs come from, decoded once per thread.
struct ColumnOrigin {
  int base;  // offset of X[b][0][h·S-P][w·S-P] (may be negative: only added to in-bounds taps)
  int ih0;   // h·S-P, the input row of tap p = 0 (a huge negative value for a column past N)
  int iw0;   // w·S-P
};

// The (c, p, q) of one unrolled row k = c·K·K + p·K + q, advanced by a fixed step with carries.
struct RowCursor {
  int c, p, q;
  __device__ void set(int k, const Geometry& g) {
    c = k / g.KK;
    const int r = k - c * g.KK;
    p = r / g.K;
    q = r - p * g.K;
  }
  // Adds (dc, dp, dq) = the step written in the radix (·, K, K): dq < K and dp < K, so one
  // carry per digit suffices.
  __device__ void advance(int dc, int dp, int dq, int K) {
    q += dq;
    p += dp;
    c += dc;
    if (q >= K) q -= K, ++p;
    if (p >= K) p -= K, ++c;
  }
};

// ---- Asynchronous copies (sm_80+): global → shared without a trip through registers ----------

// Copies one float; when `inside` is false nothing is read and the shared word is zero-filled
// (the zero padding of the convolution, and the ragged edges of the GEMM).
// `gmem` must be a valid address either way (pass the tensor's base when `inside` is false).
// Before sm_80 there is no cp.async: the copy is an ordinary load and store, and the commit and
// wait below do nothing.
__device__ __forceinline__ void copy_async_or_zero(float* smem, const float* gmem, bool inside) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(gmem), "r"(inside ? 4 : 0));
#else
  *smem = inside ? __ldg(gmem) : 0.0f;
#endif
}
/// The same copy, asynchronous (ASYNC: cp.async, step 3c) or an ordinary load and store
/// through a register (steps 3a and 3b), chosen at compile time.
template <bool ASYNC>
__device__ __forceinline__ void copy_or_zero(float* smem, const float* gmem, bool inside) {
  if constexpr (ASYNC) {
    copy_async_or_zero(smem, gmem, inside);
  } else {
    *smem = inside ? __ldg(gmem) : 0.0f;
  }
}
__device__ __forceinline__ void copy_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}
/// Waits until at most `pending` of this thread's committed groups are still in flight.
template <int pending>
__device__ __forceinline__ void copy_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(pending));
#endif
}


/// The origin of column n of the unrolled matrix (see ColumnOrigin).
__device__ __forceinline__ ColumnOrigin decode_column(int n, const Geometry& g) {
  ColumnOrigin o;
  if (n < g.N) {
    const int b = n / g.HoWo;
    const int hw = n - b * g.HoWo;
    const int h = hw / g.Wo;
    const int w = hw - h * g.Wo;
    o.ih0 = h * g.S - g.P;
    o.iw0 = w * g.S - g.P;
    o.base = b * g.CHW + o.ih0 * g.W + o.iw0;
  } else {
    o.ih0 = INT_MIN / 2;  // every tap of it fails the row test: zeros
    o.iw0 = 0;
    o.base = 0;
  }
  return o;
}

/// Where element (row of `cur`, column of `col`) of the unrolled matrix lies in X, and whether
/// it lies inside X at all (else it is a padding zero, or past the matrix's edge).
__device__ __forceinline__ bool locate(const RowCursor& cur, const ColumnOrigin& col, const Geometry& g,
                                       int* offset) {
  const int dy = cur.p * g.D;
  const int dx = cur.q * g.D;
  const int ih = col.ih0 + dy;
  const int iw = col.iw0 + dx;
  *offset = col.base + cur.c * g.HW + dy * g.W + dx;
  return cur.c < g.C && static_cast<unsigned>(ih) < static_cast<unsigned>(g.H) &&
         static_cast<unsigned>(iw) < static_cast<unsigned>(g.W);
}

/// Copies a block's GEMM operands into shared memory one BK-deep slice at a time, with cp.async:
///   A: BM filters × BK rows of W (row-major M × Kdim), stored transposed As[k][m]; thread t
///      copies k = t % BK, m = t / BK + i·(THREADS / BK);
///   B: BK rows × BN columns of the unrolled input, gathered from X, Bs[k][n]; warp w copies rows
///      w, w + WARPS, ..., lane l columns l, l + 32, ... (a warp reads 32 consecutive output
///      positions: consecutive input addresses when S = 1).
/// Slices must be issued in increasing order from `first_slice`: the row cursors advance by BK
/// each time.
template <int BM, int BN, int BK, int THREADS>
struct SliceLoader {
  static constexpr int WARPS = THREADS / 32;
  static constexpr int A_PER_THREAD = BM * BK / THREADS;  // weights each thread copies per slice
  static constexpr int B_ROWS = BK / WARPS;               // unrolled rows each thread copies per slice
  static constexpr int B_COLS = BN / 32;                  // unrolled columns each thread copies
  static_assert(THREADS % 32 == 0, "whole warps");
  static_assert(THREADS % BK == 0 && (BM * BK) % THREADS == 0, "the A slice splits evenly over threads");
  static_assert(BK % WARPS == 0 && BN % 32 == 0, "the B slice splits evenly over warps and lanes");

  ColumnOrigin col[B_COLS];  // this thread's B columns, decoded once
  RowCursor cur[B_ROWS];     // one cursor per B row this thread copies
  int a_k, a_m, m0, lane, warp;

  __device__ SliceLoader(const Geometry& g, int block_m0, int block_n0, int first_slice) {
    const int tid = threadIdx.x;
    lane = tid % 32;
    warp = tid / 32;
    a_k = tid % BK;
    a_m = tid / BK;
    m0 = block_m0;
#pragma unroll
    for (int j = 0; j < B_COLS; ++j) col[j] = decode_column(block_n0 + lane + 32 * j, g);
#pragma unroll
    for (int r = 0; r < B_ROWS; ++r) cur[r].set(first_slice * BK + warp + WARPS * r, g);
  }

  /// Starts the copies of slice kt into one stage of the shared tiles (rows padded to A_LD, B_LD);
  /// ASYNC = false: ordinary loads and stores, done when issue() returns.
  template <bool ASYNC = true, int A_LD, int B_LD>
  __device__ void issue(int kt, float (&As)[BK][A_LD], float (&Bs)[BK][B_LD], const float* X, const float* Wt,
                        const Geometry& g) {
    const int k = kt * BK + a_k;
#pragma unroll
    for (int i = 0; i < A_PER_THREAD; ++i) {
      const int m = m0 + a_m + i * (THREADS / BK);
      const bool ok = m < g.M && k < g.Kdim;
      copy_or_zero<ASYNC>(&As[a_k][a_m + i * (THREADS / BK)], ok ? Wt + m * g.Kdim + k : Wt, ok);
    }
#pragma unroll
    for (int r = 0; r < B_ROWS; ++r) {
#pragma unroll
      for (int j = 0; j < B_COLS; ++j) {
        int offset;
        const bool inside = locate(cur[r], col[j], g, &offset);
        copy_or_zero<ASYNC>(&Bs[warp + WARPS * r][lane + 32 * j], inside ? X + offset : X, inside);
      }
      cur[r].advance(g.step_c, g.step_p, g.step_q, g.K);
    }
  }
};

}  // namespace convlab::lab06::gemm
