/// @file layer_reference.cuh
/// @brief The conv-layer benchmark's reference: every output of a layer and its S = Σ|x·w|, in
///        float64, on the GPU.
///
/// The product of two floats is exact in double and each of the n additions rounds at 2^-53, so
/// the reference is off by at most about n·2^-53·S: 2^-29 of the float32 rule's allowance
/// (n·2^-24·S, docs/design.md, Tolerance). So the benchmark checks every method by the rule the
/// grader uses, against the double result as the labs' CPU reference (common/src/reference.cpp)
/// computes it, on layers too large for the CPU to sum in a benchmark's time (the 128 × 128 layer:
/// 19 billion terms).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "convlab/ceil_div.hpp"
#include "convlab/cuda_check.cuh"
#include "convlab/shapes.hpp"

namespace convlab::bench {

/// The layer's sizes as the reference kernel reads them.
struct LayerSizes {
  int B, C, H, W, K, S, P, D, M, Ho, Wo;
};

/// One thread makes RP output positions of one image (consecutive threads, consecutive positions,
/// so a warp's loads of X are contiguous) for RF filters: each X value it loads serves RF sums and
/// each weight (the same for the whole warp) RP. Grid: (⌈Ho·Wo / (128·RP)⌉, ⌈M / RF⌉, images,
/// looped past 65535); block 128.
template <int RP, int RF>
__global__ void __launch_bounds__(128) layer_reference_fp64(const float* __restrict__ X, const float* __restrict__ Wt,
                                                            double* __restrict__ ref, double* __restrict__ abs_sum,
                                                            LayerSizes s) {
  const int HoWo = s.Ho * s.Wo;
  const int m0 = blockIdx.y * RF;
  for (int b = blockIdx.z; b < s.B; b += gridDim.z) {
    int ih0[RP], iw0[RP];  // the output position's tap (0, 0) in X; ih0 far out of range past the image
#pragma unroll
    for (int r = 0; r < RP; ++r) {
      const int pos = (blockIdx.x * RP + r) * 128 + static_cast<int>(threadIdx.x);
      ih0[r] = pos < HoWo ? pos / s.Wo * s.S - s.P : -(1 << 29);
      iw0[r] = pos < HoWo ? pos % s.Wo * s.S - s.P : 0;
    }
    double sum[RP][RF] = {}, mag[RP][RF] = {};  // [r][f]: position r, filter m0 + f
    for (int c = 0; c < s.C; ++c) {
      const float* x = X + (static_cast<std::size_t>(b) * s.C + c) * s.H * s.W;
      for (int p = 0; p < s.K; ++p) {
        for (int q = 0; q < s.K; ++q) {
          double xv[RP];
#pragma unroll
          for (int r = 0; r < RP; ++r) {
            const int ih = ih0[r] + p * s.D, iw = iw0[r] + q * s.D;
            const bool inside = ih >= 0 && ih < s.H && iw >= 0 && iw < s.W;
            xv[r] = inside ? static_cast<double>(x[static_cast<std::size_t>(ih) * s.W + iw]) : 0.0;
          }
#pragma unroll
          for (int f = 0; f < RF; ++f) {
            const int m = m0 + f;
            const double w =
                m < s.M ? static_cast<double>(Wt[((static_cast<std::size_t>(m) * s.C + c) * s.K + p) * s.K + q]) : 0.0;
#pragma unroll
            for (int r = 0; r < RP; ++r) {
              sum[r][f] = fma(xv[r], w, sum[r][f]);
              mag[r][f] = fma(fabs(xv[r]), fabs(w), mag[r][f]);
            }
          }
        }
      }
    }
#pragma unroll
    for (int r = 0; r < RP; ++r) {
      const int pos = (blockIdx.x * RP + r) * 128 + static_cast<int>(threadIdx.x);
      if (pos >= HoWo) continue;
#pragma unroll
      for (int f = 0; f < RF; ++f) {
        if (m0 + f >= s.M) continue;
        const std::size_t o = (static_cast<std::size_t>(b) * s.M + m0 + f) * HoWo + pos;
        ref[o] = sum[r][f];
        abs_sum[o] = mag[r][f];
      }
    }
  }
}

/// ref and abs_sum (each shape.output_elements() doubles) for X and W of `shape`.
inline void layer_reference(const ConvLayerShape& shape, const float* X, const float* W, double* ref,
                            double* abs_sum) {
  constexpr int kPositions = 4, kFilters = 8;
  const LayerSizes s{shape.batch,      shape.channels, shape.height,     shape.width,     shape.mask_width, shape.stride,
                     shape.padding,    shape.dilation, shape.filters,    shape.out_height(), shape.out_width()};
  const dim3 grid(ceil_div(s.Ho * s.Wo, 128 * kPositions), ceil_div(s.M, kFilters), std::min(s.B, 65535));
  layer_reference_fp64<kPositions, kFilters><<<grid, 128>>>(X, W, ref, abs_sum, s);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace convlab::bench
