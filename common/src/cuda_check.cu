#include <fmt/format.h>

#include "convlab/cuda_check.cuh"

namespace convlab {

void cuda_check(cudaError_t code, const char* call, const char* file, int line) {
  if (code == cudaSuccess) return;
  throw CudaError(code, fmt::format("CUDA error: {} failed at {}:{}: {} ({})", call, file, line,
                                    cudaGetErrorString(code), cudaGetErrorName(code)));
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
