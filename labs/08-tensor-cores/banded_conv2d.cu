// Lab 08: the launchers of steps 3 and 4 (given: nothing to write here; your steps are in
// banded_conv2d.cuh).
//
// Idea:      one image, a mask of K ≥ 9 (kBandMinMask), as banded GEMMs on tensor cores in
//            3xTF32 (step 3: over image rows at K = 9, over 2 × 4 output patches from
//            kPatchMinMask, patch_conv2d.cuh), or for K ≥ 13 (kBandMixedMinMask) with the two
//            small products in BF16 (step 4, over rows); all checked with labs 01–07's FP32
//            tolerance (banded_conv2d.cuh).
// Achieves:  `grader bench --only conv2d` times it against lab 07 and the FP32 FMA bound.
//
// Shapes: N [height][width], M [K][K], P [height][width].
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "banded_conv2d.cuh"
#include "patch_conv2d.cuh"
#include "convlab/ceil_div.hpp"
#include "convlab/lab08_config.hpp"
#include "convlab/lab_api.cuh"
#include "convlab/limits.hpp"

namespace convlab::lab08 {
namespace {

/// The mask's band fragments, rewritten by every call (the mask may change between calls).
__device__ uint4 g_band_fragments[band_fragment_count(kMaxMaskWidth)];

/// The mask's patch fragments (step 3 from kPatchMinMask), rewritten by every call.
__device__ uint4 g_patch_fragments[patch_table_count(kMaxMaskWidth)];

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

/// Step 3 on patches: the fragment table, then the kernel of C column groups with F floats per load.
template <int C, int F>
void launch_patches_loading(const Conv2dArgs& a) {
  static const bool opted_in = [] {
    CUDA_CHECK(cudaFuncSetAttribute(patch_conv2d<C, F>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    patch_shared_bytes(kMaxMaskWidth)));
    return true;
  }();
  (void)opted_in;
  uint4* table = nullptr;
  CUDA_CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&table), g_patch_fragments));
  patch_fragments<<<ceil_div(patch_table_count(a.mask_width), 128), 128>>>(a.M, a.mask_width, table);
  CUDA_CHECK(cudaGetLastError());
  const dim3 grid(ceil_div(a.width, kPatchTileCols), ceil_div(a.height, kPatchTileRows));
  patch_conv2d<C, F><<<grid, kPatchThreads, patch_shared_bytes(a.mask_width)>>>(a.N, table, a.P, a.height, a.width,
                                                                               a.mask_width);
  CUDA_CHECK(cudaGetLastError());
}

template <int C>
void launch_patches(const Conv2dArgs& a) {
  switch (band_copy_floats(a.mask_width, a.width)) {
    case 4: return launch_patches_loading<C, 4>(a);
    case 2: return launch_patches_loading<C, 2>(a);
    default: return launch_patches_loading<C, 1>(a);
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
    return not_implemented("lab08 step 3 (banded 3xTF32): write band_fragment, band_rows_tf32x3, patch_fragment "
                           "and patch_pair_tf32x3 in banded_conv2d.cuh, then set kStep3Written = true");
  }
  require_mask(a, "lab08 step 3", kBandMinMask);
  require_tensor_cores();
  static_assert(patch_groups(kPatchMinMask) >= 4 && patch_groups(kMaxMaskWidth) == 5, "two patch kernels");
  if (a.mask_width >= kPatchMinMask) {
    return patch_groups(a.mask_width) == 4 ? launch_patches<4>(a) : launch_patches<5>(a);
  }
  static_assert(band_steps(kPatchMinMask - 1) == 2, "below the patches, the row band of two k-steps");
  launch<Precision::tf32x3, 2>(a);
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
