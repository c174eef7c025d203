// Lab 06, step 3 — joint register and shared-memory tiling of the implicit GEMM.
//
// Idea:      the GEMM of step 2, Y[b] = W[M][C·K·K] × X_unroll[C·K·K][Ho·Wo], with the unrolled
//            matrix still only conceptual, but every thread now owns an 8×8 register tile of
//            outputs. Per k it reads 8 weights and 8 unrolled inputs from shared memory (as four
//            16-byte loads) and does 64 multiply-adds with them: 128 flops from 16 shared-memory
//            floats, 8 flops per float instead of step 2's 1.
// Adds:      over step 2
//            * register tiling (TM×TN = 8×8 per thread, split as 2×2 sub-tiles of 4×4 so the
//              fragment loads are float4; each warp is a 4×8 patch of threads, so that every
//              fragment load is one conflict-free shared-memory wavefront);
//            * the batch merged into the GEMM's columns: column n = b·Ho·Wo + h·Wo + w, so a layer
//              with small images (14×14) still gives enough blocks;
//            * the im2col index arithmetic moved out of the inner loop: each thread decodes its
//              columns (b, h, w) once, and keeps a (c, p, q) cursor per unrolled row that it
//              advances by BK with two conditional carries — no division per element;
//            * asynchronous copies (cp.async, zero-filling padding taps) four BK-slices deep:
//              while one slice is multiplied, the next three are on their way from global memory,
//              without passing through registers;
//            * a launch plan per layer: the block tile (128×128, 64×128, 128×64, 64×64) and a
//              split of the C·K·K reduction over blocks (split-K) when the grid is too small
//              to fill the GPU, chosen by a small model of waves over the SMs;
//            * an epilogue hook, used by the stretch step's fused bias + ReLU (kernel fusion:
//              the activation costs no extra pass over Y).
// Achieves:  compute-bound FFMA code: `build/bin/conv_layer_bench` gives its TFLOP/s against
//            cuDNN (float32, FMA math) and cuBLAS on the same GPU.
//
// Shapes: X [B][C][H][W], W [M][C][K][K] (= the GEMM's A, M × C·K·K row-major),
//         Y [B][M][Ho][Wo]. All indices fit in int: the launcher checks every tensor has fewer
//         than 2^31 elements.
#include <algorithm>
#include <cmath>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "convlab/ceil_div.hpp"
#include "convlab/lab_api.cuh"
#include "implicit_gemm.cuh"
#include "lab06_extras.cuh"

