// Lab 06, step 3 — joint register and shared-memory tiling of the implicit GEMM (reference).
//
// Idea:      the GEMM of step 2, Y = W[M][C·K·K] × X_unroll[C·K·K][B·Ho·Wo], with the unrolled
//            matrix still only conceptual, but every thread now owns an 8×8 register tile of
//            outputs: per reduction row it reads 8 weights and 8 unrolled inputs from shared
//            memory and does 64 multiply-adds with them, 128 flops from 16 shared-memory floats
//            (8 per float, step 2: 1).
// Adds:      over step 2, in four graded sub-steps, each a kernel of its own file:
//            3a register_tiles.cuh    the register tile (TM×TN = 8×8, strided over the block
//                                     tile), the batch merged into the GEMM's columns
//                                     (n = b·Ho·Wo + h·Wo + w: a layer of 14×14 images still
//                                     gives many blocks), and the im2col index arithmetic out of
//                                     the inner loop: columns decoded once, a (c, p, q) cursor
//                                     per row moved on by BK with carries (implicit_gemm.cuh);
//            3b transposed_float4.cuh As stored transposed and the fragments read as float4, two
//                                     runs of 4 rows and columns per thread, warps as 4×8 patches
//                                     (4 conflict-free shared loads per 64 multiply-adds);
//            3c async_copies.cuh      cp.async (zero-filling padding taps) four slices deep: while
//                                     one slice is multiplied, the next three are on their way;
//            3d here                  the launch plan per layer, choose_register_tile_plan
//                                     (convlab/lab06_config.hpp): the block tile (128×128, 64×128,
//                                     128×64, 64×64) and split-K (atomic adds into a zeroed Y)
//                                     when the grid is too small to fill the GPU.
//            Beyond the lab (at the end): a bias + ReLU epilogue in the same pass (the stretch
//            step: kernel fusion), explicit plans for the benchmark.
// Achieves:  compute-bound FFMA code: `build/bin/conv_layer_bench` gives its TFLOP/s against
//            cuDNN (float32, FMA math) and cuBLAS on the same GPU.
//
// Same file as labs/06-im2col/register_tiled_gemm.cu with step 3d written, followed by what the
// benchmark and the tests call (lab06_extras.cuh).
//
// Shapes: X [B][C][H][W], W [M][C][K][K] (= the GEMM's A, M × C·K·K row-major),
//         Y [B][M][Ho][Wo]. All indices fit in int: make_geometry() checks every tensor has
//         fewer than 2^31 elements.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "async_copies.cuh"
#include "convlab/ceil_div.hpp"
#include "convlab/lab06_config.hpp"
#include "convlab/lab_api.cuh"
#include "register_tiles.cuh"
#include "transposed_float4.cuh"

namespace convlab::lab06 {
namespace {

using namespace gemm;

// ---- The launches of the sub-steps -----------------------------------------------------------

/// The GPU's number of SMs, asked once (step 3d's plan fills them).
int sm_count() {
  static const int count = [] {
    int device = 0, n = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device));
    return n;
  }();
  return count;
}

/// Whether store_tile may store Y a float4 at a time: a run of 4 columns is then one aligned
/// float4 of one image.
bool vector_store_ok(const ConvLayerArgs& a, const Geometry& g) {
  return g.HoWo % 4 == 0 && reinterpret_cast<std::uintptr_t>(a.Y) % 16 == 0;
}

/// Step 3a: BM×BN block tiles over the whole batch, (BM/TM)·(BN/TN) threads.
template <int BM, int BN>
void launch_register_tiles(const ConvLayerArgs& a) {
  const Geometry g = make_geometry(a.shape, kStep3SliceDepth);
  const dim3 grid(ceil_div(g.N, BN), ceil_div(g.M, BM));
  register_tiles_kernel<BM, BN><<<grid, (BM / TM) * (BN / TN)>>>(a.X, a.W, a.Y, g);
  CUDA_CHECK(cudaGetLastError());
}

/// Step 3b: the same grid.
template <int BM, int BN>
void launch_transposed_float4(const ConvLayerArgs& a) {
  const Geometry g = make_geometry(a.shape, kStep3SliceDepth);
  const dim3 grid(ceil_div(g.N, BN), ceil_div(g.M, BM));
  transposed_float4_kernel<BM, BN><<<grid, (BM / TM) * (BN / TN)>>>(a.X, a.W, a.Y, g, vector_store_ok(a, g));
  CUDA_CHECK(cudaGetLastError());
}

/// Steps 3c and 3d: the same grid times `splits` along z (1: no split), each split summing
/// ⌈k_tiles / splits⌉ slices of BK rows (none empty), and its tiles handed to `store`.
template <int BM, int BN, int BK, int STAGES, int MIN_BLOCKS, class Store>
void launch_async_copies(const ConvLayerArgs& a, int splits, Store store) {
  const Geometry g = make_geometry(a.shape, BK);  // its step_* are BK's
  const int k_tiles = ceil_div(g.Kdim, BK);
  const int per_split = ceil_div(k_tiles, std::clamp(splits, 1, k_tiles));
  const dim3 grid(ceil_div(g.N, BN), ceil_div(g.M, BM), ceil_div(k_tiles, per_split));
  async_copies_kernel<BM, BN, BK, STAGES, MIN_BLOCKS><<<grid, (BM / TM) * (BN / TN)>>>(a.X, a.W, g, per_split, store);
  CUDA_CHECK(cudaGetLastError());
}

