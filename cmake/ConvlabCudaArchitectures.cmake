# Chooses CMAKE_CUDA_ARCHITECTURES when the user (or a preset) did not.
#
#   * a GPU is visible  -> its compute capability (nvidia-smi), e.g. "90";
#   * no GPU            -> CONVLAB_FALLBACK_CUDA_ARCHITECTURES, a list that runs on
#                          Ampere, Ada and Hopper (PTX of the newest is JIT-compiled
#                          on anything later).
# CMake's own "native" would fail the configure on a machine without a GPU.
set(CONVLAB_FALLBACK_CUDA_ARCHITECTURES "80-real;86-real;89-real;90" CACHE STRING
    "CUDA architectures used when no GPU is detected at configure time")

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "auto")
  set(_convlab_arch "")
  find_program(CONVLAB_NVIDIA_SMI nvidia-smi)
  if(CONVLAB_NVIDIA_SMI)
    execute_process(
      COMMAND "${CONVLAB_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
      OUTPUT_VARIABLE _convlab_caps RESULT_VARIABLE _convlab_rc ERROR_QUIET
      OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 20)
    if(_convlab_rc EQUAL 0 AND _convlab_caps MATCHES "^[0-9]+\\.[0-9]+")
      string(REPLACE "\n" ";" _convlab_caps "${_convlab_caps}")
      foreach(_cap IN LISTS _convlab_caps)
        string(STRIP "${_cap}" _cap)
        string(REPLACE "." "" _cap "${_cap}")
        list(APPEND _convlab_arch "${_cap}")
      endforeach()
      list(REMOVE_DUPLICATES _convlab_arch)
    endif()
  endif()
  if(_convlab_arch)
    message(STATUS "convlab: detected GPU architecture(s) ${_convlab_arch}")
  else()
    set(_convlab_arch "${CONVLAB_FALLBACK_CUDA_ARCHITECTURES}")
    message(STATUS "convlab: no GPU detected; building for ${_convlab_arch}")
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${_convlab_arch}" CACHE STRING "CUDA architectures" FORCE)
endif()
