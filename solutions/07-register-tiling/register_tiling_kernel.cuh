// Lab 07 — the register-tiled convolution kernel family (one template, many configurations).
//
// Idea:      each thread computes an OY×OX patch of outputs. It walks the (OY+K-1) rows of its
//            input window one at a time: a row of OX+K-1 values is loaded into registers once
//            and feeds every output of the patch it touches (up to K·OX·min(OY,K) FMAs), then
//            dies. Filter size, outputs per thread and block shape are template parameters, so
//            every loop unrolls, every array index is a constant and the arrays stay in registers
//            (the GTC talk: run-time inner loops cost a factor of 3). The walk over rows is either
//            unrolled as well or a run-time loop with the next row prefetched (code of one row:
//            what large K·OX·OY needs); blocks inside the image run a copy without bounds tests.
// Adds over lab 05: register blocking in x and y (loads per FMA fall from ~1 to about
//            (OX+K-1)/(K·OX·OY) and 128-bit vector loads), the filter delivered without a load
//            per FMA (constant-memory operands or a __shfl_sync broadcast within the warp), and
//            two input paths, global→register (through L1/L2) and shared→register (a cooperative
//            tile load first), as in Iandola et al.
// Achieves:  on an H200 at 8192² (`grader tune --bench`; results/tune/):
//            K = 3..6 at or above the measured copy bandwidth (8 bytes/pixel), K = 7 at 91% of
//            it, K = 9 at 79% of the roofline, K = 11..17 at 80–87% of the measured FMA rate;
//            2–4.3× the paper's global-memory-only kernel.
//
// This header is compiled twice over: by nvcc inside solution07 (a few instantiations, one per
// mask width) and, as text, by NVRTC at run time (any instantiation the autotuner asks for).
// So it includes nothing and uses only what NVRTC provides built in (host code is behind
// `#ifndef __CUDACC_RTC__`).
//
// The lab's skeleton (labs/07-register-tiling/register_tiling_kernel.cuh) is this file with the
// code between each "BEGIN STEP n" and "END STEP n" marker taken out; everything else (the
// template's signature, the row loader, the tile body that calls the steps' functions) is the
// same text, so a student's finished file builds the same kernels. tests/gpu/gpu_test_lab07.cpp
// splices the steps back in, one at a time.
//
// Shapes: N, P height×width row-major; M K×K row-major; all device pointers.
// P[i][j] = Σ_{p,q<K} N[i-R+p][j-R+q]·M[p][q], R = (K-1)/2, zero outside the image.
#pragma once

