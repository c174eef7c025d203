/// @file layer_tiles.cuh
/// @brief Lab 08 (given, do not edit): lab 06 step 3's way of feeding a GEMM from a conv layer,
///        whole — the layer as one GEMM over the batch, the index arithmetic of the conceptual
///        unrolled matrix, cp.async copies into shared memory and the slice loader built on
///        them — so that lab 08 runs whatever state your lab 06 is in. Lab 08 changes only what
///        happens to a slice once it is in shared memory: the multiply-adds go to tensor cores.
///
/// Same code as solutions/06-im2col/implicit_gemm.cuh (the reference of lab 06 step 3a) and
/// async_copies.cuh's wrappers, in the namespace convlab::lab08::tiles; and, for steps 5 and 6, a
/// second loader that walks the reduction channel group × tap (GroupTapLoader), which reads the
/// weights in its order (weight_order.cuh puts them there).
#pragma once

#include <climits>
#include <stdexcept>

#include "convlab/lab_api.cuh"

namespace convlab::lab08::tiles {

// The conceptual unrolled matrix of the whole batch, C·K·K × B·Ho·Wo:
//
//              column n = b·Ho·Wo + h·Wo + w  (output (h, w) of image b)
//            +------------------------------------------------------------+
//   row k =  |                                                            |
//   c·K·K    |      element (k, n) = X[b][c][h·S-P+p·D][w·S-P+q·D]        |
//   + p·K    |                       (0 outside X: a padding tap)         |
//   + q      |                                                            |
//            +------------------------------------------------------------+
//
// Y (as an M × B·Ho·Wo matrix) = W (M × C·K·K) · this matrix; column n of Y is Y[b][·][h][w].

/// The layer as the kernels see it (ints, derived sizes precomputed on the host).
struct Geometry {
  int C, H, W, K, S, P, D;  ///< input channels and size, mask width, stride, padding, dilation
  int M, Ho, Wo;            ///< filters, output size
  int HW, CHW, KK;          ///< H·W, C·H·W, K·K
  int HoWo;                 ///< GEMM columns per image
  int Kdim;                 ///< C·K·K, the GEMM's reduction length (rows of the unrolled matrix)
  int N;                    ///< B·Ho·Wo, the GEMM's columns over the whole batch
  int step_c, step_p, step_q;  ///< the slice depth BK written as c·K·K + p·K + q (q, p < K)
};

/// The Geometry of a layer, for kernels that walk the reduction in slices of `bk`.
/// @throws std::invalid_argument for an invalid shape or one too large for int indexing.
inline Geometry make_geometry(const ConvLayerShape& s, int bk) {
  s.validate();
  const long long limit = INT_MAX;
  if (static_cast<long long>(s.input_elements()) > limit || static_cast<long long>(s.output_elements()) > limit ||
      static_cast<long long>(s.weight_elements()) > limit) {
    throw std::invalid_argument("lab08: tensors of 2^31 elements or more are not supported (int indexing)");
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

/// Where column n's unrolled inputs come from, decoded once per thread (decode_column).
struct ColumnOrigin {
  int base;  ///< offset of X[b][0][h·S-P][w·S-P] (may be negative: only added to in-bounds taps)
  int ih0;   ///< h·S-P, the input row of tap p = 0 (a huge negative value for a column n ≥ N)
  int iw0;   ///< w·S-P, the input column of tap q = 0
};

/// The (c, p, q) of unrolled row k = c·K·K + p·K + q (row_cursor), moved on by a slice depth
/// without a division (advance_cursor).
struct RowCursor {
  int c, p, q;
};

/// The origin of column n (see ColumnOrigin). A column past the matrix's edge (n ≥ g.N) gets
/// ih0 = INT_MIN / 2, so that every one of its taps fails locate()'s row test and is a zero.
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
    o.ih0 = INT_MIN / 2;
    o.iw0 = 0;
    o.base = 0;
  }
  return o;
}

/// The cursor of row k: the only divisions of the loader, once per thread.
__device__ __forceinline__ RowCursor row_cursor(int k, const Geometry& g) {
  RowCursor cur;
  cur.c = k / g.KK;
  const int r = k - cur.c * g.KK;
  cur.p = r / g.K;
  cur.q = r - cur.p * g.K;
  return cur;
}

/// Moves the cursor on by the slice depth, which g.step_* give in the radix (·, K, K): q and p
/// each carry at most once, because step_q < K and step_p < K.
__device__ __forceinline__ void advance_cursor(RowCursor& cur, const Geometry& g) {
  cur.q += g.step_q;
  cur.p += g.step_p;
  cur.c += g.step_c;
  if (cur.q >= g.K) cur.q -= g.K, ++cur.p;
  if (cur.p >= g.K) cur.p -= g.K, ++cur.c;
}

/// Element (row of `cur`, column of `col`) of the unrolled matrix: its offset in X, and whether
/// it lies inside X at all (false: a padding zero, or past the matrix's edge; nothing is read).
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

// ---- Copies into shared memory -----------------------------------------------------------------
//
// cp.async (sm_80+) copies global → shared without a trip through a register, and returns at
// once: the copy lands later. A thread groups the copies it has issued (commit), and waits until
// at most N of its groups are still in flight (wait N); a __syncthreads() after the wait makes
// every thread's copies visible to the block. What the wrappers wrap (PTX ISA, "cp.async"):
//   __cvta_generic_to_shared(p)                   the 32-bit shared-memory address of pointer p
//   cp.async.ca.shared.global [dst], [src], b, n  copy b = 4, 8 or 16 bytes; read only n of them
//                                                 (n = 0: write b zero bytes, read nothing)
//   cp.async.commit_group / cp.async.wait_group N
// (cp.async.cg caches in L2 only and takes 16-byte copies alone; ours are mostly 4 bytes, so .ca;
// step 7's 16-byte chunks take .cg where L1 would not hold them until they are read again.)

/// Copies FLOATS consecutive floats (1, 2 or 4: one copy of 4, 8 or 16 bytes, both addresses
/// aligned to it); when `inside` is false nothing is read and the shared words become 0 (the
/// zero padding of the convolution, the ragged edges of the GEMM). `gmem` must be a valid
/// address either way: pass the tensor's base when `inside` is false. L1: through L1 (.ca), else
/// L2 only (.cg, 16-byte copies alone). Before sm_80 there is no cp.async: ordinary loads and
/// stores (and commit and wait do nothing).
template <int FLOATS = 1, bool L1 = true>
__device__ __forceinline__ void copy_async_or_zero(float* smem, const float* gmem, bool inside) {
  static_assert(FLOATS == 1 || FLOATS == 2 || FLOATS == 4, "cp.async copies 4, 8 or 16 bytes");
  static_assert(L1 || FLOATS == 4, "cp.async.cg copies 16 bytes only");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if constexpr (L1) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(gmem), "n"(4 * FLOATS),
                 "r"(inside ? 4 * FLOATS : 0));
  } else {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(inside ? 16 : 0));
  }
