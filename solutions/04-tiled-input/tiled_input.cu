// Lab 04 — tiling strategy 2: the block covers the INPUT tile, loaded in one step; threads
// outside the output tile are turned off for the computation.
//
// Idea:      an I×I block (I = IN_TILE) loads an I×I input tile, one pixel per thread, ghost
//            cells as zeros. Only the O×O threads in its middle (O = OUT_TILE = I - K + 1)
//            have their whole K×K window inside the tile; they compute, the frame of r = (K-1)/2
//            threads around them only loaded. Tiles overlap: consecutive blocks start O apart.
//
//                 tx: 0 .. r-1 | r ........ r+O-1 | r+O .. I-1
//               +--------------+-------------------+-----------+
//               | load only    | load only         | load only |  ty < r
//               +--------------+-------------------+-----------+
//               | load only    | load + compute    | load only |  r <= ty < r+O
//               +--------------+-------------------+-----------+
//               | load only    | load only         | load only |  ty >= r+O
//               +--------------+-------------------+-----------+
//
// Adds:      over lab 03, a one-step load with no loop and no index arithmetic in shared
//            memory, at the price of (I² - O²)/I² idle threads while computing and an output
//            tile, hence a grid, that depends on K.
// Achieves:  the lecture's interior reduction (O·K)²/I² (smaller than lab 03's for the same
//            block size, since the output tile shrinks as K grows); halo pixels are loaded by
//            every block whose input tile covers them.
//
// Shapes: N, P height×width row-major; mask K×K in constant memory (K odd, 1..17);
//         block I×I; grid ⌈W/O⌉×⌈H/O⌉; shared tile I×I floats.
#include "convlab/ceil_div.hpp"
#include "convlab/lab_api.cuh"
#include "convlab/lab_config.hpp"

namespace convlab::lab04 {
namespace {

constexpr int MAX_MASK_WIDTH = kMaxMaskWidth;             // 17
__constant__ float M_c[MAX_MASK_WIDTH * MAX_MASK_WIDTH];  // the mask, as in lab 02

template <int IN_TILE>
__global__ void __launch_bounds__(IN_TILE * IN_TILE)
tiled_input_kernel(const float* __restrict__ N, float* __restrict__ P, int height, int width,
                   int mask_width) {
  static_assert(IN_TILE * IN_TILE <= 1024, "a block holds at most 1024 threads");
  static_assert(IN_TILE >= MAX_MASK_WIDTH, "OUT_TILE = IN_TILE - K + 1 must be >= 1 for every K");
  // A warp (one row ty of 32 threads when I = 32) reads a contiguous row segment of the tile
  // in both phases: no bank conflicts.
  __shared__ float tile[IN_TILE][IN_TILE];

  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int r = (mask_width - 1) / 2;
  const int out_tile = IN_TILE - mask_width + 1;

  // Centred mapping: thread (tx, ty) loads input (by·O + ty - r, bx·O + tx - r), which is also
  // the output it computes if it is one of the middle O×O threads.
  const int gr = blockIdx.y * out_tile + ty - r;
  const int gc = blockIdx.x * out_tile + tx - r;
  const bool inside = gr >= 0 && gr < height && gc >= 0 && gc < width;
  tile[ty][tx] = inside ? N[gr * width + gc] : 0.0f;  // a ghost cell is a stored zero, never read
  // Every element must be in place before any thread reads its neighbours' elements.
  __syncthreads();

  // (ox, oy): this thread's position in the output tile; the output itself is (gr, gc).
  const int ox = tx - r;
  const int oy = ty - r;
  if (ox >= 0 && ox < out_tile && oy >= 0 && oy < out_tile && gr < height && gc < width) {
    // Output (gr, gc) reads input (gr-r+p, gc-r+q) = tile element (oy+p, ox+q).
    float sum = 0.0f;
    for (int p = 0; p < mask_width; ++p) {
      for (int q = 0; q < mask_width; ++q) {
        sum += tile[oy + p][ox + q] * M_c[p * mask_width + q];
      }
    }
    P[gr * width + gc] = sum;
  }
}

}  // namespace

void conv2d_tiled_input(const Conv2dArgs& a) {
  constexpr int IN_TILE = config::kLab04InTile;  // 32
  const int k = a.mask_width;
  const int out_tile = IN_TILE - k + 1;  // 32 - K + 1: 32 for K = 1 down to 16 for K = 17
  CUDA_CHECK(cudaMemcpyToSymbolAsync(M_c, a.M, static_cast<size_t>(k) * k * sizeof(float), 0,
                                     cudaMemcpyDeviceToDevice));
  const dim3 block(IN_TILE, IN_TILE);
  const dim3 grid(ceil_div(a.width, out_tile), ceil_div(a.height, out_tile));
  tiled_input_kernel<IN_TILE><<<grid, block>>>(a.N, a.P, a.height, a.width, k);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace convlab::lab04