// ==== BEGIN STEP 3d: tile choice and split-K ====
inline constexpr bool kStep3dWritten = true;  // true once AtomicAddTile, launch_tile and launch_plan are written

/// Split-K's store: the blocks of different splits add their partial sums into Y (zeroed first).
template <int BM, int BN>
struct AtomicAddTile {
  float* Y;
  Geometry g;
  __device__ void operator()(const float (&acc)[TM][TN], int m0, int n0, int ty, int tx) const {
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int n = n0 + fragment_col<BN>(j, tx);
      if (n >= g.N) continue;
      const int b = n / g.HoWo;
      float* y = Y + (b * g.M * g.HoWo + (n - b * g.HoWo));
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const int m = m0 + fragment_row<BM>(i, ty);
        if (m < g.M) atomicAdd(y + m * g.HoWo, acc[i][j]);
      }
    }
  }
};

/// One block tile: step 3c's kernel, and with splits > 1 the reduction split over blockIdx.z,
/// Y zeroed first and the tiles added with AtomicAddTile.
template <int BM, int BN, int BK, int STAGES, int MIN_BLOCKS>
void launch_tile(const ConvLayerArgs& a, int splits) {
  const Geometry g = make_geometry(a.shape, BK);
  if (std::min(splits, ceil_div(g.Kdim, BK)) > 1) {
    CUDA_CHECK(cudaMemsetAsync(a.Y, 0, a.shape.output_elements() * sizeof(float)));
    launch_async_copies<BM, BN, BK, STAGES, MIN_BLOCKS>(a, splits, AtomicAddTile<BM, BN>{a.Y, g});
  } else {
    launch_async_copies<BM, BN, BK, STAGES, MIN_BLOCKS>(a, 1, StoreTile<BM, BN>{a.Y, g, vector_store_ok(a, g)});
  }
}

/// The plan's block tile → its kernel (BK = 8, four stages). MIN_BLOCKS = 512 / threads: 128
/// registers per thread at most, so that 512 threads fit on an SM.
void launch_plan(const ConvLayerArgs& a, const RegisterTilePlan& plan) {
  constexpr int BK = kStep3SliceDepth;
  if (plan.bk == BK) {
    if (plan.bm == 128 && plan.bn == 128) return launch_tile<128, 128, BK, 4, 2>(a, plan.splits);
    if (plan.bm == 64 && plan.bn == 128) return launch_tile<64, 128, BK, 4, 4>(a, plan.splits);
    if (plan.bm == 128 && plan.bn == 64) return launch_tile<128, 64, BK, 4, 4>(a, plan.splits);
    if (plan.bm == 64 && plan.bn == 64) return launch_tile<64, 64, BK, 4, 8>(a, plan.splits);
  }
  throw std::invalid_argument("lab06: no compiled block tile " + std::to_string(plan.bm) + "x" +
                              std::to_string(plan.bn) + "x" + std::to_string(plan.bk));
}
// ==== END STEP 3d ====

// ---- Which steps a variant needs: "not implemented" names the variant's own step first, then
//      the first earlier step it builds on that is still missing.

struct Step {
  bool written;
  const char* name;  // "3b (transposed As, float4)"
  const char* what;  // what to write, and where
  const char* flag;  // the constant to set
};

const Step kSteps[] = {
    {kStep3aWritten, "3a (register tiles)",
     "decode_column, row_cursor, advance_cursor and locate in implicit_gemm.cuh and register_tiles_kernel in "
     "register_tiles.cuh",
     "kStep3aWritten"},
    {kStep3bWritten, "3b (transposed As, float4)",
     "multiply_slice, store_tile and transposed_float4_kernel in transposed_float4.cuh", "kStep3bWritten"},
    {kStep3cWritten, "3c (async copies)", "async_copies_kernel in async_copies.cuh", "kStep3cWritten"},
    {kStep3dWritten, "3d (tile choice and split-K)", "AtomicAddTile, launch_tile and launch_plan in register_tiled_gemm.cu",
     "kStep3dWritten"},
};

/// True when step `own` (0 = 3a .. 3 = 3d) and every step before it are written; else reports the
/// first missing one through not_implemented() (the runner prints "not implemented (...)").
bool steps_written(int own) {
  static thread_local std::string message;
  const Step& o = kSteps[own];
  if (!o.written) {
    message = fmt::format("lab06 step {}: write {}, then set {} = true", o.name, o.what, o.flag);
    not_implemented(message.c_str());
    return false;
  }
  for (int n = 0; n < own; ++n) {
    const Step& s = kSteps[n];
    if (!s.written) {
      message = fmt::format("lab06 step {} needs step {}: write {}, then set {} = true", o.name, s.name, s.what, s.flag);
      not_implemented(message.c_str());
      return false;
    }
  }
  return true;
}

}  // namespace

