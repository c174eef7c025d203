// Lab 08: the launchers of steps 1, 2, 5, 6 and 7 (given: nothing to write here; your steps are in
// tensor_core_gemm.cuh, wgmma_gemm.cuh and tf32_wgmma_gemm.cuh).
//
// Idea:      a layer is lab 06's GEMM, Y (M × B·Ho·Wo) = W (M × C·K·K) · X_unroll, fed to shared
//            memory as lab 06 step 3c feeds it; the multiply-adds run on tensor cores
//            (tensor_core_gemm.cuh).
// Adds:      over lab 06 step 3d, the tensor cores' arithmetic: step 1 rounds every operand to
//            TF32 (checked with the TF32 tolerance), once per call, as two passes put X
//            channels-last and W tap-major (nhwc_tiles.cuh), so that its kernel copies 16 bytes at
//            a time into K-major tiles and hands them to the MMAs as they are (on compute
//            capability 9.0 and later, for the layers step1_tma_fits takes, the TMA copies a
//            whole tile at one thread's request: tma_feed.cuh); the passes and the kernel overlap
//            where the GPU allows it (launch_overlapping); step 2 splits each
//            operand into two TF32 parts and sums three products (checked with labs 01–07's FP32
//            tolerance), on lab 06's loader. Few column tiles
//            (a small image, a small batch) share each output's reduction between blocks
//            (split-K, lab08_config.hpp). Step 5 is step 2 on Hopper's warpgroup MMA
//            (wgmma_gemm.cuh): B split once per block into shared-memory planes that the tensor
//            cores read themselves, a block's whole reduction chained on them where the FP32 rule
//            allows it (step 2 runs elsewhere), a narrower tile for layers of few tiles, and, with
//            whole groups of a slice's channels, W reordered once per call into the order its
//            slices are read in; it needs compute capability 9.0. Step 6 runs step 5's kernel
//            with step 4's arithmetic (two wgmmas a k8-step, the small products in BF16) where its
//            error budget keeps the FP32 rule, step 5 elsewhere. Step 7 runs step 1's passes and
//            tiles on wgmma, both operands read by the tensor cores from shared memory in the
//            128-byte swizzle (tf32_wgmma_gemm.cuh).
// Achieves:  `grader bench --only layers` times them against cuDNN and lab 06.
//
// Shapes: X [B][C][H][W], W [M][C][K][K], Y [B][M][Ho][Wo].
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <stdexcept>

#include "convlab/ceil_div.hpp"
#include "convlab/device_buffer.cuh"
#include "convlab/lab08_config.hpp"
#include "convlab/lab_api.cuh"
#include "tensor_core_gemm.cuh"
#include "tf32_wgmma_gemm.cuh"
#include "weight_order.cuh"
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

/// How launch_split_k runs a GEMM kernel: its block (threads, dynamic shared memory), its tile of
/// bm × bn outputs, and its reduction, `reduction` terms long in slices `depth` deep, shared by
/// `splits` blocks (split-K: atomic adds into a Y zeroed first).
struct GemmLaunch {
  int threads, smem, bm, bn, splits, depth, reduction;
};

/// The slices of the reduction each split sums, and the splits that this leaves (fewer than
/// l.splits where the slices do not divide evenly), as launch_split_k's grid has them.
int slices_per_split(const GemmLaunch& l) { return ceil_div(ceil_div(l.reduction, l.depth), l.splits); }
int split_count(const GemmLaunch& l) { return ceil_div(ceil_div(l.reduction, l.depth), slices_per_split(l)); }

/// Launches `kernel` so that it may begin before the kernel before it in the stream has ended
/// (programmatic dependent launch, compute capability 9.0; elsewhere an ordinary launch): its blocks
/// are placed once that kernel's have all said so (let_next_kernel_start) or ended, not after
/// a gap. The kernel must call wait_for_previous_kernel before it reads what that one wrote,
/// and before it ends.
template <typename... Params, typename... Args>
void launch_overlapping(void (*kernel)(Params...), dim3 grid, dim3 block, int smem, Args... args) {
  cudaLaunchAttribute overlap{};
  overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = static_cast<std::size_t>(smem);
  config.stream = nullptr;  // the default stream, which the harness times
  config.attrs = &overlap;
  config.numAttrs = 1;
  CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...));
}

