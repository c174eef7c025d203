// WRONG ON PURPOSE (tests/wrong_submissions/reads-expected):
// a cheat. It computes nothing: it finds the case folders on its own command line
// (/proc/self/cmdline), picks the one whose input matches the image it was given, and copies
// that case's expected.npy into P. Run by hand on datasets/ it "passes" every case; under the
// grader, whose child gets the inputs only, there is nothing to copy, and the grader must report
// every output unwritten.
#include "convlab/lab_api.cuh"

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "convlab/dataset.hpp"
#include "convlab/npy.hpp"

namespace convlab::lab01 {
namespace {

// The case folders named on this process's command line.
std::vector<std::filesystem::path> case_folders() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::filesystem::path> found;
  for (std::size_t pos = 0; pos < all.size();) {
    std::size_t end = all.find('\0', pos);
    if (end == std::string::npos) end = all.size();
    try {
      for (const auto& dir : find_cases(all.substr(pos, end - pos))) found.push_back(dir);
    } catch (const std::exception&) {  // not a case folder
    }
    pos = end + 1;
  }
  return found;
}

// BUG (the whole point): copy the answer instead of computing it.
bool copy_expected(const Conv2dArgs& a) {
  std::vector<float> image(static_cast<std::size_t>(a.height) * a.width);
  CUDA_CHECK(cudaMemcpy(image.data(), a.N, image.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (const auto& dir : case_folders()) {
    if (!std::filesystem::exists(dir / "expected.npy")) continue;
    const Tensor<float> input = read_npy_f32(dir / "input.npy");
    if (input.values() != image) continue;
    const Tensor<double> expected = read_npy_f64(dir / "expected.npy");
    std::vector<float> out(expected.values().begin(), expected.values().end());
    CUDA_CHECK(cudaMemcpy(a.P, out.data(), out.size() * sizeof(float), cudaMemcpyHostToDevice));
    return true;
  }
  return false;
}

__device__ __forceinline__ void convolve_pixel(const float* N, const float* M, float* P, int height, int width,
                                               int mask_width) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= height || col >= width) return;
  const int r = (mask_width - 1) / 2;
  float sum = 0.0f;
  for (int p = 0; p < mask_width; ++p) {
    const int in_row = row - r + p;
    if (in_row < 0 || in_row >= height) continue;
    for (int q = 0; q < mask_width; ++q) {
      const int in_col = col - r + q;
      if (in_col >= 0 && in_col < width) sum += N[in_row * width + in_col] * M[p * mask_width + q];
    }
  }
  P[row * width + col] = sum;
}

__global__ void naive_no_restrict(const float* N, const float* M, float* P, int height, int width, int mask_width) {
  convolve_pixel(N, M, P, height, width, mask_width);
}
__global__ void naive_mask_restrict(const float* N, const float* __restrict__ M, float* P, int height, int width,
                                    int mask_width) {
  convolve_pixel(N, M, P, height, width, mask_width);
}
__global__ void naive_input_restrict(const float* __restrict__ N, const float* M, float* P, int height, int width,
                                     int mask_width) {
  convolve_pixel(N, M, P, height, width, mask_width);
}
__global__ void naive_both_restrict(const float* __restrict__ N, const float* __restrict__ M, float* __restrict__ P,
                                    int height, int width, int mask_width) {
  convolve_pixel(N, M, P, height, width, mask_width);
}

using NaiveKernel = void (*)(const float*, const float*, float*, int, int, int);

template <NaiveKernel kernel>
void launch(const Conv2dArgs& a) {
  (void)copy_expected(a);  // nothing is launched either way
}

}  // namespace

void conv2d_no_restrict(const Conv2dArgs& a) { launch<naive_no_restrict>(a); }
void conv2d_mask_restrict(const Conv2dArgs& a) { launch<naive_mask_restrict>(a); }
void conv2d_input_restrict(const Conv2dArgs& a) { launch<naive_input_restrict>(a); }
void conv2d_both_restrict(const Conv2dArgs& a) { launch<naive_both_restrict>(a); }

}  // namespace convlab::lab01