#else
  for (int e = 0; e < FLOATS; ++e) smem[e] = inside ? __ldg(gmem + e) : 0.0f;
#endif
}

/// Closes the group of the copies this thread issued since the last commit.
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

/// The same copy, asynchronous (ASYNC: cp.async) or ordinary loads through registers and stores,
/// done when the call returns.
template <bool ASYNC, int FLOATS = 1>
__device__ __forceinline__ void copy_or_zero(float* smem, const float* gmem, bool inside) {
  if constexpr (ASYNC) {
    copy_async_or_zero<FLOATS>(smem, gmem, inside);
  } else {
#pragma unroll
    for (int e = 0; e < FLOATS; ++e) smem[e] = inside ? __ldg(gmem + e) : 0.0f;
  }
}

// ---- The slice loader ----------------------------------------------------------------------------

/// Copies a block's two GEMM operands into shared memory, one BK-deep slice of the reduction at a
/// time (slice kt is unrolled rows kt·BK .. kt·BK + BK - 1). Who copies what, for THREADS threads:
///
///   A, W's BM×BK slice (W is M × C·K·K row-major): thread t copies column k = t % BK of rows
///      m = t / BK + i·(THREADS/BK), i < A_PER_THREAD (a warp reads 32/BK rows, BK floats each);
///   B, the unrolled matrix's BK×BN slice, gathered from X: warp w copies rows
///      k = w + WARPS·r (r < B_ROWS), lane l columns n = l + 32·j (j < B_COLS):
///
///               n0 + lane + 32·j:   j = 0              j = 1             ...  (BN/32 of them)
///        row w              [ lanes 0 .. 31 ][ lanes 0 .. 31 ] ...
///        row w + WARPS      [ lanes 0 .. 31 ][ lanes 0 .. 31 ] ...
///
///      so a warp reads 32 consecutive output positions: consecutive addresses of X when S = 1.
///
/// A thread's B columns never change: it decodes them once (decode_column). Its B rows move on by
/// BK per slice: one cursor per row (row_cursor, then advance_cursor after each slice), so the
/// loader does no division per element. Slices must be copied in increasing order from
/// `first_slice`.
template <int BM, int BN, int BK, int THREADS>
struct SliceLoader {
  static constexpr int WARPS = THREADS / 32;
  static constexpr int A_PER_THREAD = BM * BK / THREADS;  // weights each thread copies per slice
  static constexpr int B_ROWS = BK / WARPS;               // unrolled rows each thread copies per slice
  static constexpr int B_COLS = BN / 32;                  // unrolled columns each thread copies
  static_assert(THREADS % 32 == 0, "whole warps");
  static_assert(THREADS % BK == 0 && (BM * BK) % THREADS == 0, "the A slice splits evenly over threads");
  static_assert(BK % WARPS == 0 && BN % 32 == 0, "the B slice splits evenly over warps and lanes");