// The sub-steps' variants. 3a–3c: 128×128 block tiles, 64×128 when M ≤ 64 (a 128-row tile would
// leave half its threads without filters); 3d: the plan.

void conv_layer_register_tiles(const ConvLayerArgs& a) {
  if (!steps_written(0)) return;
  if (a.shape.filters <= 64) return launch_register_tiles<64, 128>(a);
  launch_register_tiles<128, 128>(a);
}

void conv_layer_transposed_float4(const ConvLayerArgs& a) {
  if (!steps_written(1)) return;
  if (a.shape.filters <= 64) return launch_transposed_float4<64, 128>(a);
  launch_transposed_float4<128, 128>(a);
}

void conv_layer_async_copies(const ConvLayerArgs& a) {
  if (!steps_written(2)) return;
  const Geometry g = make_geometry(a.shape, kStep3SliceDepth);
  if (a.shape.filters <= 64) {
    return launch_async_copies<64, 128, kStep3SliceDepth, 4, 4>(a, 1, StoreTile<64, 128>{a.Y, g, vector_store_ok(a, g)});
  }
  launch_async_copies<128, 128, kStep3SliceDepth, 4, 2>(a, 1, StoreTile<128, 128>{a.Y, g, vector_store_ok(a, g)});
}

void conv_layer_register_tiled_gemm(const ConvLayerArgs& a) {
  if (!steps_written(3)) return;
  a.shape.validate();
  launch_plan(a, choose_register_tile_plan(a.shape, sm_count(), /*allow_split=*/true));
}

}  // namespace convlab::lab06

// ---- Beyond the lab ----
// What the benchmark (grader/bench/conv_layer_bench.cu) and the in-process tests
// (tests/gpu/gpu_test_lab06.cpp) call besides the graded functions, declared in lab06_extras.cuh.
#include <vector>

#include "lab06_extras.cuh"

namespace convlab::lab06 {
namespace {

/// The stretch step's epilogue: Y = max(W ⊛ X + bias[m], 0), applied to the register tile before
/// it is stored (kernel fusion: no second pass over Y). Not linear, so never with split-K.
template <int BM, int BN>
struct BiasReluTile {
  float* Y;
  Geometry g;
  bool vector_store;
  const float* bias;
  __device__ void operator()(const float (&acc)[TM][TN], int m0, int n0, int ty, int tx) const {
    float out[TM][TN];  // out[i][j] = max(acc[i][j] + bias[m], 0), m = m0 + fragment_row(i)
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int m = m0 + fragment_row<BM>(i, ty);
      const float bm = m < g.M ? __ldg(bias + m) : 0.0f;
#pragma unroll
      for (int j = 0; j < TN; ++j) out[i][j] = fmaxf(acc[i][j] + bm, 0.0f);
    }
    store_tile<BM, BN>(Y, out, g, m0, n0, ty, tx, vector_store);
  }
};

template <int BM, int BN, int MIN_BLOCKS>
void launch_bias_relu(const ConvLayerArgs& a, const float* bias) {
  const Geometry g = make_geometry(a.shape, kStep3SliceDepth);
  launch_async_copies<BM, BN, kStep3SliceDepth, 4, MIN_BLOCKS>(
      a, 1, BiasReluTile<BM, BN>{a.Y, g, vector_store_ok(a, g), bias});
}

}  // namespace

std::vector<RegisterTilePlan> register_tiled_tiles() {
  return {{128, 128, 1, kStep3SliceDepth}, {64, 128, 1, kStep3SliceDepth}, {128, 64, 1, kStep3SliceDepth},
          {64, 64, 1, kStep3SliceDepth},   {128, 128, 1, 16},              {64, 128, 1, 16}};
}

RegisterTilePlan register_tiled_plan(const ConvLayerShape& s, bool allow_split) {
  s.validate();
  return choose_register_tile_plan(s, sm_count(), allow_split);
}

void conv_layer_register_tiled_with(const ConvLayerArgs& a, RegisterTilePlan plan) {
  // Deeper slices (BK = 16): half the barriers; two stages fit in 48 KB.
  if (plan.bk == 16 && plan.bm == 128 && plan.bn == 128) return launch_tile<128, 128, 16, 2, 2>(a, plan.splits);
  if (plan.bk == 16 && plan.bm == 64 && plan.bn == 128) return launch_tile<64, 128, 16, 2, 4>(a, plan.splits);
  launch_plan(a, plan);
}

void conv_layer_bias_relu(const ConvLayerArgs& a, const float* bias) {
  const RegisterTilePlan plan = register_tiled_plan(a.shape, /*allow_split=*/false);  // ReLU needs the whole sum
  if (plan.bm == 128 && plan.bn == 128) return launch_bias_relu<128, 128, 2>(a, bias);
  if (plan.bm == 64 && plan.bn == 128) return launch_bias_relu<64, 128, 4>(a, bias);
  if (plan.bm == 128 && plan.bn == 64) return launch_bias_relu<128, 64, 4>(a, bias);
  launch_bias_relu<64, 64, 8>(a, bias);
}

}  // namespace convlab::lab06
