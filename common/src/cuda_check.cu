#include <fmt/format.h>

#include <string>

#include "convlab/cuda_check.cuh"

namespace convlab {

#ifndef CONVLAB_CUDA_ARCHITECTURES
#define CONVLAB_CUDA_ARCHITECTURES ""  // set by common/CMakeLists.txt: what this build compiled for
#endif

namespace {

// A program built for other GPUs than this one (a cluster's build node without a GPU, say):
// what it was built for, what this GPU is, and how to build for it.
std::string kernel_image_hint(cudaError_t code) {
  if (code != cudaErrorNoKernelImageForDevice && code != cudaErrorUnsupportedPtxVersion &&
      code != cudaErrorInvalidKernelImage) {
    return "";
  }
  int device = 0, major = 0, minor = 0;
  const bool known = cudaGetDevice(&device) == cudaSuccess &&
                     cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
                     cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess;
  const std::string arch = known ? fmt::format("{}{}", major, minor) : std::string("NN");
  return fmt::format(". This program was built for CUDA architecture(s) {}{}: rebuild for this GPU with "
                     "CONVLAB_CUDA_ARCH={} ./convlab labs (or cmake --preset labs -DCMAKE_CUDA_ARCHITECTURES={}); "
                     "README.md, \"Without root, on a cluster\"",
                     *CONVLAB_CUDA_ARCHITECTURES ? CONVLAB_CUDA_ARCHITECTURES : "(unknown)",
                     known ? fmt::format(", and this GPU is sm_{}", arch) : std::string(), arch, arch);
}

}  // namespace

void cuda_check(cudaError_t code, const char* call, const char* file, int line) {
  if (code == cudaSuccess) return;
  throw CudaError(code, fmt::format("CUDA error: {} failed at {}:{}: {} ({}){}", call, file, line,
                                    cudaGetErrorString(code), cudaGetErrorName(code), kernel_image_hint(code)));
}

bool CudaError::sticky() const {
  switch (code_) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorIllegalInstruction:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}

}  // namespace convlab