namespace convlab::lab06 {
namespace {

using gemm::Geometry;

constexpr int kBK = kStep3SliceDepth;  // depth of a reduction slice (shared-memory tiles BM×kBK and kBK×BN)
constexpr int kStages = 4;  // slices in flight: one being multiplied, up to three being copied

// ---- Epilogues: what happens to a finished output before it is stored -----------------------

// `linear` epilogues may be applied to partial sums, so they allow split-K (atomics add the
// partial sums of different blocks); ReLU of a partial sum is not the ReLU of the sum.
struct StoreOutput {  // plain convolution: Y = W ⊛ X
  static constexpr bool linear = true;
  __device__ float operator()(float v, int /*m*/) const { return v; }
};

struct BiasRelu {  // stretch step: Y = max(W ⊛ X + bias[m], 0) in the same pass
  static constexpr bool linear = false;
  const float* __restrict__ bias;
  __device__ float operator()(float v, int m) const { return fmaxf(v + __ldg(bias + m), 0.0f); }
};

// ---- The kernel ------------------------------------------------------------------------------
//
// Block tile BM×BN of Y (rows m = filters, columns n = b·Ho·Wo + h·Wo + w), reduction in slices
// of BK. Threads form a (BM/8) × (BN/8) grid, each warp a 4×8 patch of it; thread (ty, tx) owns
// rows {ty·4 + i, BM/2 + ty·4 + i} and columns {tx·4 + j, BN/2 + tx·4 + j}, i, j < 4.
//
// Loading one BK-slice: gemm::SliceLoader (implicit_gemm.cuh), STAGES slices in flight. A is
// stored transposed, As[k][m], so the compute loop reads 4 consecutive m.
// blockIdx.z is the split of the reduction this block sums (split-K); with splits > 1 blocks
// add into a zeroed Y with atomics.
//
// MIN_BLOCKS, __launch_bounds__' second argument, caps the registers per thread so that that many
// blocks fit on an SM (512 threads: 128 registers each).
//
// The sub-steps of the README are this kernel with features switched off: FLOAT4 = false reads
// the fragments one float at a time (step 3a, register tiles); ASYNC = false copies slices with
// ordinary loads (3a, 3b); the launch plan's tile choice and split-K are step 3d.
template <int BM, int BN, int BK, int STAGES, int MIN_BLOCKS, class Epilogue, bool ASYNC = true, bool FLOAT4 = true>
__global__ void __launch_bounds__((BM / 8) * (BN / 8), MIN_BLOCKS)
implicit_gemm_register_tiled(const float* __restrict__ X, const float* __restrict__ Wt, float* __restrict__ Y,
                             Geometry g, int k_tiles_per_split, bool vector_store, Epilogue epilogue) {
  constexpr int TM = 8, TN = 8;
  constexpr int THREADS_X = BN / TN;
  constexpr int THREADS = (BM / TM) * THREADS_X;
  constexpr int PAD = 4;                           // keeps rows 16-byte aligned; see the A store
  using Loader = gemm::SliceLoader<BM, BN, BK, THREADS>;
  static_assert(THREADS % 32 == 0 && THREADS <= 512, "whole warps, at most 512 threads");
  static_assert(BM % 32 == 0 && BN % 32 == 0, "tiles are whole warps wide (and As/Bs rows bank-aligned)");
  // A warp's A copies cover 32/BK rows × BK slice rows: with PAD = 4 they hit 32 distinct banks
  // for BK = 8 (2-way conflicts for BK = 16). g.step_* must have been computed for this BK.
  static_assert(STAGES >= 2, "at least double buffering");
  static_assert(STAGES * BK * (BM + BN + 2 * PAD) * 4 <= 48 * 1024, "static shared memory is 48 KB at most");

  __shared__ __align__(16) float As[STAGES][BK][BM + PAD];
  __shared__ __align__(16) float Bs[STAGES][BK][BN + PAD];

  const int tid = threadIdx.x;
  const int lane = tid % 32;
  const int warp = tid / 32;
  // A warp's 32 threads form a 4×8 patch of the thread grid: per k, its fragment loads then read
  // 4 + 4 distinct float4 of As (64 B twice) and 8 + 8 of Bs (128 B twice), one shared-memory
  // wavefront each. (A 2×16 patch would need two wavefronts per B load.)
  constexpr int WARP_TY = 4, WARP_TX = 8;
  constexpr int WARPS_X = THREADS_X / WARP_TX;
  static_assert(THREADS_X % WARP_TX == 0 && (BM / TM) % WARP_TY == 0, "whole 4×8 warp patches");
  const int tx = (warp % WARPS_X) * WARP_TX + lane % WARP_TX;
  const int ty = (warp / WARPS_X) * WARP_TY + lane / WARP_TX;
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;

  const int k_tiles = ceil_div(g.Kdim, BK);
  const int kt_begin = blockIdx.z * k_tiles_per_split;
  const int kt_end = min(k_tiles, kt_begin + k_tiles_per_split);
  if (kt_begin >= kt_end) return;  // an empty split (the host avoids them; harmless with atomics)

  Loader load(g, m0, n0, kt_begin);
  auto issue_slice = [&](int kt, int stage) { load.template issue<ASYNC>(kt, As[stage], Bs[stage], X, Wt, g); };

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  }

  // Prologue: slices kt_begin .. kt_begin + STAGES - 2 in flight, one commit group each (a group
  // may be empty near the end: the counting in copy_async_wait stays uniform).
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (kt_begin + s < kt_end) issue_slice(kt_begin + s, s);
    gemm::copy_async_commit();
  }