  ColumnOrigin col[B_COLS];  // col[j]: column n0 + lane + 32·j, decoded once
  RowCursor cur[B_ROWS];     // cur[r]: row (next slice)·BK + warp + WARPS·r
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
    for (int r = 0; r < B_ROWS; ++r) cur[r] = row_cursor(first_slice * BK + warp + WARPS * r, g);
  }

  /// W's slice kt transposed, As[k][m] = W[m0 + m][kt·BK + k]: the weights of one k are then
  /// consecutive floats, as an MMA fragment's rows are.
  template <bool ASYNC, int A_LD>
  __device__ void copy_a_transposed(int kt, float (&As)[BK][A_LD], const float* Wt, const Geometry& g) const {
    const int k = kt * BK + a_k;
#pragma unroll
    for (int i = 0; i < A_PER_THREAD; ++i) {
      const int m = m0 + a_m + i * (THREADS / BK);
      const bool ok = m < g.M && k < g.Kdim;
      copy_or_zero<ASYNC>(&As[a_k][a_m + i * (THREADS / BK)], ok ? Wt + m * g.Kdim + k : Wt, ok);
    }
  }

  /// The unrolled matrix's slice into Bs[k][n] = element (kt·BK + k, n0 + n), gathered from X;
  /// then moves the row cursors on to the next slice.
  template <bool ASYNC, int B_LD>
  __device__ void copy_b(float (&Bs)[BK][B_LD], const float* X, const Geometry& g) {
#pragma unroll
    for (int r = 0; r < B_ROWS; ++r) {
#pragma unroll
      for (int j = 0; j < B_COLS; ++j) {
        int offset;
        const bool inside = locate(cur[r], col[j], g, &offset);
        copy_or_zero<ASYNC>(&Bs[warp + WARPS * r][lane + 32 * j], inside ? X + offset : X, inside);
      }
      advance_cursor(cur[r], g);
    }
  }

  /// Both operands of slice kt, A transposed.
  template <bool ASYNC = true, int A_LD, int B_LD>
  __device__ void issue(int kt, float (&As)[BK][A_LD], float (&Bs)[BK][B_LD], const float* X, const float* Wt,
                        const Geometry& g) {
    copy_a_transposed<ASYNC>(kt, As, Wt, g);
    copy_b<ASYNC>(Bs, X, g);
  }
};

// ---- The group-tap loader (steps 5 and 6) -------------------------------------------------------

