// Lab 08: the launchers of steps 3 and 4 (given: nothing to write here; your steps are in
// banded_conv2d.cuh).
//
// Idea:      one image, a mask of K ≥ 9 (kBandMinMask), as K banded GEMMs on tensor cores in
//            3xTF32 (step 3), or for K ≥ 13 (kBandMixedMinMask) with the two small products in
//            BF16 (step 4); both checked with labs 01–07's FP32 tolerance (banded_conv2d.cuh).
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

/// Dynamic shared memory of step 3's (tf32x3) or step 4's (tf32_bf16) block for mask width k.
template <Precision Arith>
constexpr int block_bytes(int k) {
  return Arith == Precision::tf32x3 ? band_shared_bytes(k) : band_mixed_shared_bytes(k);
}

/// The band fragments, then the kernel with F floats per load of the input tile, its last k-step
/// at half depth or not (band_last_step_half).
template <Precision Arith, int S, int F, bool HALF>
void launch_loading(const Conv2dArgs& a) {
  static const bool opted_in = [] {  // up to the widest mask's bytes of dynamic shared memory, once per kernel
    CUDA_CHECK(cudaFuncSetAttribute(banded_conv2d<Arith, S, F, HALF>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    block_bytes<Arith>(kMaxMaskWidth)));
    return true;
  }();
  (void)opted_in;
  uint4* frags = nullptr;
  CUDA_CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&frags), g_band_fragments));
  const int count = band_fragment_count(a.mask_width);
  band_fragments<Arith><<<ceil_div(count, 256), 256>>>(a.M, a.mask_width, frags);
  CUDA_CHECK(cudaGetLastError());
  const dim3 grid(ceil_div(a.width, kBandTileCols), ceil_div(a.height, kBandTileRows));
  banded_conv2d<Arith, S, F, HALF><<<grid, kBandThreads, block_bytes<Arith>(a.mask_width)>>>(a.N, frags, a.P, a.height,
                                                                                             a.width, a.mask_width);
  CUDA_CHECK(cudaGetLastError());
}

template <Precision Arith, int S, int F>
void launch_half(const Conv2dArgs& a) {
  if constexpr (S == 3) {
    if (band_last_step_half(a.mask_width)) return launch_loading<Arith, S, F, true>(a);
  }
  launch_loading<Arith, S, F, false>(a);
}

template <Precision Arith, int S>
void launch(const Conv2dArgs& a) {
  switch (band_copy_floats(a.mask_width, a.width)) {
    case 4: return launch_half<Arith, S, 4>(a);
    case 2: return launch_half<Arith, S, 2>(a);
    default: return launch_half<Arith, S, 1>(a);
  }
}

/// Refuses a mask outside [smallest, kMaxMaskWidth], naming the step and the widths it takes.
void require_mask(const Conv2dArgs& a, const char* step, int smallest) {
  if (a.mask_width < smallest || a.mask_width > kMaxMaskWidth) {
    throw std::invalid_argument(std::string(step) + " takes masks of width " + std::to_string(smallest) + " to " +
                                std::to_string(kMaxMaskWidth) + ", not " + std::to_string(a.mask_width));
  }
}

}  // namespace

void conv2d_banded_tf32x3(const Conv2dArgs& a) {
  if (!kStep3Written) {
    return not_implemented("lab08 step 3 (banded 3xTF32): write band_fragment and band_rows_tf32x3 in "
                           "banded_conv2d.cuh, then set kStep3Written = true");
  }
  require_mask(a, "lab08 step 3", kBandMinMask);
  require_tensor_cores();
  if (band_steps(a.mask_width) == 2) return launch<Precision::tf32x3, 2>(a);
  launch<Precision::tf32x3, 3>(a);
}

void conv2d_banded_tf32_bf16(const Conv2dArgs& a) {
  if (!kStep4Written) {
    return not_implemented("lab08 step 4 (small products in BF16): write band_fragment_mixed and "
                           "band_rows_tf32_bf16 in banded_conv2d.cuh, then set kStep4Written = true");
  }
  static_assert(band_steps(kBandMixedMinMask) == 3 && band_steps(kMaxMaskWidth) == 3, "one kernel for every K");
  require_mask(a, "lab08 step 4", kBandMixedMinMask);
  require_tensor_cores();
  launch<Precision::tf32_bf16, 3>(a);  // K = 13 .. 17: three k-steps
}

}  // namespace convlab::lab08
