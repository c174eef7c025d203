#include "convlab/tensor_maps.cuh"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "convlab/cuda_check.cuh"

namespace convlab {

namespace {

/// The driver's function `name` in its CUDA 12.0 signature, found through the runtime, so that
/// nothing links against the driver library.
template <typename Fn>
Fn driver_function(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  CUDA_CHECK(cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found));
  if (fn == nullptr || found != cudaDriverEntryPointSuccess) {
    throw std::runtime_error(std::string("tensor maps: the driver has no ") + name + " (TMA needs a CUDA 12 driver)");
  }
  return reinterpret_cast<Fn>(fn);
}

void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    throw std::runtime_error(std::string("tensor maps: ") + what + " refused the map (CUresult " +
                             std::to_string(static_cast<int>(r)) + ")");
  }
}

constexpr cuuint32_t kEveryElement[4] = {1, 1, 1, 1};

}  // namespace

CUtensorMap tensor_map_rows_sw128(const float* base, long long rows, long long cols, int box_cols, int box_rows) {
  static const auto encode = driver_function<decltype(&cuTensorMapEncodeTiled)>("cuTensorMapEncodeTiled");
  CUtensorMap map{};
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * sizeof(float)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  check(encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(base), dims, strides, box, kEveryElement,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        "cuTensorMapEncodeTiled");
  return map;
}

CUtensorMap tensor_map_im2col_nhwc_sw128(const float* base, int images, int height, int width, int channels, int lower,
                                         int upper, int box_channels, int pixels) {
  static const auto encode = driver_function<decltype(&cuTensorMapEncodeIm2col)>("cuTensorMapEncodeIm2col");
  CUtensorMap map{};
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(channels), static_cast<cuuint64_t>(width),
                              static_cast<cuuint64_t>(height), static_cast<cuuint64_t>(images)};
  const cuuint64_t pixel = static_cast<cuuint64_t>(channels) * sizeof(float);
  const cuuint64_t strides[3] = {pixel, pixel * width, pixel * width * height};
  const int lower_corner[2] = {lower, lower}, upper_corner[2] = {upper, upper};
  check(encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, const_cast<float*>(base), dims, strides, lower_corner,
               upper_corner, static_cast<cuuint32_t>(box_channels), static_cast<cuuint32_t>(pixels), kEveryElement,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        "cuTensorMapEncodeIm2col");
  return map;
}

}  // namespace convlab