  int stage = 0;  // where slice kt lies
  for (int kt = kt_begin; kt < kt_end; ++kt) {
    gemm::copy_async_wait<STAGES - 2>();  // this thread's copies of slice kt have landed ...
    __syncthreads();                // ... and everyone's; and slice kt-1's stage is free again
    {
      const int next = kt + STAGES - 1;
      const int next_stage = stage == 0 ? STAGES - 1 : stage - 1;  // the stage slice kt-1 used
      if (next < kt_end) issue_slice(next, next_stage);
      gemm::copy_async_commit();
    }

#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a[TM];
      float b[TN];
      if constexpr (FLOAT4) {
        const float4 a_lo = *reinterpret_cast<const float4*>(&As[stage][kk][ty * 4]);
        const float4 a_hi = *reinterpret_cast<const float4*>(&As[stage][kk][BM / 2 + ty * 4]);
        const float4 b_lo = *reinterpret_cast<const float4*>(&Bs[stage][kk][tx * 4]);
        const float4 b_hi = *reinterpret_cast<const float4*>(&Bs[stage][kk][BN / 2 + tx * 4]);
        a[0] = a_lo.x, a[1] = a_lo.y, a[2] = a_lo.z, a[3] = a_lo.w;
        a[4] = a_hi.x, a[5] = a_hi.y, a[6] = a_hi.z, a[7] = a_hi.w;
        b[0] = b_lo.x, b[1] = b_lo.y, b[2] = b_lo.z, b[3] = b_lo.w;
        b[4] = b_hi.x, b[5] = b_hi.y, b[6] = b_hi.z, b[7] = b_hi.w;
      } else {  // one float per shared-memory load (step 3a)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          a[i] = As[stage][kk][ty * 4 + i];
          a[4 + i] = As[stage][kk][BM / 2 + ty * 4 + i];
          b[i] = Bs[stage][kk][tx * 4 + i];
          b[4 + i] = Bs[stage][kk][BN / 2 + tx * 4 + i];
        }
      }
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
    }
    stage = stage == STAGES - 1 ? 0 : stage + 1;
  }
  gemm::copy_async_wait<0>();  // no copy may outlive the block (the trailing groups are empty)

  // Epilogue: register tile → Y[b][m][h][w]. Column n = b·HoWo + hw sits at b·M·HoWo + m·HoWo + hw.
  const bool atomic = gridDim.z > 1;
#pragma unroll
  for (int half_n = 0; half_n < 2; ++half_n) {
    const int n_first = n0 + half_n * (BN / 2) + tx * 4;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      // With Ho·Wo % 4 == 0 the 4 columns lie in one image and form one aligned float4: the
      // first of them stores all four.
      if (vector_store && j > 0) break;
      const int n = n_first + j;
      if (n >= g.N) break;
      const int b = n / g.HoWo;
      float* y = Y + (b * g.M * g.HoWo + (n - b * g.HoWo));
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const int m = m0 + (i < 4 ? ty * 4 + i : BM / 2 + ty * 4 + i - 4);
        if (m >= g.M) break;  // rows grow with i within each half; the second half is higher
        float* dst = y + m * g.HoWo;
        const int jj = half_n * 4 + j;
        if (vector_store) {
          if (atomic) {
#pragma unroll
            for (int v = 0; v < 4; ++v) atomicAdd(dst + v, acc[i][jj + v]);
          } else {
            *reinterpret_cast<float4*>(dst) = make_float4(epilogue(acc[i][jj], m), epilogue(acc[i][jj + 1], m),
                                                          epilogue(acc[i][jj + 2], m), epilogue(acc[i][jj + 3], m));
          }
        } else if (atomic) {
          atomicAdd(dst, acc[i][jj]);
        } else {
          *dst = epilogue(acc[i][jj], m);
        }
      }
    }
  }
}

// ---- Launch plans ----------------------------------------------------------------------------

template <int BM, int BN, int BK, int STAGES, int MIN_BLOCKS, class Epilogue, bool ASYNC = true, bool FLOAT4 = true>
void launch_tile(const ConvLayerArgs& a, int splits, Epilogue epilogue) {
  constexpr int threads = (BM / 8) * (BN / 8);
  const Geometry g = gemm::make_geometry(a.shape, BK);
  const int k_tiles = ceil_div(g.Kdim, BK);
  splits = std::clamp(splits, 1, k_tiles);
  const int per_split = ceil_div(k_tiles, splits);
  splits = ceil_div(k_tiles, per_split);  // no empty split
  if (splits > 1 && !Epilogue::linear) {
    throw std::invalid_argument("lab06: split-K needs a linear epilogue (bias + ReLU is not)");
  }
  if (splits > 1) {
    // Blocks of different splits add their partial sums into Y: start from zero.
    CUDA_CHECK(cudaMemsetAsync(a.Y, 0, a.shape.output_elements() * sizeof(float)));
  }
  const bool vector_store = g.HoWo % 4 == 0 && reinterpret_cast<std::uintptr_t>(a.Y) % 16 == 0;
  const dim3 grid(ceil_div(g.N, BN), ceil_div(g.M, BM), splits);
  implicit_gemm_register_tiled<BM, BN, BK, STAGES, MIN_BLOCKS, Epilogue, ASYNC, FLOAT4>
      <<<grid, threads>>>(a.X, a.W, a.Y, g, per_split, vector_store, epilogue);
  CUDA_CHECK(cudaGetLastError());
}

