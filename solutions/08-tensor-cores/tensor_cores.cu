// Lab 08 (reference): the launchers of steps 1, 2, 5 and 6. Same file as
// labs/08-tensor-cores/tensor_cores.cu (nothing to write here).
//
// Idea:      a layer is lab 06's GEMM, Y (M × B·Ho·Wo) = W (M × C·K·K) · X_unroll, fed to shared
//            memory as lab 06 step 3c feeds it; the multiply-adds run on tensor cores
//            (tensor_core_gemm.cuh).
// Adds:      over lab 06 step 3d, the tensor cores' arithmetic: step 1 rounds every operand to
//            TF32 (checked with the TF32 tolerance); step 2 splits each into two TF32 parts and
//            sums three products (checked with labs 01–07's FP32 tolerance). Few column tiles
//            (a small image, a small batch) share each output's reduction between blocks
//            (split-K, lab08_config.hpp). Step 5 is step 2 on Hopper's warpgroup MMA
//            (wgmma_gemm.cuh): B split once per block into shared-memory planes that the tensor
//            cores read themselves, a block's whole reduction chained on them where the FP32 rule
//            allows it (step 2 runs elsewhere), a narrower tile for layers of few tiles, and, with
//            whole groups of a slice's channels, W reordered once per call into the order its
//            slices are read in; it needs compute capability 9.0. Step 6 runs step 5's kernel
//            with step 4's arithmetic (two wgmmas a k8-step, the small products in BF16) where its
//            error budget keeps the FP32 rule, step 5 elsewhere.
// Achieves:  `grader bench --only layers` times them against cuDNN and lab 06.
//
// Shapes: X [B][C][H][W], W [M][C][K][K], Y [B][M][Ho][Wo].
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "convlab/ceil_div.hpp"
#include "convlab/device_buffer.cuh"
#include "convlab/lab08_config.hpp"
#include "convlab/lab_api.cuh"
#include "tensor_core_gemm.cuh"
#include "wgmma_gemm.cuh"

namespace convlab::lab08 {
namespace {

/// Y by float32 multiply-adds on CUDA cores, one output per thread: for reductions too short
/// for 3xTF32 to reach FP32 accuracy (kMinTensorCoreTerms), a few dozen multiply-adds at most.
__global__ void direct_fp32(const float* __restrict__ X, const float* __restrict__ Wt, float* __restrict__ Y,
                            Geometry g, int outputs) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= outputs) return;
  const int wo = i % g.Wo, ho = i / g.Wo % g.Ho, m = i / g.HoWo % g.M, b = i / (g.HoWo * g.M);
  float sum = 0.0f;
  for (int c = 0; c < g.C; ++c) {
    for (int p = 0; p < g.K; ++p) {
      const int ih = ho * g.S - g.P + p * g.D;
      if (ih < 0 || ih >= g.H) continue;
      for (int q = 0; q < g.K; ++q) {
        const int iw = wo * g.S - g.P + q * g.D;
        if (iw < 0 || iw >= g.W) continue;
        sum = fmaf(X[b * g.CHW + c * g.HW + ih * g.W + iw], Wt[m * g.Kdim + c * g.KK + p * g.K + q], sum);
      }
    }
  }
  Y[i] = sum;
}

