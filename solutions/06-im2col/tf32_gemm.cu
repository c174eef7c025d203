// Lab 06, stretch step — the implicit GEMM of step 3 on TF32 tensor cores.
//
// Idea:      the same conceptual unrolled matrix and the same gather into shared memory as
//            step 3, but the multiply-adds are done by warp-wide tensor-core instructions
//            (`mma.sync.m16n8k8` with TF32 inputs and float32 accumulation): one instruction
//            multiplies a 16×8 tile of W by an 8×8 tile of X_unroll and adds the 16×8 product into
//            the accumulators the warp's 32 threads hold, 4 floats each.
// Adds:      over step 3, tensor cores: operands are rounded to TF32 (10 stored mantissa
//            bits, unit roundoff u = 2^-11) before they enter the unit, so the variant is checked
//            with the TF32 tolerance n·2^-11·S instead of float32's n·2^-24·S.
//            Error budget: rounding *both* operands gives each product a relative error up to
//            about 2u, more than n·u allows when a layer has n = C·K·K = 1 term per output. So
//            the weights are kept exact to about 2^-22 as the sum of two TF32 numbers,
//            W ≈ W_hi + W_lo, and each product is done twice (X·W_hi + X·W_lo): only X is rounded,
//            a relative error of at most u per product, within n·u·S for every n ≥ 1.
// Achieves:  see `build/bin/conv_layer_bench`: tensor cores against step 3's FFMA loop.
//
// Block tile 128×128 (or 64×128 for M ≤ 64 filters), reduction slices of 16, 8 warps as 2×4,
// each warp a (BM/2)×32 tile = (BM/32) × 4 MMA tiles of 16×8. Copies are cp.async, two stages.
//
// Shapes: X [B][C][H][W], W [M][C][K][K] (= A, M × C·K·K row-major), Y [B][M][Ho][Wo].
#include <cuda_runtime.h>

#include <stdexcept>

#include "convlab/ceil_div.hpp"
#include "convlab/lab_api.cuh"
#include "implicit_gemm.cuh"

namespace convlab::lab06 {
namespace {

using gemm::Geometry;

constexpr int kBK = 16;      // reduction slice: two k8 steps of the MMA
constexpr int kThreads = 256;
constexpr int kStages = 2;

// Rounds to the nearest TF32 (ties away from zero); the low 13 bits of the result are zero.
__device__ __forceinline__ unsigned to_tf32(float x) {
  unsigned u;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(u) : "f"(x));
  return u;
}

// D = A·B + D for one 16×8×8 tile (PTX ISA, "mma.sync.aligned.m16n8k8", .tf32). With
// g = lane / 4 and t = lane % 4: a0 = A[g][t], a1 = A[g+8][t], a2 = A[g][t+4], a3 = A[g+8][t+4];
// b0 = B[t][g], b1 = B[t+4][g]; d0,d1 = D[g][2t, 2t+1], d2,d3 = D[g+8][2t, 2t+1].
__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  __trap();  // the host refuses to launch before sm_80
#endif
}

