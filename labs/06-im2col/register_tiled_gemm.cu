// Lab 06, step 3 — joint register and shared-memory tiling of the implicit GEMM, in four graded
// sub-steps (labs/06-im2col/README.md, step 3), each its own kernel, file and variant:
//
//   3a register_tiles     register_tiles.cuh (+ the index functions of implicit_gemm.cuh): an 8×8
//                         register tile per thread, strided over a 128×128 block tile; As[m][k]
//                         and Bs[k][n], one buffer each, plain loads;
//   3b transposed_float4  transposed_float4.cuh: As transposed, As[k][m]; each thread's 8 weights
//                         and 8 inputs per k read as two float4 each (two runs of 4 rows and
//                         columns per thread, warps as 4×8 patches); one buffer, plain loads;
//   3c async_copies       async_copies.cuh: 3b's tile, its slices copied with cp.async, 4 stages;
//   3d register_tiled     here, between the STEP 3d markers: the launch plan per layer, the block
//                         tile and split-K as choose_register_tile_plan (convlab/lab06_config.hpp)
//                         chooses them, split-K adding into a zeroed Y with atomicAdd.
//
// Idea:      step 2's GEMM with the unrolled matrix still only conceptual, but every thread
//            owns an 8×8 register tile of outputs: per k it reads 8 weights and 8 unrolled
//            inputs from shared memory and does 64 multiply-adds with them (step 2: 2 shared
//            loads per multiply-add; here 16 per 64). The batch is merged into the GEMM's
//            columns, n = b·Ho·Wo + h·Wo + w of a C·K·K × B·Ho·Wo matrix, so that layers of
//            small images still give many blocks.
// You write: each sub-step between its markers, then its kStep3xWritten = true; until then its
//            variant says "not implemented" and names what to write. The launches of 3a–3c are
//            given (below): BM×BN = 128×128 block tiles (64×128 when M ≤ 64), BK = 8,
//            (BM/8)·(BN/8) threads. Keep the markers, names and parameters: the given code and
//            the tests rely on them.
//
// Shapes: X [B][C][H][W], W [M][C][K][K] (= A, M × C·K·K row-major), Y [B][M][Ho][Wo].
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
inline constexpr bool kStep3dWritten = false;  // TODO(step 3d): true once AtomicAddTile, launch_tile and
                                               // launch_plan are written

/// Split-K's store: the blocks of different splits add their partial sums into Y (zeroed first).
template <int BM, int BN>
struct AtomicAddTile {
  float* Y;
  Geometry g;
  __device__ void operator()(const float (&acc)[TM][TN], int m0, int n0, int ty, int tx) const {
    // TODO(step 3d): store_tile's loops (step 3b) without the float4 path, with
    //                atomicAdd(<the output's address>, acc[i][j]) in place of the store.
    (void)acc, (void)m0, (void)n0, (void)ty, (void)tx;
  }
};

/// One block tile: step 3c's kernel, and with splits > 1 the reduction split over blockIdx.z,
/// Y zeroed first and the tiles added with AtomicAddTile.
template <int BM, int BN, int BK, int STAGES, int MIN_BLOCKS>
void launch_tile(const ConvLayerArgs& a, int splits) {
  // TODO(step 3d): g = make_geometry(a.shape, BK). When the split is real (splits and
  //                ⌈C·K·K / BK⌉ both above 1): CUDA_CHECK(cudaMemsetAsync(a.Y, 0, <Y's bytes:
  //                a.shape.output_elements() floats>)) (the same stream orders it before the kernel), then
  //                launch_async_copies<BM, BN, BK, STAGES, MIN_BLOCKS>(a, splits, AtomicAddTile<BM, BN>{a.Y, g});
  //                otherwise step 3c's launch, with StoreTile<BM, BN>{a.Y, g, vector_store_ok(a, g)}.
  (void)a, (void)splits;
}

/// The plan's block tile → its kernel (BK = 8, four stages). MIN_BLOCKS = 512 / threads: 128
/// registers per thread at most, so that 512 threads fit on an SM.
void launch_plan(const ConvLayerArgs& a, const RegisterTilePlan& plan) {
  // TODO(step 3d): `plan` (choose_register_tile_plan in convlab/lab06_config.hpp; called for you
  //                below with this GPU's SM count) names the block tile bm × bn (128×128, 64×128,
  //                128×64 or 64×64), the splits, and bk = kStep3SliceDepth. A tile is a template
  //                argument: one launch_tile<bm, bn, kStep3SliceDepth, 4, MIN_BLOCKS>(a, plan.splits)
  //                per tile, MIN_BLOCKS 2, 4, 4, 8; any other plan: throw std::invalid_argument
  //                naming it.
  (void)a, (void)plan;
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