namespace convlab {
namespace lab07 {

/// Largest mask width of the family (the talk's 17×17).
constexpr int kKernelMaxMask = 17;

// Template values of INPUT and FILTER (plain ints: they appear in NVRTC name expressions).
constexpr int kGlobalToRegister = 0;  ///< each thread loads its window from global memory (L1/L2)
constexpr int kSharedToRegister = 1;  ///< the block loads its tile into shared memory first
constexpr int kFilterConstant = 0;    ///< the mask is copied to __constant__ memory before the launch
constexpr int kFilterShfl = 1;        ///< lanes hold the mask, __shfl_sync broadcasts each tap
constexpr int kFilterLoaded = 2;      ///< each tap is loaded from global memory into a register
                                      ///< once per row and used for OX outputs (step 2)
constexpr int kRowsUnrolled = 0;      ///< the walk over the window's rows is unrolled
constexpr int kRowsRolled = 1;        ///< a run-time loop over rows, one row prefetched

/// The mask, for FILTER == kFilterConstant: FFMA reads it as a constant-bank operand, so a
/// tap costs no instruction of its own. The launcher copies M here (device to device).
__constant__ float c_mask[kKernelMaxMask * kKernelMaxMask];

/// Everything derived from the template parameters. Host code mirrors it in
/// convlab/lab07_config.hpp (TileConfig::shared_bytes) to skip configurations that cannot build.
template <int K, int OX, int OY, int BX, int BY, bool VEC>
struct TileGeometry {
  static constexpr int R = (K - 1) / 2;     // taps left of / above the output
  static constexpr int RR = K - 1 - R;      // taps right of / below it (R or R+1 for even K)
  static constexpr int WINDOW_ROWS = OY + K - 1;
  // Loads are VW floats wide: 16 bytes when OX is a multiple of 4, so that every chunk of a
  // row is aligned once width % VW == 0 and the chunk starts at a multiple of VW.
  static constexpr int VW = !VEC ? 1 : (OX % 4 == 0 ? 4 : (OX % 2 == 0 ? 2 : 1));
  static constexpr int LEFT_CHUNKS = (R + VW - 1) / VW;              // chunks left of x0
  static constexpr int CHUNKS = LEFT_CHUNKS + (OX - 1 + RR) / VW + 1;  // chunks per window row
  static constexpr int ROW_FLOATS = CHUNKS * VW;
  static constexpr int WINDOW_OFFSET = LEFT_CHUNKS * VW - R;  // window column 0 in the row buffer
  // Shared tile of one block (kSharedToRegister): BY·OY+K-1 rows; a row of TILE_CHUNKS chunks
  // padded by one chunk so that rows start in different banks.
  static constexpr int TILE_ROWS = BY * OY + K - 1;
  static constexpr int TILE_CHUNKS = LEFT_CHUNKS + (BX * OX - 1 + RR) / VW + 1;
  static constexpr int TILE_PITCH = (TILE_CHUNKS + 1) * VW;
  static constexpr int SHFL_REGS = (K * K + 31) / 32;  // mask values each lane holds
};

template <int VW>
struct VecOf;
template <>
struct VecOf<1> { using type = float; };
template <>
struct VecOf<2> { using type = float2; };
template <>
struct VecOf<4> { using type = float4; };

/// Reads VW floats at src into dst[0..VW), or zeros when !ok (ghost cells are never read).
template <int VW>
__device__ __forceinline__ void load_chunk(float* dst, const float* src, bool ok) {
  if constexpr (VW == 4) {
    const float4 v = ok ? *reinterpret_cast<const float4*>(src) : make_float4(0.f, 0.f, 0.f, 0.f);
    dst[0] = v.x; dst[1] = v.y; dst[2] = v.z; dst[3] = v.w;
  } else if constexpr (VW == 2) {
    const float2 v = ok ? *reinterpret_cast<const float2*>(src) : make_float2(0.f, 0.f);
    dst[0] = v.x; dst[1] = v.y;
  } else {
    dst[0] = ok ? *src : 0.f;
  }
}

/// Writes dst[0..VW) = src[0..VW) as one store.
template <int VW>
__device__ __forceinline__ void store_chunk(float* dst, const float* src) {
  if constexpr (VW == 4) {
    *reinterpret_cast<float4*>(dst) = make_float4(src[0], src[1], src[2], src[3]);
  } else if constexpr (VW == 2) {
    *reinterpret_cast<float2*>(dst) = make_float2(src[0], src[1]);
  } else {
    dst[0] = src[0];
  }
}

// ==== BEGIN STEP 1: one output per thread ====
inline constexpr bool kStep1Written = true;

/// Step 1, the starting point: one output per thread, K a template parameter so that both tap
/// loops unroll; the mask read from global memory (M, a device pointer). Blocks of 32×8.
template <int K>
__global__ void __launch_bounds__(256)
one_output(const float* __restrict__ N, const float* __restrict__ M, float* __restrict__ P, int height, int width) {
  constexpr int R = (K - 1) / 2;
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float acc = 0.f;
#pragma unroll
  for (int p = 0; p < K; ++p) {
    const int gy = y - R + p;
    if (gy < 0 || gy >= height) continue;  // a ghost row: nothing to read
    const float* row = N + static_cast<long long>(gy) * width;
#pragma unroll
    for (int q = 0; q < K; ++q) {
      const int gx = x - R + q;
      if (gx >= 0 && gx < width) acc = fmaf(row[gx], __ldg(M + p * K + q), acc);
    }
  }
  P[static_cast<long long>(y) * width + x] = acc;
}
// ==== END STEP 1 ====

// ==== BEGIN STEP 2: x×y outputs per thread ====
inline constexpr bool kStep2Written = true;

/// Step 2's filter path (kFilterLoaded): tap c = p·K+q from global memory (the read-only
/// path); it is loaded into a register once and used for the OX outputs of a patch row.
__device__ __forceinline__ float loaded_tap(const float* __restrict__ M, int c) { return __ldg(M + c); }

/// Window row i (in registers: row[OFF + c] = input column x0-R+c) adds to every output row oy
/// of the patch it touches, through mask row p = i - oy. tap(p, q, oy) gives M[p][q] by one of
/// the filter paths. With i a compile-time constant (rows unrolled) the test on p vanishes.
template <int K, int OX, int OY, int OFF, int RF, class Tap>
__device__ __forceinline__ void accumulate_row(float (&acc)[OY][OX], const float (&row)[RF], int i, Tap tap) {
#pragma unroll
  for (int oy = 0; oy < OY; ++oy) {
    const int p = i - oy;
    if (p < 0 || p >= K) continue;
#pragma unroll
    for (int q = 0; q < K; ++q) {
      const float m = tap(p, q, oy);
#pragma unroll
      for (int ox = 0; ox < OX; ++ox) acc[oy][ox] = fmaf(row[OFF + ox + q], m, acc[oy][ox]);
    }
  }
}

/// Stores the OY×OX patch at (y0, x0) with VW-wide stores; CHECKED: columns and rows past the
/// image edge are dropped (with VW > 1 the width is a multiple of VW, so a chunk is all in or
/// all out).
template <int OX, int OY, int VW, bool CHECKED>
__device__ __forceinline__ void store_patch(float* __restrict__ P, const float (&acc)[OY][OX], int x0, int y0,
                                            int height, int width) {
#pragma unroll
  for (int oy = 0; oy < OY; ++oy) {
    const int gy = y0 + oy;
    if (CHECKED && gy >= height) break;
    float* dst = P + static_cast<long long>(gy) * width;
#pragma unroll
    for (int j = 0; j < OX / VW; ++j) {
      const int gx = x0 + j * VW;
      if (!CHECKED || gx + VW <= width) store_chunk<VW>(dst + gx, &acc[oy][j * VW]);
    }
  }
}
// ==== END STEP 2 ====

// ==== BEGIN STEP 3: the filter through __shfl_sync ====
inline constexpr bool kStep3Written = true;

/// Rows unrolled: lane l of the warp holds taps l, l+32, l+64, ... (one coalesced load each).
template <int K, int NREG>
__device__ __forceinline__ void load_shfl_taps(float (&mreg)[NREG], const float* __restrict__ M, int lane) {
#pragma unroll
  for (int j = 0; j < NREG; ++j) {
    const int c = j * 32 + lane;
    mreg[j] = c < K * K ? M[c] : 0.f;
  }
}

/// Tap c (a compile-time constant once unrolled): lane c mod 32 holds it in mreg[c/32]; one
/// SHFL broadcasts it to the warp. Every lane must execute it.
template <int NREG>
__device__ __forceinline__ float shfl_tap(const float (&mreg)[NREG], int c) {
  return __shfl_sync(0xffffffffu, mreg[c >> 5], c & 31);
}

/// Rows rolled (p is a run-time value, so mreg[c/32] would be indexed at run time): the talk's
/// scheme. For each output row oy, lane q < K holds M[p][q] of mask row p = i - oy (0 when p is
/// outside the mask), loaded one window row ahead.
template <int K, int OY>
__device__ __forceinline__ void load_shfl_mask_rows(float (&mr)[OY], const float* __restrict__ M, int i, int lane) {
#pragma unroll
  for (int oy = 0; oy < OY; ++oy) {
    const int p = i - oy;
    mr[oy] = lane < K && p >= 0 && p < K ? M[p * K + lane] : 0.f;
  }
}

/// Tap q of output row oy's mask row, from load_shfl_mask_rows' registers.
template <int OY>
__device__ __forceinline__ float shfl_row_tap(const float (&mr)[OY], int oy, int q) {
  return __shfl_sync(0xffffffffu, mr[oy], q);
}
// ==== END STEP 3 ====

// ==== BEGIN STEP 4: the filter in constant memory ====
inline constexpr bool kStep4Written = true;

/// Tap c from constant memory: an FFMA operand, no instruction of its own.
__device__ __forceinline__ float constant_tap(int c) { return c_mask[c]; }

#ifndef __CUDACC_RTC__
/// Host: copies the K×K mask (a device pointer) into c_mask, on the default stream, before each
/// launch of a constant-path kernel compiled into this program (the next call may bring another
/// mask). NVRTC-compiled kernels have their own c_mask; the autotuner's launcher fills that one.
inline cudaError_t copy_mask_to_constant(const float* M, int K) {
  return cudaMemcpyToSymbolAsync(c_mask, M, sizeof(float) * K * K, 0, cudaMemcpyDeviceToDevice);
}
#endif
// ==== END STEP 4 ====

// ==== BEGIN STEP 5: shared→register input ====
inline constexpr bool kStep5Written = true;

/// The block's (BY·OY+K-1) × TILE_CHUNKS·VW input tile into shared memory (tile[r·TILE_PITCH +
/// c]), one VW-wide chunk per thread per iteration, zeros outside the image (CHECKED), then a
/// barrier: after it every thread reads its window rows from the tile.
template <class G, int BX, int BY, int OX, int OY, bool CHECKED>
__device__ __forceinline__ void load_shared_tile(float* tile, const float* __restrict__ N, int height, int width) {
  constexpr int VW = G::VW;
  constexpr int TOTAL = G::TILE_ROWS * G::TILE_CHUNKS;
  constexpr int THREADS = BX * BY;
  const int tid = threadIdx.y * BX + threadIdx.x;
  const int gx0 = blockIdx.x * BX * OX - G::LEFT_CHUNKS * VW;
  const int gy0 = blockIdx.y * BY * OY - G::R;
#pragma unroll
  for (int it = 0; it < (TOTAL + THREADS - 1) / THREADS; ++it) {
    const int idx = tid + it * THREADS;
    if (idx < TOTAL) {
      const int tr = idx / G::TILE_CHUNKS;
      const int tc = idx - tr * G::TILE_CHUNKS;
      const int gy = gy0 + tr;
      const int gx = gx0 + tc * VW;
      const bool ok = !CHECKED || (gy >= 0 && gy < height && gx >= 0 && gx + VW <= width);
      float v[VW];
      load_chunk<VW>(v, N + (static_cast<long long>(gy) * width + gx), ok);
      store_chunk<VW>(&tile[tr * G::TILE_PITCH + tc * VW], v);
    }
  }
  __syncthreads();
}
// ==== END STEP 5 ====

// ==== GIVEN: do not edit below this line ====
// The rest of the file is the kernel around your steps: the run-time-loop counter-example, the
// tile body that calls your functions, the kernel and its interior/edge split. The launchers,
// the autotuner and the grader's tests rely on it as given.

/// The talk's counter-example (RT_INNER): accumulate_row with the loop over q bounded by the
/// run-time k_rt, so row[] is indexed at run time and lives in local memory.
template <int K, int OX, int OY, int OFF, int RF, class Tap>
__device__ __forceinline__ void accumulate_row_runtime(float (&acc)[OY][OX], const float (&row)[RF], int i, int k_rt,
                                                       Tap tap) {
#pragma unroll
  for (int oy = 0; oy < OY; ++oy) {
    const int p = i - oy;
    if (p < 0 || p >= K) continue;
#pragma unroll 1
    for (int q = 0; q < k_rt; ++q) {
      const float m = tap(p, q, oy);
#pragma unroll
      for (int ox = 0; ox < OX; ++ox) acc[oy][ox] = fmaf(row[OFF + ox + q], m, acc[oy][ox]);
    }
  }
}

/// The body of the kernel below, for one block. CHECKED: some of the block's window or outputs
/// lie outside the image, so every load and store is tested; unchecked (interior blocks, nearly
/// all of a large image): no tests, no zero fill. `tile` is the kernel's shared array.
template <int K, int OX, int OY, int BX, int BY, int INPUT, int FILTER, int LOOP, bool VEC, bool RT_INNER,
          bool CHECKED>
__device__ __forceinline__ void tile_body(const float* __restrict__ N, const float* __restrict__ M,
                                          float* __restrict__ P, int height, int width, int k_rt, float* tile) {
  using G = TileGeometry<K, OX, OY, BX, BY, VEC>;
  constexpr int VW = G::VW;
  constexpr int RF = G::ROW_FLOATS;
  constexpr int OFF = G::WINDOW_OFFSET;

  const int x0 = (blockIdx.x * BX + threadIdx.x) * OX;  // first output column of this thread
  const int y0 = (blockIdx.y * BY + threadIdx.y) * OY;  // first output row
  const int lane = (threadIdx.y * BX + threadIdx.x) & 31;

  // The shfl path needs every lane of the warp at each __shfl_sync; the other filter paths can
  // let threads with nothing to do leave (no barrier follows on the global path).
  if constexpr (CHECKED && FILTER != kFilterShfl && INPUT == kGlobalToRegister) {
    if (x0 >= width || y0 >= height) return;
  }

  // Shfl path, rows unrolled: the taps spread over the warp's lanes (step 3).
  float mreg[FILTER == kFilterShfl && LOOP == kRowsUnrolled ? G::SHFL_REGS : 1];
  mreg[0] = 0.f;
  if constexpr (FILTER == kFilterShfl && LOOP == kRowsUnrolled) load_shfl_taps<K>(mreg, M, lane);

  // Shared path: the block's tile, loaded cooperatively (step 5).
  if constexpr (INPUT == kSharedToRegister) load_shared_tile<G, BX, BY, OX, OY, CHECKED>(tile, N, height, width);

  // Global path: chunk j of window row i starts at column col0 + j·VW of image row y0-R+i;
  // bit j of colmask says whether that chunk lies inside the image (the same for every row).
  const long long col0 = static_cast<long long>(x0) - G::LEFT_CHUNKS * VW;
  unsigned long long colmask = ~0ull;
  if constexpr (CHECKED) {
    colmask = 0;
#pragma unroll
    for (int j = 0; j < G::CHUNKS; ++j) {
      const long long gx = col0 + j * VW;
      if (gx >= 0 && gx + VW <= width) colmask |= 1ull << j;
    }
  }

  // The row loader. Window row i into registers: row[WINDOW_OFFSET + c] = N[y0-R+i][x0-R+c],
  // zeros outside.
  auto load_row = [&](float (&row)[RF], int i) {
    if constexpr (INPUT == kGlobalToRegister) {
      const int gy = y0 - G::R + i;
      // One base address per row, constant offsets per chunk; never dereferenced outside.
      const float* src = N + (static_cast<long long>(gy) * width + col0);
      if constexpr (CHECKED) {
        const unsigned long long m = gy >= 0 && gy < height ? colmask : 0ull;
#pragma unroll
        for (int j = 0; j < G::CHUNKS; ++j) load_chunk<VW>(&row[j * VW], src + j * VW, (m >> j) & 1ull);
      } else {
#pragma unroll
        for (int j = 0; j < G::CHUNKS; ++j) load_chunk<VW>(&row[j * VW], src + j * VW, true);
      }
    } else {
      // Unrolled rows: a warp barrier per row keeps the compiler from hoisting the shared loads
      // of all rows to the top (it would, shared loads being cheap to issue, and then run out of
      // registers).
      if constexpr (LOOP == kRowsUnrolled) {
        if (i > 0) __syncwarp();
      }
      const float* src = &tile[(threadIdx.y * OY + i) * G::TILE_PITCH + threadIdx.x * OX];
#pragma unroll
      for (int j = 0; j < G::CHUNKS; ++j) {
        // VW-wide shared loads: the offsets are multiples of VW by construction.
        const typename VecOf<VW>::type v = *reinterpret_cast<const typename VecOf<VW>::type*>(src + j * VW);
        store_chunk<VW>(&row[j * VW], reinterpret_cast<const float*>(&v));
      }
    }
  };

  float acc[OY][OX];
#pragma unroll
  for (int oy = 0; oy < OY; ++oy) {
#pragma unroll
    for (int ox = 0; ox < OX; ++ox) acc[oy][ox] = 0.f;
  }

  if constexpr (LOOP == kRowsUnrolled) {
    // Input row i feeds output row oy through mask row p = i - oy; with every loop unrolled,
    // p, q and every register index are constants.
    const int kk = RT_INNER ? k_rt : K;  // the mask's row length (run time for RT_INNER)
    auto tap = [&](int p, int q, int /*oy*/) -> float {
      if constexpr (FILTER == kFilterConstant) return constant_tap(p * kk + q);
      else if constexpr (FILTER == kFilterShfl) return shfl_tap(mreg, p * kk + q);
      else return loaded_tap(M, p * kk + q);
    };
#pragma unroll
    for (int i = 0; i < G::WINDOW_ROWS; ++i) {
      float row[RF];
      load_row(row, i);
      if constexpr (!RT_INNER) accumulate_row<K, OX, OY, OFF>(acc, row, i, tap);
      else accumulate_row_runtime<K, OX, OY, OFF>(acc, row, i, k_rt, tap);
    }
  } else {
    // Rolled rows: two register buffers, the next row loading while this one is used. The mask
    // row p = i - oy is now a run-time (warp-uniform) value: constant and loaded paths index M
    // with a uniform base; the shfl path takes the talk's scheme (load_shfl_mask_rows).
    const int kk = RT_INNER ? k_rt : K;
    auto load_mask_rows = [&](float (&mr)[OY], int i) {
      if constexpr (FILTER == kFilterShfl) {
        load_shfl_mask_rows<K>(mr, M, i, lane);
      } else {
#pragma unroll
        for (int oy = 0; oy < OY; ++oy) mr[oy] = 0.f;
      }
    };
    auto use_row = [&](const float (&row)[RF], const float (&mr)[OY], int i) {
      auto tap = [&](int p, int q, int oy) -> float {
        if constexpr (FILTER == kFilterConstant) return constant_tap(p * kk + q);
        else if constexpr (FILTER == kFilterShfl) return shfl_row_tap(mr, oy, q);
        else return loaded_tap(M, p * kk + q);
      };
      if constexpr (!RT_INNER) accumulate_row<K, OX, OY, OFF>(acc, row, i, tap);
      else accumulate_row_runtime<K, OX, OY, OFF>(acc, row, i, k_rt, tap);
    };
    float row_a[RF];
    float row_b[RF];
    float mask_a[OY];
    float mask_b[OY];
    load_row(row_a, 0);
    load_mask_rows(mask_a, 0);
    // Two rows per iteration, so that the buffers swap roles without copies.
#pragma unroll 1
    for (int i = 0; i < G::WINDOW_ROWS; i += 2) {
      if (i + 1 < G::WINDOW_ROWS) {
        load_row(row_b, i + 1);
        load_mask_rows(mask_b, i + 1);
      }
      use_row(row_a, mask_a, i);
      if (i + 1 < G::WINDOW_ROWS) {
        if (i + 2 < G::WINDOW_ROWS) {
          load_row(row_a, i + 2);
          load_mask_rows(mask_a, i + 2);
        }
        use_row(row_b, mask_b, i + 1);
      }
    }
  }

  store_patch<OX, OY, VW, CHECKED>(P, acc, x0, y0, height, width);
}

/// The kernel family.
///   K        mask width (1..17)            OX, OY   outputs per thread in x and y
///   BX, BY   threads per block in x and y  INPUT    kGlobalToRegister or kSharedToRegister
///   FILTER   kFilterConstant, kFilterShfl or kFilterLoaded
///   LOOP     kRowsUnrolled: the walk over the window's rows is unrolled too (every index a
///            constant; the compiler may hoist all loads; code grows with OY·OX·K²);
///            kRowsRolled: a run-time loop over rows, the next row prefetched into a second
///            register buffer (code of one row; the mask row index is a run-time value)
///   VEC      width % VW == 0 and N, P aligned: VW-wide loads and stores (the host decides)
///   RT_INNER the talk's counter-example: the innermost loop (over q) has the run-time bound
///            k_rt, so the window is indexed at run time and lives in local memory
/// Grid: (⌈width/(BX·OX)⌉, ⌈height/(BY·OY)⌉); no dynamic shared memory. Blocks whose whole
/// window lies inside the image take a copy of the body without bounds tests.
template <int K, int OX, int OY, int BX, int BY, int INPUT, int FILTER, int LOOP, bool VEC, bool RT_INNER>
__global__ void __launch_bounds__(BX * BY)
register_tiled(const float* __restrict__ N, const float* __restrict__ M, float* __restrict__ P,
               int height, int width, int k_rt) {
  using G = TileGeometry<K, OX, OY, BX, BY, VEC>;
  static_assert(K >= 1 && K <= kKernelMaxMask, "mask width out of range");
  static_assert(OX >= 1 && OX <= 32 && OY >= 1 && OY <= 32, "outputs per thread out of range");
  static_assert((BX * BY) % 32 == 0 && BX * BY <= 1024, "blocks are whole warps, at most 1024 threads");
  static_assert(INPUT == kGlobalToRegister || INPUT == kSharedToRegister, "unknown input path");
  static_assert(FILTER == kFilterConstant || FILTER == kFilterShfl || FILTER == kFilterLoaded, "unknown filter path");
  static_assert(LOOP == kRowsUnrolled || LOOP == kRowsRolled, "unknown row loop");
  static_assert(INPUT == kGlobalToRegister || G::TILE_ROWS * G::TILE_PITCH * 4 <= 48 * 1024,
                "shared tile above the 48 KB of static shared memory");
  static_assert(G::CHUNKS <= 64, "one bit per chunk of a window row");
  __shared__ __align__(16) float tile[INPUT == kSharedToRegister ? G::TILE_ROWS * G::TILE_PITCH : 1];
  // Interior block: its window, columns bx0-LEFT..bx0+(BX-1)·OX+CHUNKS·VW-LEFT and rows
  // by0-R..by0+BY·OY-1+RR, lies inside the image (then so do its outputs and its shared tile).
  const long long bx0 = static_cast<long long>(blockIdx.x) * BX * OX - G::LEFT_CHUNKS * G::VW;
  const long long by0 = static_cast<long long>(blockIdx.y) * BY * OY;
  const bool interior = bx0 >= 0 && bx0 + (BX - 1) * OX + G::CHUNKS * G::VW <= width && by0 - G::R >= 0 &&
                        by0 + BY * OY - 1 + G::RR < height;
  if (interior) {
    tile_body<K, OX, OY, BX, BY, INPUT, FILTER, LOOP, VEC, RT_INNER, false>(N, M, P, height, width, k_rt, tile);
  } else {
    tile_body<K, OX, OY, BX, BY, INPUT, FILTER, LOOP, VEC, RT_INNER, true>(N, M, P, height, width, k_rt, tile);
  }
}

}  // namespace lab07
}  // namespace convlab
