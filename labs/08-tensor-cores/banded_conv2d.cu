// Lab 08: the launcher of step 3 (given: nothing to write here; your step is in
// banded_conv2d.cuh).
//
// Idea:      one image, a mask of K ≥ 9 (kBandMinMask), as K banded GEMMs on tensor cores in
//            3xTF32, checked with labs 01–07's FP32 tolerance (banded_conv2d.cuh).
// Achieves:  `grader bench --only conv2d` times it against lab 07 and the FP32 FMA bound.
//
// Shapes: N [height][width], M [K][K], P [height][width].
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "banded_conv2d.cuh"
#include "convlab/ceil_div.hpp"
#include "convlab/lab08_config.hpp"
#include "convlab/lab_api.cuh"
#include "convlab/limits.hpp"

namespace convlab::lab08 {
namespace {

/// The mask's band fragments, rewritten by every call (the mask may change between calls).
__device__ uint4 g_band_fragments[band_fragment_count(kMaxMaskWidth)];

template <int S>
void launch(const Conv2dArgs& a) {
  static const bool opted_in = [] {  // up to 94 KB of dynamic shared memory, once per kernel
    CUDA_CHECK(cudaFuncSetAttribute(banded_conv2d<S>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    band_shared_bytes(kMaxMaskWidth)));
    return true;
  }();
  (void)opted_in;
  uint4* frags = nullptr;
  CUDA_CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&frags), g_band_fragments));
  const int count = band_fragment_count(a.mask_width);
  band_fragments<<<ceil_div(count, 256), 256>>>(a.M, a.mask_width, frags);
  CUDA_CHECK(cudaGetLastError());
  const dim3 grid(ceil_div(a.width, kBandTileCols), ceil_div(a.height, kBandTileRows));
  banded_conv2d<S><<<grid, kBandThreads, band_shared_bytes(a.mask_width)>>>(a.N, frags, a.P, a.height, a.width,
                                                                             a.mask_width);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void conv2d_banded_tf32x3(const Conv2dArgs& a) {
  if (!kStep3Written) {
    return not_implemented("lab08 step 3 (banded 3xTF32): write band_fragment and band_row_tf32x3 in "
                           "banded_conv2d.cuh, then set kStep3Written = true");
  }
  if (a.mask_width < kBandMinMask || a.mask_width > kMaxMaskWidth) {
    throw std::invalid_argument("lab08 step 3 takes masks of width " + std::to_string(kBandMinMask) + " to " +
                                std::to_string(kMaxMaskWidth) + ", not " + std::to_string(a.mask_width));
  }
  require_tensor_cores();
  if (band_steps(a.mask_width) == 2) return launch<2>(a);
  launch<3>(a);
}

}  // namespace convlab::lab08