// Registers are capped so that 512 threads fit on an SM (MIN_BLOCKS = 512 / threads).
template <class Epilogue>
void launch_plan(const ConvLayerArgs& a, RegisterTilePlan plan, Epilogue epilogue) {
  if (plan.bk == kBK) {
    if (plan.bm == 128 && plan.bn == 128) return launch_tile<128, 128, kBK, kStages, 2>(a, plan.splits, epilogue);
    if (plan.bm == 64 && plan.bn == 128) return launch_tile<64, 128, kBK, kStages, 4>(a, plan.splits, epilogue);
    if (plan.bm == 128 && plan.bn == 64) return launch_tile<128, 64, kBK, kStages, 4>(a, plan.splits, epilogue);
    if (plan.bm == 64 && plan.bn == 64) return launch_tile<64, 64, kBK, kStages, 8>(a, plan.splits, epilogue);
  }
  if (plan.bk == 16) {  // deeper slices, half the barriers; two stages fit in 48 KB
    if (plan.bm == 128 && plan.bn == 128) return launch_tile<128, 128, 16, 2, 2>(a, plan.splits, epilogue);
    if (plan.bm == 64 && plan.bn == 128) return launch_tile<64, 128, 16, 2, 4>(a, plan.splits, epilogue);
  }
  throw std::invalid_argument("lab06: no compiled block tile " + std::to_string(plan.bm) + "x" +
                              std::to_string(plan.bn) + "x" + std::to_string(plan.bk));
}

int sm_count() {
  static const int count = [] {
    int device = 0, n = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device));
    return n;
  }();
  return count;
}

}  // namespace

std::vector<RegisterTilePlan> register_tiled_tiles() {
  return {{128, 128, 1, kBK}, {64, 128, 1, kBK}, {128, 64, 1, kBK}, {64, 64, 1, kBK}, {128, 128, 1, 16}, {64, 128, 1, 16}};
}

// The plan: convlab/lab06_config.hpp's chooser (a model of waves over this GPU's SMs), the one
// the analysis model uses for its predictions.
RegisterTilePlan register_tiled_plan(const ConvLayerShape& s, bool allow_split) {
  s.validate();
  return choose_register_tile_plan(s, sm_count(), allow_split);
}

void conv_layer_register_tiled_with(const ConvLayerArgs& a, RegisterTilePlan plan) {
  launch_plan(a, plan, StoreOutput{});
}

void conv_layer_bias_relu(const ConvLayerArgs& a, const float* bias) {
  const RegisterTilePlan plan = register_tiled_plan(a.shape, /*allow_split=*/false);  // ReLU needs the whole sum
  launch_plan(a, plan, BiasRelu{bias});
}

// The sub-steps of step 3 (README), each with the lab's given launch: 128×128 tiles (64×128 when
// M ≤ 64), no split-K.

void conv_layer_register_tiles(const ConvLayerArgs& a) {  // 3a: register tiles, plain copies
  if (a.shape.filters <= 64) return launch_tile<64, 128, kBK, 2, 4, StoreOutput, false, false>(a, 1, StoreOutput{});
  launch_tile<128, 128, kBK, 2, 2, StoreOutput, false, false>(a, 1, StoreOutput{});
}

void conv_layer_transposed_float4(const ConvLayerArgs& a) {  // 3b: transposed As, float4 fragments
  if (a.shape.filters <= 64) return launch_tile<64, 128, kBK, 2, 4, StoreOutput, false, true>(a, 1, StoreOutput{});
  launch_tile<128, 128, kBK, 2, 2, StoreOutput, false, true>(a, 1, StoreOutput{});
}

void conv_layer_async_copies(const ConvLayerArgs& a) {  // 3c: cp.async, kStages slices in flight
  if (a.shape.filters <= 64) return launch_tile<64, 128, kBK, kStages, 4>(a, 1, StoreOutput{});
  launch_tile<128, 128, kBK, kStages, 2>(a, 1, StoreOutput{});
}

void conv_layer_register_tiled_gemm(const ConvLayerArgs& a) {  // 3d: the tile and split-K per layer
  launch_plan(a, register_tiled_plan(a.shape, /*allow_split=*/true), StoreOutput{});
}

}  // namespace convlab::lab06
