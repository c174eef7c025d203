/// @file weight_order.cuh
/// @brief Lab 08 (given, do not edit): the pass that puts W in the order a GEMM's loader reads it,
///        once per call, and zeroes Y for a split reduction on its way out.
///
/// Both orders are a batch of small transposes. Step 1's (nhwc_tiles.cuh) takes each filter,
/// C × K·K in W, to K·K × Cp (tap-major, channels padded with zeros to Cp, rounded to TF32); steps
/// 5 and 6's group-tap order (layer_tiles.cuh, GroupTapLoader) takes each group of BK channels of a
/// filter, BK × K·K, to K·K × BK:
///
///   W   [count][R][S]    matrix i, row r, column s           (contiguous, matrix after matrix)
///   Wo  [count][S][Rp]   Wo[i][s][r] = W[i][r][s] (0 for R ≤ r < Rp)
///
/// Read element by element in the output's order by a thread each, W is read K·K floats apart,
/// and each 32-byte sector of it is fetched from L2 by every warp that needs one of its floats;
/// order_weights has a warp write a block of rows whole, so that each sector crosses once.
#pragma once

#include "convlab/lab08_config.hpp"
#include "kernel_overlap.cuh"
#include "mma_tf32.cuh"

namespace convlab::lab08 {

inline constexpr int kOrderWarps = 8;  ///< warps of an order_weights block

/// One weight pass's batch of transposes (the drawing above), cut into units of RB ≤ 32 rows and
/// TB taps.
struct WeightOrder {
  int count;        ///< matrices
  int rows, cols;   ///< R × S, each matrix in W
  int padded_rows;  ///< Rp ≥ R, the length of a row of the transposed matrix
  int row_shift;    ///< RB = 2^row_shift rows a unit, ≤ 32
  int tap_block;    ///< TB ≤ S taps (columns of W) a unit: S, or fewer where W has few units
};

/// Y[0 .. n) = 0, shared by the whole grid (grid-stride, 16-byte stores where Y is aligned to
/// them): a split reduction's atomic adds need a zeroed Y, and the weight pass, which runs before
/// the GEMM anyway, zeroes it on its way out, where cudaMemsetAsync would cost a kernel and a gap
/// of its own. n = 0 (no split) does nothing.
__device__ __forceinline__ void zero_in_grid(float* __restrict__ Y, long long n) {
  const long long first = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  long long head = 0;  // the floats before Y's first 16-byte boundary
  if (reinterpret_cast<unsigned long long>(Y) % 16 != 0) {
    head = (16 - reinterpret_cast<unsigned long long>(Y) % 16) / 4;
    head = head < n ? head : n;
  }
  if (first < head) Y[first] = 0.0f;
  float4* y4 = reinterpret_cast<float4*>(Y + head);
  const long long quads = (n - head) / 4;
  for (long long i = first; i < quads; i += stride) y4[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (long long i = head + 4 * quads + first; i < n; i += stride) Y[i] = 0.0f;
}

/// W into Wo as `o` says (the drawing above; each value rounded to TF32 if ROUND), then Y's first
/// `zeroed` floats set to 0. A unit is RB rows of one matrix (the last unit of a matrix may hold
/// padding rows) and TB of its taps, and one warp writes it: lane l takes row l % RB and every
/// (32/RB)-th tap from l / RB, so that each store of the warp is 32/RB runs of RB contiguous
/// floats. Its loads are S floats apart, but the warp's first load brings the unit's sectors into
/// L1 and the rest hit there: each sector of W crosses from L2 once (a thread an element, in the
/// output's order, fetched it once per tap, into as many SMs). Grid-stride over the units, a warp
/// at a time. The next kernel (the GEMM) may be placed as this one's blocks end.
template <bool ROUND>
__global__ void __launch_bounds__(kOrderWarps * 32) order_weights(const float* __restrict__ W, float* __restrict__ Wo,
                                                                  WeightOrder o, float* __restrict__ Y,
                                                                  long long zeroed) {
  let_next_kernel_start();  // the GEMM's set-up may overlap this pass's last blocks
  const int lane = threadIdx.x % 32, R = o.rows, S = o.cols, Rp = o.padded_rows, RB = 1 << o.row_shift;
  const int r = lane & (RB - 1), lane_tap = lane >> o.row_shift, tap_step = 32 >> o.row_shift;
  const int per_matrix = (Rp + RB - 1) / RB, tap_blocks = (S + o.tap_block - 1) / o.tap_block;
  const long long units = static_cast<long long>(o.count) * per_matrix * tap_blocks;
  const long long warps = static_cast<long long>(gridDim.x) * kOrderWarps;
  for (long long u = blockIdx.x * static_cast<long long>(kOrderWarps) + threadIdx.x / 32; u < units; u += warps) {
    const long long block = u / tap_blocks, m = block / per_matrix;  // unit u: row block `block`, taps tb·TB …
    const int tb = static_cast<int>(u - block * tap_blocks);
    const int row = static_cast<int>(block - m * per_matrix) * RB + r;  // this lane's row of matrix m
    if (row >= Rp) continue;                                             // the unit is short
    const float* in = W + (m * R + row) * S;                             // W[m][row][·], if row < R
    float* out = Wo + m * S * Rp + row;                                  // Wo[m][·][row]
    const int end = min(S, (tb + 1) * o.tap_block);
    for (int s = tb * o.tap_block + lane_tap; s < end; s += tap_step) {
      out[static_cast<long long>(s) * Rp] = row < R ? (ROUND ? tf32_value(to_tf32(in[s])) : in[s]) : 0.0f;
    }
  }
  zero_in_grid(Y, zeroed);
}

}  // namespace convlab::lab08
