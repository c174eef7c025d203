// Lab 07 — register tiling: several outputs per thread in x and y, compile-time filter sizes.
//
// Idea:      a thread computes an OY×OX patch of outputs. It loads the (OY+K-1)×(OX+K-1)
//            input window it needs into registers once and reuses each value for up to K²
//            outputs, so loads per FMA fall from ~1 (labs 01–05) towards 1/(OX·OY). K, OX and OY
//            are template parameters, so every loop unrolls and the register arrays stay in
//            registers (the talk: run-time inner loops cost a factor of 3).
// Adds over lab 05: register blocking; the mask reaching the threads without a load per FMA
//            (__shfl_sync broadcast within the warp, or constant memory); global→register and
//            shared→register input paths (Iandola et al.).
//
// Shapes: N, P height×width row-major; M K×K row-major, a device pointer; K in 2..7 and odd
// 9..17; any height and width ≥ 1 (1×1 and images smaller than the mask included).
// P[i][j] = Σ_{p,q<K} N[i-r+p][j-r+q]·M[p][q], r = (K-1)/2 (integer division), zero outside.
//
// The steps are those of labs/07-register-tiling/README.md.
#include "convlab/lab_api.cuh"

namespace convlab::lab07 {

namespace {

// TODO(step 1): a kernel template
//                 template <int K, int OX, int OY, int BX, int BY>
//                 __global__ void __launch_bounds__(BX * BY) register_tiled(const float* __restrict__ N,
//                     const float* __restrict__ M, float* __restrict__ P, int height, int width)
//               in which thread (tx, ty) owns outputs y0 = (blockIdx.y·BY+ty)·OY .. +OY-1,
//               x0 = (blockIdx.x·BX+tx)·OX .. +OX-1. Walk the OY+K-1 input rows of its window:
//               load one row of OX+K-1 values into a register array (zeros outside the image),
//               then add its contribution to every output it touches:
//                 acc[oy][ox] += row[ox+q] · M[p][q]   with p = i - oy, for 0 ≤ p < K.
//               Keep every loop bound a compile-time constant and put #pragma unroll on each
//               loop; store the outputs that lie inside the image.
//
// TODO(step 2): the mask through __shfl_sync: lane l of each warp loads taps l, l+32, ... into
//               registers once; tap c is then __shfl_sync(0xffffffff, reg[c/32], c%32). Every
//               lane must reach every __shfl_sync: no early return before the last one.
//
// TODO(step 3): the mask through constant memory instead: a __constant__ float array of 17·17,
//               filled with cudaMemcpyToSymbolAsync(..., cudaMemcpyDeviceToDevice) before each
//               launch. Make the path a template parameter, as K is.
//
// TODO(step 4): the shared→register input path: the block first loads its (BY·OY+K-1) ×
//               (BX·OX+K-1) tile into shared memory (coalesced, zeros outside), __syncthreads(),
//               then each thread reads its rows from there.
//
// TODO(step 5): vector loads and stores (float4 when OX % 4 == 0 and width % 4 == 0), and a
//               dispatch from a.mask_width to one instantiation per K; then time them with
//               `grader tune` and keep the best.

}  // namespace

void conv2d_register_tiled(const Conv2dArgs& a) {
  // TODO(step 1): launch your kernel for a.mask_width (grid ⌈W/(BX·OX)⌉ × ⌈H/(BY·OY)⌉), check the
  //               launch with CUDA_CHECK(cudaGetLastError()), and delete the next lines.
  (void)a;
  not_implemented("lab07: register_tiled is not written yet (step 1)");
}

void conv2d_shfl_filter(const Conv2dArgs& a) {
  // TODO(step 2): the same tiles, the mask through __shfl_sync.
  (void)a;
  not_implemented("lab07: shfl_filter is not written yet (step 2)");
}

void conv2d_constant_filter(const Conv2dArgs& a) {
  // TODO(step 3): the same tiles, the mask in constant memory.
  (void)a;
  not_implemented("lab07: constant_filter is not written yet (step 3)");
}

void conv2d_shared_input(const Conv2dArgs& a) {
  // TODO(step 4): the same tiles, the input through shared memory.
  (void)a;
  not_implemented("lab07: shared_input is not written yet (step 4)");
}

}  // namespace convlab::lab07
