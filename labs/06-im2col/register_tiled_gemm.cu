// Lab 06, step 3 — joint register and shared-memory tiling of the implicit GEMM, in four graded
// sub-steps (labs/06-im2col/README.md): each sub-step is its own kernel and its own variant.
//
// Idea:      step 2's GEMM with the unrolled matrix still only conceptual, but every thread
//            owns an 8×8 register tile of outputs: per k it reads 8 weights and 8 unrolled
//            inputs from shared memory and does 64 multiply-adds with them (step 2: 2 shared
//            loads per multiply-add; here 16 per 64).
//            The batch is merged into the GEMM's columns: column n = b·Ho·Wo + h·Wo + w of a
//            C·K·K × B·Ho·Wo conceptual matrix, so layers with small images still give many blocks.
// You write, one sub-step at a time (delete its not_implemented() line when it passes):
//   3a register_tiles     register_tiled_kernel: 128×128×8 block tiles, an 8×8 register tile per
//                         thread, plain loads into shared memory, one buffer;
//   3b transposed_float4  a copy of 3a storing As transposed (As[k][m]) and reading each
//                         thread's 8 weights and 8 inputs as float4;
//   3c async_copies       a copy of 3b whose slices travel with cp.async, several in flight;
//   3d register_tiled     3c with the block tile chosen per layer and split-K (blockIdx.z sums a
//                         range of the reduction; atomicAdd into a zeroed Y).
//            The launchers of 3a–3c are given: BM×BN = 128×128 tiles (64×128 when M ≤ 64),
//            BK = 8, (BM/8)·(BN/8) threads.
//
// Shapes: X [B][C][H][W], W [M][C][K][K] (= A, M × C·K·K row-major), Y [B][M][Ho][Wo].
#include <climits>
#include <stdexcept>

#include "convlab/ceil_div.hpp"
#include "convlab/lab_api.cuh"