template <int BM>
__global__ void __launch_bounds__(kThreads)
implicit_gemm_tf32(const float* __restrict__ X, const float* __restrict__ Wt, float* __restrict__ Y, Geometry g) {
  constexpr int BN = 128, BK = kBK, STAGES = kStages;
  static_assert(kThreads == 256, "8 warps, as 2 (m) × 4 (n)");
  constexpr int WARP_M = BM / 2;             // rows per warp
  constexpr int MT = WARP_M / 16;            // 16-row MMA tiles per warp
  constexpr int NT = 4;                      // 8-column MMA tiles per warp (32 columns)
  constexpr int LD = BN + 8;                 // row pitch ≡ 8 (mod 32): fragment loads hit 32 banks
  using Loader = gemm::SliceLoader<BM, BN, BK, kThreads>;  // 2 B rows and 4 B columns per thread
  static_assert(BM == 64 || BM == 128, "two warp rows of 16-row MMA tiles");
  static_assert(STAGES * BK * (BM + 8 + LD) * 4 <= 48 * 1024, "static shared memory is 48 KB at most");

  __shared__ __align__(16) float As[STAGES][BK][BM + 8];  // As[k][m] = W[m0+m][k0+k]
  __shared__ __align__(16) float Bs[STAGES][BK][LD];      // Bs[k][n] = X_unroll[k0+k][n0+n]

  const int tid = threadIdx.x;
  const int lane = tid % 32;
  const int warp = tid / 32;
  const int gid = lane / 4;  // the MMA's "group" (row of A, column of B)
  const int tig = lane % 4;  // thread in group (column of A, row of B)
  const int warp_m = warp / 4;
  const int warp_n = warp % 4;
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const int k_tiles = ceil_div(g.Kdim, BK);

  Loader load(g, m0, n0, 0);
  auto issue_slice = [&](int kt, int stage) { load.issue(kt, As[stage], Bs[stage], X, Wt, g); };

  float acc[MT][NT][4];
#pragma unroll
  for (int i = 0; i < MT; ++i) {
#pragma unroll
    for (int j = 0; j < NT; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;
    }
  }

  issue_slice(0, 0);
  gemm::copy_async_commit();
  int stage = 0;
  for (int kt = 0; kt < k_tiles; ++kt) {
    gemm::copy_async_wait<0>();  // slice kt has landed (it is the only group in flight)
    __syncthreads();             // for every thread; and slice kt-1's stage is free
    if (kt + 1 < k_tiles) issue_slice(kt + 1, stage ^ 1);
    gemm::copy_async_commit();

#pragma unroll
    for (int k8 = 0; k8 < BK; k8 += 8) {
      unsigned b[NT][2];
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
        const int n = warp_n * 32 + nt * 8 + gid;
        b[nt][0] = to_tf32(Bs[stage][k8 + tig][n]);
        b[nt][1] = to_tf32(Bs[stage][k8 + tig + 4][n]);
      }
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        const int m = warp_m * WARP_M + mt * 16 + gid;
        const float w[4] = {As[stage][k8 + tig][m], As[stage][k8 + tig][m + 8], As[stage][k8 + tig + 4][m],
                            As[stage][k8 + tig + 4][m + 8]};
        unsigned hi[4], lo[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          hi[e] = to_tf32(w[e]);
          lo[e] = to_tf32(w[e] - __uint_as_float(hi[e]));  // exact in float32; then rounded
        }
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
          mma_tf32(acc[mt][nt], lo, b[nt][0], b[nt][1]);  // the small part first
          mma_tf32(acc[mt][nt], hi, b[nt][0], b[nt][1]);
        }
      }
    }
    stage ^= 1;
  }
  gemm::copy_async_wait<0>();

  // Epilogue: d0,d1 = rows gid, columns 2·tig, 2·tig+1 of each 16×8 tile; d2,d3 = row gid+8.
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int n = n0 + warp_n * 32 + nt * 8 + 2 * tig + e;
      if (n >= g.N) continue;
      const int b = n / g.HoWo;
      float* y = Y + (b * g.M * g.HoWo + (n - b * g.HoWo));
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        const int m = m0 + warp_m * WARP_M + mt * 16 + gid;
        if (m < g.M) y[m * g.HoWo] = acc[mt][nt][e];
        if (m + 8 < g.M) y[(m + 8) * g.HoWo] = acc[mt][nt][2 + e];
      }
    }
  }
}

}  // namespace

void conv_layer_tf32_tensor_core(const ConvLayerArgs& a) {
  int device = 0, major = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  if (major < 8) throw std::runtime_error("lab06 TF32 step: tensor cores with TF32 need compute capability 8.0+");
  const Geometry g = gemm::make_geometry(a.shape, kBK);
  constexpr int BN = 128;
  if (g.M <= 64) {
    const dim3 grid(ceil_div(g.N, BN), ceil_div(g.M, 64));
    implicit_gemm_tf32<64><<<grid, kThreads>>>(a.X, a.W, a.Y, g);
  } else {
    const dim3 grid(ceil_div(g.N, BN), ceil_div(g.M, 128));
    implicit_gemm_tf32<128><<<grid, kThreads>>>(a.X, a.W, a.Y, g);
  }
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace convlab::lab06