int sm_count() {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

/// Launches kKernel, one of the GEMM kernels, over the layer's tiles of bm × bn outputs and slices
/// `depth` deep, with `splits` blocks sharing each tile's reduction (split-K: atomic adds into a Y
/// zeroed first). W is the weights as the kernel reads them. A kernel of more than 48 KB of
/// dynamic shared memory must opt in to it, once.
template <auto kKernel>
void launch_split_k(int threads, int smem, int bm, int bn, int splits, const float* W, const ConvLayerArgs& a,
                    const Geometry& g, int depth = kSliceDepth) {
  static const bool opted_in = [smem] {
    CUDA_CHECK(cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    return true;
  }();
  (void)opted_in;
  const int k_tiles = ceil_div(g.Kdim, depth);
  const int per_split = ceil_div(k_tiles, splits);
  const dim3 grid(ceil_div(g.N, bn), ceil_div(g.M, bm), ceil_div(k_tiles, per_split));
  if (grid.z > 1) CUDA_CHECK(cudaMemsetAsync(a.Y, 0, a.shape.output_elements() * sizeof(float)));
  kKernel<<<grid, threads, smem>>>(a.X, W, a.Y, g, per_split, grid.z > 1);
  CUDA_CHECK(cudaGetLastError());
}

template <Precision P, int BM>
void launch(const ConvLayerArgs& a, const Geometry& g) {
  launch_split_k<tensor_core_gemm<P, BM>>(kThreads, shared_bytes(BM), BM, kBlockN, split_k(a.shape, BM, sm_count()),
                                          a.W, a, g);
}

template <Precision P>
void run(const ConvLayerArgs& a) {
  require_tensor_cores();
  const Geometry g = tiles::make_geometry(a.shape, kSliceDepth);
  if constexpr (block_m(P, 1000) == 128) {  // only step 1 has 128-row tiles: no kernel compiled for none
    if (block_m(P, g.M) == 128) return launch<P, 128>(a, g);
  }
  launch<P, 64>(a, g);
}

/// W in the order of tiles::GroupTapLoader with slices `DEPTH` deep (tiles::order_weights_group_tap),
/// in a buffer kept between calls and grown to the largest layer seen. One pass over W per call, so
/// that every block does not fetch each weight of a slice in a 32-byte sector of its own: 10–16 %
/// off step 5 on the bench layers (NVIDIA H200, results/bench/nvidia-h200/lab08.md).
template <int DEPTH>
const float* weights_in_group_tap_order(const ConvLayerArgs& a, const Geometry& g) {
  static std::unique_ptr<DeviceBuffer<float>> ordered;
  const std::size_t n = a.shape.weight_elements();
  if (!ordered || ordered->size() < n) {
    ordered.reset();  // free the smaller one first
    ordered = std::make_unique<DeviceBuffer<float>>(n, 0);
  }
  const int blocks = static_cast<int>(std::min<std::size_t>(ceil_div(n, std::size_t{256}), 4096));
  tiles::order_weights_group_tap<DEPTH><<<blocks, 256>>>(a.W, ordered->data(), g);
  CUDA_CHECK(cudaGetLastError());
  return ordered->data();
}

template <Precision Arith, typename Tile, int WG, bool GROUP_TAP, int BLOCKS_PER_SM>
void launch_wgmma(const ConvLayerArgs& a, int splits) {
  const Geometry g = tiles::make_geometry(a.shape, Tile::DEPTH);
  const float* W = GROUP_TAP ? weights_in_group_tap_order<Tile::DEPTH>(a, g) : a.W;
  launch_split_k<wgmma_gemm<Arith, Tile, WG, GROUP_TAP, BLOCKS_PER_SM>>(WG * kWarpgroupThreads,
                                                                 wgmma_shared_bytes<Tile>(WG, GROUP_TAP),
                                                                 wgmma_block_m(WG), Tile::N, splits, W, a, g, Tile::DEPTH);
}

/// The wide tile: the group-tap gather on whole groups of 16 channels; one warpgroup 3 blocks
/// per SM, two 1 or 2 (wgmma_blocks_per_sm).
template <Precision Arith, int WG>
void run_wide(const ConvLayerArgs& a, const WgmmaPlan& p) {
  if constexpr (WG == 1) {
    if (p.group_tap) return launch_wgmma<Arith, WgmmaWide, 1, true, 3>(a, p.splits);
    launch_wgmma<Arith, WgmmaWide, 1, false, 3>(a, p.splits);
  } else {
    if (p.blocks_per_sm == 1) {
      if (p.group_tap) return launch_wgmma<Arith, WgmmaWide, 2, true, 1>(a, p.splits);
      return launch_wgmma<Arith, WgmmaWide, 2, false, 1>(a, p.splits);
    }
    if (p.group_tap) return launch_wgmma<Arith, WgmmaWide, 2, true, 2>(a, p.splits);
    launch_wgmma<Arith, WgmmaWide, 2, false, 2>(a, p.splits);
  }
}

/// Steps 5 and 6 on the plan's tile: the narrow one (2 warpgroups, group-tap) or the wide one.
template <Precision Arith>
void run_wgmma(const ConvLayerArgs& a, const WgmmaPlan& p) {
  // wgmma_plan gives the narrow tile 2 warpgroups and the group-tap gather
  if (p.narrow) return launch_wgmma<Arith, WgmmaNarrow, 2, true, 2>(a, p.splits);
  if (p.warpgroups == 2) return run_wide<Arith, 2>(a, p);
  run_wide<Arith, 1>(a, p);
}

}  // namespace

void conv_layer_tf32(const ConvLayerArgs& a) {
  if (!kStep1Written) {
    return not_implemented("lab08 step 1 (TF32 fragments and MMAs): write mma_step_tf32 in tensor_core_gemm.cuh, "
                           "then set kStep1Written = true");
  }
  run<Precision::tf32>(a);
}

void conv_layer_tf32x3(const ConvLayerArgs& a) {
  if (!kStep2Written) {
    return not_implemented("lab08 step 2 (3xTF32): write split_tf32 and mma_step_tf32x3 in tensor_core_gemm.cuh, "
                           "then set kStep2Written = true");
  }
  const Geometry g = tiles::make_geometry(a.shape, kSliceDepth);
  if (g.Kdim < kMinTensorCoreTerms) {
    const int outputs = static_cast<int>(a.shape.output_elements());
    direct_fp32<<<ceil_div(outputs, 256), 256>>>(a.X, a.W, a.Y, g, outputs);
    CUDA_CHECK(cudaGetLastError());
    return;
  }
  run<Precision::tf32x3>(a);
}

void conv_layer_tf32x3_wgmma(const ConvLayerArgs& a) {
  if (!kStep5Written) {
    return not_implemented("lab08 step 5 (3xTF32 on wgmma): write split_into_planes and wgmma_step_tf32x3 in "
                           "wgmma_gemm.cuh, then set kStep5Written = true");
  }
  if (!kStep2Written) {
    return not_implemented("lab08 step 5 (3xTF32 on wgmma) splits with step 2's split_tf32: write step 2 first "
                           "(tensor_core_gemm.cuh)");
  }
  require_wgmma();  // compute capability 9.0 and sm_90a code, or a message that says which is missing
  (void)tiles::make_geometry(a.shape, kSliceDepth);  // the shape's checks before any plan
  const WgmmaPlan p = wgmma_plan(a.shape, sm_count());
  // A reduction too short for the chain's truncations to keep the FP32 rule (fewer than 93 terms
  // in one part): step 2, whose float32 addition per slice bounds them (and which hands fewer
  // than 35 terms to the CUDA cores).
  if (!p.chain_fits) return conv_layer_tf32x3(a);
  run_wgmma<Precision::tf32x3>(a, p);
}

void conv_layer_tf32_bf16_wgmma(const ConvLayerArgs& a) {
  if (!kStep6Written) {
    return not_implemented("lab08 step 6 (small products in BF16 on wgmma): write split_into_planes_mixed and "
                           "wgmma_step_tf32_bf16 in wgmma_gemm.cuh, then set kStep6Written = true");
  }
  require_wgmma("lab08 step 6 (tf32_bf16_wgmma)");
  (void)tiles::make_geometry(a.shape, kSliceDepth);  // the shape's checks before any plan
  const WgmmaPlan p = wgmma_plan(a.shape, sm_count());
  // A reduction too short for step 4's products (132 units each) and the chain's truncations to
  // keep the FP32 rule (fewer than 269 terms in one part): step 5, which keeps it from 93 terms
  // and hands shorter ones to step 2.
  if (!p.mixed_fits) return conv_layer_tf32x3_wgmma(a);
  run_wgmma<Precision::tf32_bf16>(a, p);
}

}  // namespace convlab::lab08