namespace convlab::lab06 {
namespace {

constexpr int BK = 8;  // depth of a reduction slice
constexpr int TM = 8;  // register tile: TM rows (filters) ...
constexpr int TN = 8;  // ... × TN columns (output positions) per thread

struct Geometry {
  int C, H, W, K, S, P, D;  // input channels and size, mask width, stride, padding, dilation
  int M, Ho, Wo;            // filters, output size
  int HW, CHW, KK;          // H·W, C·H·W, K·K
  int HoWo;                 // Ho·Wo
  int Kdim;                 // C·K·K, the GEMM's reduction length
  int N;                    // B·Ho·Wo, the GEMM's columns over the whole batch
};

Geometry make_geometry(const ConvLayerShape& s) {
  s.validate();
  if (s.input_elements() > INT_MAX || s.output_elements() > INT_MAX || s.weight_elements() > INT_MAX) {
    throw std::invalid_argument("lab06: tensors of 2^31 elements or more are not supported (int indexing)");
  }
  Geometry g{};
  g.C = s.channels, g.H = s.height, g.W = s.width, g.K = s.mask_width;
  g.S = s.stride, g.P = s.padding, g.D = s.dilation;
  g.M = s.filters, g.Ho = s.out_height(), g.Wo = s.out_width();
  g.HW = g.H * g.W, g.CHW = g.C * g.HW, g.KK = g.K * g.K;
  g.HoWo = g.Ho * g.Wo;
  g.Kdim = g.C * g.KK;
  g.N = s.batch * g.HoWo;
  return g;
}

template <int BM, int BN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
register_tiled_kernel(const float* __restrict__ X, const float* __restrict__ Wt, float* __restrict__ Y,
                      Geometry g) {
  static_assert(BM % TM == 0 && BN % TN == 0, "whole register tiles");
  __shared__ __align__(16) float As[BM][BK];  // As[m][k] = W[m0 + m][k0 + k] (3b transposes it)
  __shared__ __align__(16) float Bs[BK][BN];  // Bs[k][n] = X_unroll[k0 + k][n0 + n]
  // TODO(step 3a): this block's tile starts at row m0 = blockIdx.y·BM, column n0 = blockIdx.x·BN.
  //                Decide which Bs elements each thread loads (e.g. columns lane, lane+32, ... of
  //                rows warp, warp+WARPS, ...: a warp then reads 32 consecutive output positions,
  //                coalesced when S = 1) and decode those columns n → (b, h, w) once, before
  //                the loop over slices.
  // TODO(step 3a): for each slice k0 = 0, BK, 2·BK, ...: load W's BM×BK slice into As
  //                and the conceptual X_unroll's BK×BN slice into Bs, gathered from
  //                X as in step 2 (0 past the edges and for padding); __syncthreads().
  //                Avoid a division per element: decode k → (c, p, q) once per slice, or keep a
  //                (c, p, q) cursor per row and advance it by BK with carries.
  // TODO(step 3a): the register tile: for each kk < BK, read TM weights As[..][kk] and TN
  //                inputs Bs[kk][..] into registers, then acc[i][j] += a[i]·b[j] for all 64
  //                pairs; __syncthreads() before the next slice overwrites the tiles.
  //                Keep acc[TM][TN] in registers: index it only with compile-time constants
  //                (fully unrolled loops).
  // TODO(step 3a, last): write the register tile: column n = b·Ho·Wo + hw goes to
  //                Y[b][m][hw] = Y[(b·M + m)·Ho·Wo + hw]; skip m ≥ M and n ≥ N.
  (void)As, (void)Bs, (void)X, (void)Wt, (void)Y, (void)g;
}

// Step 3b: a copy of register_tiled_kernel (3a) that stores As transposed, As[k][m], so that a
// thread's TM weights of one k are consecutive: read them (and its TN inputs) as float4.
template <int BM, int BN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
transposed_float4_kernel(const float* __restrict__ X, const float* __restrict__ Wt, float* __restrict__ Y,
                         Geometry g) {
  // TODO(step 3b): start from your 3a kernel. A thread's TM rows are best two runs of 4 (rows
  //                ty·4.. and BM/2 + ty·4..), so that each is one aligned float4 of As[kk][·].
  (void)X, (void)Wt, (void)Y, (void)g;
}

// Step 3c: a copy of 3b whose slices are copied global → shared with cp.async (sm_80+), STAGES
// slices in flight: while slice t is multiplied, slices t+1 .. t+STAGES-1 are on their way.
//   cp.async.ca.shared.global [smem], [gmem], 4, src_size;   (src_size 0: zero-fill, nothing read)
//   cp.async.commit_group;  cp.async.wait_group N;            (then __syncthreads())
template <int BM, int BN, int STAGES>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
async_copies_kernel(const float* __restrict__ X, const float* __restrict__ Wt, float* __restrict__ Y,
                    Geometry g) {
  // TODO(step 3c): As[STAGES][BK][BM], Bs[STAGES][BK][BN] (mind the 48 KB of static shared
  //                memory); a prologue that issues STAGES-1 slices, then per slice: wait for the
  //                oldest group, __syncthreads(), issue the next slice into the stage just freed,
  //                multiply. Wait for every group before the block ends.
  (void)X, (void)Wt, (void)Y, (void)g;
}

template <int BM, int BN>
void launch(const ConvLayerArgs& a, const Geometry& g) {
  const dim3 grid(ceil_div(g.N, BN), ceil_div(g.M, BM));
  register_tiled_kernel<BM, BN><<<grid, (BM / TM) * (BN / TN)>>>(a.X, a.W, a.Y, g);
  CUDA_CHECK(cudaGetLastError());
}

template <int BM, int BN>
void launch_transposed(const ConvLayerArgs& a, const Geometry& g) {
  const dim3 grid((g.N + BN - 1) / BN, (g.M + BM - 1) / BM);
  transposed_float4_kernel<BM, BN><<<grid, (BM / TM) * (BN / TN)>>>(a.X, a.W, a.Y, g);
  CUDA_CHECK(cudaGetLastError());
}

template <int BM, int BN>
void launch_async(const ConvLayerArgs& a, const Geometry& g) {
  const dim3 grid((g.N + BN - 1) / BN, (g.M + BM - 1) / BM);
  async_copies_kernel<BM, BN, 4><<<grid, (BM / TM) * (BN / TN)>>>(a.X, a.W, a.Y, g);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void conv_layer_register_tiles(const ConvLayerArgs& a) {
  // TODO(step 3a): delete the next line once register_tiled_kernel works.
  not_implemented("lab06 step 3a (register tiles): register_tiled_kernel is still the stub");
  const Geometry g = make_geometry(a.shape);
  if (g.M <= 64) {
    launch<64, 128>(a, g);  // a 128-row tile would leave half its threads without filters
  } else {
    launch<128, 128>(a, g);
  }
}

void conv_layer_transposed_float4(const ConvLayerArgs& a) {
  // TODO(step 3b): delete the next line once transposed_float4_kernel works.
  not_implemented("lab06 step 3b (transposed As, float4): transposed_float4_kernel is still the stub");
  const Geometry g = make_geometry(a.shape);
  if (g.M <= 64) {
    launch_transposed<64, 128>(a, g);
  } else {
    launch_transposed<128, 128>(a, g);
  }
}

void conv_layer_async_copies(const ConvLayerArgs& a) {
  // TODO(step 3c): delete the next line once async_copies_kernel works.
  not_implemented("lab06 step 3c (async copies): async_copies_kernel is still the stub");
  const Geometry g = make_geometry(a.shape);
  if (g.M <= 64) {
    launch_async<64, 128>(a, g);
  } else {
    launch_async<128, 128>(a, g);
  }
}

void conv_layer_register_tiled_gemm(const ConvLayerArgs& a) {
  // TODO(step 3d): the launch plan, yours to write: pick the block tile per layer (128×128,
  //   64×128, 128×64, 64×64: a kernel template per tile) so that the grid fills the GPU's SMs
  //   (cudaDevAttrMultiProcessorCount), and when even the smallest tile leaves SMs idle (the
  //   14×14 layer), split the reduction over blockIdx.z: each split sums its range of slices and
  //   atomicAdds into Y, zeroed first (cudaMemsetAsync). Until then it runs your 3c kernel and
  //   says so (the last not_implemented() call names the step).
  conv_layer_async_copies(a);
  not_implemented("lab06 step 3d (tile choice and split-K): the launch plan is still the stub");
}

}  // namespace convlab::lab06