/// SliceLoader's job, with the reduction in another order: slice kt is one tap (p, q) of one group
/// of BK channels, unrolled rows k' = G·(K·K·BK) + (p·K + q)·BK + c for channel G·BK + c, c < BK.
/// The order of a sum's terms is the kernel's to choose (A's columns follow B's rows): W is
/// reordered the same way first (order_weights, weight_order.cuh), into Wg [M][C·K·K]. Needs
/// C % BK == 0 (whole groups; lab08::wgmma_group_tap), and then has no ragged last slice.
///
///   slice kt = G·K·K + p·K + q:    As[m][c] = Wg[m0 + m][kt·BK + c]  = W[m0 + m][G·BK + c][p][q]
///                                  Bs[c][n] = X[b][G·BK + c][h·S − P + p·D][w·S − P + q·D]
///
/// What it saves: a tap lies inside X or not for a whole column, whatever the channel, so a thread
/// tests each of its columns once per slice, not once per element, and an element costs one add
/// (the channel's plane, c·H·W). The K·K taps of a group follow each other, so the group's input
/// rows are still in L1 when the next tap reads them. A filter's BK weights of a slice are
/// contiguous in Wg: BK/4 copies of 16 bytes, where in W they lie K·K floats apart (BK copies of
/// 4 bytes, each in its own 32-byte sector). Who copies B is SliceLoader's drawing; A is copied
/// as rows, As[m][c] (lab08::kGroupTapPad floats of padding a row), not transposed.
/// Slices must be copied in increasing order from `first_slice`.
template <int BM, int BN, int BK, int THREADS>
struct GroupTapLoader {
  static constexpr int WARPS = THREADS / 32;
  static constexpr int A_CHUNKS = BM * BK / 4 / THREADS;  // 16-byte copies of weights each thread makes per slice
  static constexpr int B_ROWS = BK / WARPS;               // channels each thread copies per slice
  static constexpr int B_COLS = BN / 32;                  // unrolled columns each thread copies
  static_assert(THREADS % 32 == 0, "whole warps");
  static_assert(BK % 4 == 0 && (BM * BK / 4) % THREADS == 0, "the A slice splits into 16-byte copies evenly");
  static_assert(BK % WARPS == 0 && BN % 32 == 0, "the B slice splits evenly over warps and lanes");

  ColumnOrigin col[B_COLS];  // col[j]: column n0 + lane + 32·j, decoded once
  int m0, lane, warp;
  int tap, p, q;  // the next slice's tap, p·K + q
  int c0;         // and its group's first channel

  __device__ GroupTapLoader(const Geometry& g, int block_m0, int block_n0, int first_slice) {
    const int tid = threadIdx.x;
    lane = tid % 32;
    warp = tid / 32;
    m0 = block_m0;
#pragma unroll
    for (int j = 0; j < B_COLS; ++j) col[j] = decode_column(block_n0 + lane + 32 * j, g);
    const int group = first_slice / g.KK;
    tap = first_slice - group * g.KK;
    p = tap / g.K;
    q = tap - p * g.K;
    c0 = group * BK;
  }

  /// Both operands of slice kt (the next one: this loader counts taps and groups itself):
  /// As[m][c] from Wg, the weights in this loader's order (order_weights, weight_order.cuh), and
  /// Bs[c][n] gathered from X; then moves on to the next tap, and after the last tap to the next
  /// group.
  template <bool ASYNC = true, int A_LD, int B_LD>
  __device__ void issue(int kt, float (&As)[BM][A_LD], float (&Bs)[BK][B_LD], const float* X, const float* Wg,
                        const Geometry& g) {
    static_assert(A_LD >= BK && A_LD % 4 == 0, "rows of BK weights, 16-byte aligned");
#pragma unroll
    for (int i = 0; i < A_CHUNKS; ++i) {
      const int chunk = static_cast<int>(threadIdx.x) + i * THREADS;
      const int m = chunk / (BK / 4), c = 4 * (chunk % (BK / 4));  // a warp copies 8 whole rows
      const bool ok = m0 + m < g.M;
      copy_or_zero<ASYNC, 4>(&As[m][c], Wg + (ok ? (m0 + m) * g.Kdim + kt * BK + c : 0), ok);
    }
    const int dy = p * g.D, dx = q * g.D;
    int at[B_COLS];  // at[j]: offset of channel 0 of column j's tap in X, or −1 outside X
#pragma unroll
    for (int j = 0; j < B_COLS; ++j) {
      const bool inside = static_cast<unsigned>(col[j].ih0 + dy) < static_cast<unsigned>(g.H) &&
                          static_cast<unsigned>(col[j].iw0 + dx) < static_cast<unsigned>(g.W);
      at[j] = inside ? col[j].base + dy * g.W + dx : -1;
    }
#pragma unroll
    for (int r = 0; r < B_ROWS; ++r) {
      const int plane = (c0 + warp + WARPS * r) * g.HW;  // channel c0 + warp + WARPS·r
#pragma unroll
      for (int j = 0; j < B_COLS; ++j) {
        const bool inside = at[j] >= 0;
        copy_or_zero<ASYNC>(&Bs[warp + WARPS * r][lane + 32 * j], X + (inside ? at[j] + plane : 0), inside);
      }
    }
    if (++q == g.K) q = 0, ++p;
    if (++tap == g.KK) tap = 0, p = 0, c0 += BK;
  }
};

}  // namespace convlab::lab08::tiles