/// Launches kKernel, one of the GEMM kernels, over the layer's tiles: X and W are the operands as
/// the kernel reads them (pointers, or step 1's TMA maps), `extra` its parameters after the
/// split's. A kernel of more than 48 KB of dynamic shared memory must opt in to it, once. With OVERLAP, by launch_overlapping, and a split's
/// Y is for the caller to zero, before the kernels whose ends this one overlaps.
template <auto kKernel, bool OVERLAP = false, typename XOperand, typename WOperand, typename... Extra>
void launch_split_k(const GemmLaunch& l, XOperand X, WOperand W, const ConvLayerArgs& a, const Geometry& g,
                    Extra... extra) {
  static const bool opted_in = [smem = l.smem] {
    CUDA_CHECK(cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    return true;
  }();
  (void)opted_in;
  const int per_split = slices_per_split(l);
  const dim3 grid(ceil_div(g.N, l.bn), ceil_div(g.M, l.bm), split_count(l));
  if constexpr (OVERLAP) {
    launch_overlapping(kKernel, grid, dim3(l.threads), l.smem, X, W, a.Y, g, per_split, grid.z > 1, extra...);
  } else {
    if (grid.z > 1) CUDA_CHECK(cudaMemsetAsync(a.Y, 0, a.shape.output_elements() * sizeof(float)));
    kKernel<<<grid, l.threads, l.smem>>>(X, W, a.Y, g, per_split, grid.z > 1, extra...);
    CUDA_CHECK(cudaGetLastError());
  }
}

/// A device buffer kept between calls in `slot` and grown to the largest size asked for: the
/// launchers' reordered copies of X and W, made once per call.
float* kept_buffer(std::unique_ptr<DeviceBuffer<float>>& slot, std::size_t n) {
  if (!slot || slot->size() < n) {
    slot.reset();  // free the smaller one first
    slot = std::make_unique<DeviceBuffer<float>>(n, 0);
  }
  return slot->data();
}

/// Launches order_weights: W's `count` matrices, R × S each, into Wo as S × Rp (weight_order.cuh),
/// then Y's first `zeroed` floats zeroed. A unit is RB rows, RB the power of two ≤ 32 that covers
/// Rp (or `row_block` if smaller), and all S taps; or fewer taps, down to a warp's worth of
/// elements, while there are too few units for 16 warps an SM: a small W is latency-bound, and
/// more warps in flight hide the latency.
template <bool ROUND>
void launch_order_weights(const float* W, float* Wo, int count, int rows, int cols, int padded_rows, int row_block,
                          float* Y, long long zeroed) {
  int shift = 0;
  while ((2 << shift) <= std::min(row_block, 32) && (1 << shift) < padded_rows) ++shift;
  const long long row_blocks = static_cast<long long>(count) * ceil_div(padded_rows, 1 << shift);
  const int fewest_taps = std::min(cols, 32 >> shift);  // a unit of fewer leaves lanes idle
  const long long wanted = 16LL * sm_count();
  const int tap_block = static_cast<int>(std::clamp<long long>(ceil_div(cols * row_blocks, wanted), fewest_taps, cols));
  const WeightOrder o{count, rows, cols, padded_rows, shift, tap_block};
  const long long units = row_blocks * ceil_div(cols, tap_block);
  const long long blocks = std::min(std::max(ceil_div(units, static_cast<long long>(kOrderWarps)),
                                             ceil_div(zeroed, 4LL * 32 * kOrderWarps)), 4096LL);
  order_weights<ROUND><<<static_cast<unsigned>(blocks), kOrderWarps * 32>>>(W, Wo, o, Y, zeroed);
  CUDA_CHECK(cudaGetLastError());
}

/// Step 2's kernel on 64-row tiles (block_m), split as split_k says.
void launch_tf32x3(const ConvLayerArgs& a, const Geometry& g) {
  const GemmLaunch l{kThreads, shared_bytes(64), 64, kBlockN, split_k(a.shape, 64, sm_count()), kSliceDepth, g.Kdim};
  launch_split_k<tensor_core_gemm<64>>(l, a.X, a.W, a, g);
}

/// Step 1's operands, X channels-last and W tap-major, their channels padded to `cp` and rounded to
/// TF32 (nhwc_tiles.cuh), as the GEMM kernels of steps 1 and 7 read them.
struct ChannelsLast {
  const float* Xr;
  const float* Wr;
};

/// The two passes of steps 1 and 7 into buffers kept between calls: W's (which zeroes Y when
/// `zero_y`: a split GEMM adds into it) and X's beside it, each launched to overlap the kernel
/// before it; the GEMM is then launched to overlap X's (launch_split_k's OVERLAP): gaps between
/// kernels fewer, 1-3 % of the call on the bench's layers (NVIDIA H200,
/// results/bench/nvidia-h200/lab08.md).
ChannelsLast reorder_channels_last(const ConvLayerArgs& a, const Geometry& g, int cp, bool zero_y) {
  static std::unique_ptr<DeviceBuffer<float>> xr_slot, wr_slot;
  const long long xr_elements = static_cast<long long>(a.shape.batch) * g.HW * cp;
  const long long wr_elements = static_cast<long long>(g.M) * g.KK * cp;
  if (xr_elements > INT_MAX || wr_elements > INT_MAX) {
    throw std::invalid_argument("lab08 steps 1 and 7: the channels-last copy of X or W would have 2^31 elements or "
                                "more (int indexing)");
  }
  float* Xr = kept_buffer(xr_slot, static_cast<std::size_t>(xr_elements));
  float* Wr = kept_buffer(wr_slot, static_cast<std::size_t>(wr_elements));
  const long long zeroed = zero_y ? static_cast<long long>(a.shape.output_elements()) : 0;
  launch_order_weights<true>(a.W, Wr, g.M, g.C, g.KK, cp, 32, a.Y, zeroed);  // each filter C × K·K to K·K × Cp
  const int positions = static_cast<int>(a.shape.batch * static_cast<long long>(g.HW));  // ≤ xr_elements
  if (cp <= nhwc::kFewChannels) {
    const int blocks = static_cast<int>(std::min<long long>(ceil_div(positions, 2 * 256), 16LL * sm_count()));
    launch_overlapping(nhwc::to_channels_last_few<>, dim3(blocks), dim3(256), 0, a.X, Xr, g, cp, positions);
  } else {
    constexpr int kTile = 32, kTilesPerBlock = 2;
    const long long tiles = ceil_div<long long>(positions, kTile) * ceil_div(cp, kTile);
    launch_overlapping(nhwc::to_channels_last<kTile, kTilesPerBlock>,
                       dim3(static_cast<unsigned>(ceil_div<long long>(tiles, kTilesPerBlock))), dim3(256), 0, a.X, Xr, g,
                       cp, positions);
  }
  return {Xr, Wr};
}

/// Step 1: the passes, then its kernel on BM-row tiles.
template <int BM>
void launch_tf32(const ConvLayerArgs& a, const Geometry& g) {
  const int cp = padded_channels(g.C);
  const GemmLaunch l{kThreads, nhwc_shared_bytes(BM), BM, kBlockN, nhwc_split_k(a.shape, BM, sm_count()),
                     kNhwcSliceDepth, g.KK * cp};
  const ChannelsLast r = reorder_channels_last(a, g, cp, split_count(l) > 1);
  launch_split_k<tensor_core_gemm_tf32<BM>, true>(l, r.Xr, r.Wr, a, g, cp);
}

/// Whether step 1 takes the TMA feed (tma_feed.cuh) on this layer: it fits (step1_tma_fits), and
/// the code loaded for the TMA kernel was compiled for compute capability 9.0 or later — a GPU
/// before it, or a build for older GPUs only (whose PTX the driver compiles, with the TMA's
/// wrappers trapping), keeps the cp.async feed.
bool step1_tma_feed(const ConvLayerShape& s) {
  if (!step1_tma_fits(s)) return false;
  static const bool compiled = [] {  // once per process: which code the runtime loaded does not change
    cudaFuncAttributes f{};
    CUDA_CHECK(cudaFuncGetAttributes(&f, tensor_core_gemm_tf32_tma<kTmaBlockM>));
    return f.ptxVersion >= 90;
  }();
  return compiled;
}

/// Step 1 on the TMA feed: the passes, the two tensor maps of their outputs, then its kernel on
/// 128-row tiles, split as fitted to its own times (tma_split_k).
void launch_tf32_tma(const ConvLayerArgs& a, const Geometry& g) {
  const int cp = padded_channels(g.C);
  const GemmLaunch l{kThreads, tma_shared_bytes(), kTmaBlockM, kBlockN, tma_split_k(a.shape, sm_count()),
                     kNhwcSliceDepth, g.KK * cp};
  const ChannelsLast r = reorder_channels_last(a, g, cp, split_count(l) > 1);
  const tma::Maps maps = tma::step1_maps(r.Xr, r.Wr, g, cp, a.shape.batch);
  launch_split_k<tensor_core_gemm_tf32_tma<kTmaBlockM>, true>(l, maps.x, maps.w, a, g, cp);
}

/// Step 7: step 1's passes, tiles and split, then its kernel on WG warpgroups; copies through L1
/// (L1) or to L2 only.
template <int WG, bool L1>
void launch_tf32_wgmma(const ConvLayerArgs& a, const Geometry& g) {
  const int cp = padded_channels(g.C), bm = wgmma_block_m(WG);
  const GemmLaunch l{WG * kWarpgroupThreads, tf32_wgmma_shared_bytes(WG), bm, kBlockN,
                     nhwc_split_k(a.shape, bm, sm_count()), kNhwcSliceDepth, g.KK * cp};
  const ChannelsLast r = reorder_channels_last(a, g, cp, split_count(l) > 1);
  launch_split_k<tensor_core_gemm_tf32_wgmma<WG, L1>, true>(l, r.Xr, r.Wr, a, g, cp);
}

/// W in the order of tiles::GroupTapLoader with slices `DEPTH` deep (each group of DEPTH channels
/// of a filter, DEPTH × K·K, to K·K × DEPTH), in a buffer kept between calls and grown to the
/// largest layer seen. One pass over W per call, so that every block does not fetch each weight of
/// a slice in a 32-byte sector of its own: 10–16 % off step 5 on the bench layers (NVIDIA H200,
/// results/bench/nvidia-h200/lab08.md). The same pass zeroes Y for a split GEMM (`zero_y`), and
/// the GEMM is launched to overlap its end.
template <int DEPTH>
const float* weights_in_group_tap_order(const ConvLayerArgs& a, const Geometry& g, bool zero_y) {
  static std::unique_ptr<DeviceBuffer<float>> ordered;
  float* Wg = kept_buffer(ordered, a.shape.weight_elements());
  const long long zeroed = zero_y ? static_cast<long long>(a.shape.output_elements()) : 0;
  launch_order_weights<false>(a.W, Wg, g.M * (g.C / DEPTH), DEPTH, g.KK, DEPTH, DEPTH, a.Y, zeroed);
  return Wg;
}

template <Precision Arith, typename Tile, int WG, bool GROUP_TAP, int BLOCKS_PER_SM>
void launch_wgmma(const ConvLayerArgs& a, int splits) {
  const Geometry g = tiles::make_geometry(a.shape, Tile::DEPTH);
  const GemmLaunch l{WG * kWarpgroupThreads, wgmma_shared_bytes<Tile>(WG, GROUP_TAP), wgmma_block_m(WG), Tile::N,
                     splits, Tile::DEPTH, g.Kdim};
  constexpr auto kKernel = wgmma_gemm<Arith, Tile, WG, GROUP_TAP, BLOCKS_PER_SM>;
  if constexpr (GROUP_TAP) {
    // W's pass zeroes a split's Y (launch_split_k then counts on it) and the GEMM overlaps its end
    const float* Wg = weights_in_group_tap_order<Tile::DEPTH>(a, g, split_count(l) > 1);
    launch_split_k<kKernel, true>(l, a.X, Wg, a, g);
  } else {
    launch_split_k<kKernel>(l, a.X, a.W, a, g);
  }
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
  require_tensor_cores();
  const Geometry g = tiles::make_geometry(a.shape, kNhwcSliceDepth);
  if (step1_tma_feed(a.shape)) return launch_tf32_tma(a, g);
  if (block_m(Precision::tf32, g.M) == 128) return launch_tf32<128>(a, g);
  launch_tf32<64>(a, g);
}

void conv_layer_tf32_wgmma(const ConvLayerArgs& a) {
  if (!kStep7Written) {
    return not_implemented("lab08 step 7 (step 1 on wgmma): write swizzled_chunk and wgmma_slice_tf32 in "
                           "tf32_wgmma_gemm.cuh, then set kStep7Written = true");
  }
  require_wgmma("lab08 step 7 (tf32_wgmma)");
  const Geometry g = tiles::make_geometry(a.shape, kNhwcSliceDepth);
  const bool l1 = tf32_wgmma_copies_through_l1(padded_channels(g.C));
  if (tf32_wgmma_warpgroups(g.M) == 2) return l1 ? launch_tf32_wgmma<2, true>(a, g) : launch_tf32_wgmma<2, false>(a, g);
  l1 ? launch_tf32_wgmma<1, true>(a, g) : launch_tf32_wgmma<1, false>(a, g);
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
  require_tensor_cores();
  launch_tf32x3(a, g);
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
