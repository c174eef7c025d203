# Chooses CMAKE_CUDA_ARCHITECTURES when the user (or a preset) did not, i.e. when it is unset,
# empty or "auto" (the gpu and labs presets):
#
#   * $CONVLAB_CUDA_ARCH   -> the architectures it names: "80" (A100), "8.0", "sm_80", "80,90";
#                             for a build node without the GPU the programs will run on;
#   * a GPU is visible     -> its compute capability (nvidia-smi), e.g. "90";
#   * neither              -> CONVLAB_FALLBACK_CUDA_ARCHITECTURES, a list that runs on Ampere,
#                             Ada and Hopper (PTX of the newest is JIT-compiled on anything
#                             later), with a message that says how to name the GPU instead.
# -DCMAKE_CUDA_ARCHITECTURES=80 on the command line names them too. CMake's own "native" would
# fail the configure on a machine without a GPU.
set(CONVLAB_FALLBACK_CUDA_ARCHITECTURES "80-real;86-real;89-real;90" CACHE STRING
    "CUDA architectures used when no GPU is detected at configure time and CONVLAB_CUDA_ARCH is not set")

# "8.0", "sm_80", "compute_80" or "80", separated by commas, semicolons or spaces -> "80;..."
# (CMake's form). Anything else stops the configure, naming the item.
function(convlab_parse_cuda_arch text out)
  string(REGEX REPLACE "[, ]+" ";" items "${text}")
  set(archs "")
  foreach(item IN LISTS items)
    if(item STREQUAL "")
      continue()
    endif()
    string(REGEX REPLACE "^(sm_|compute_)" "" arch "${item}")
    if(arch MATCHES "^([0-9])\\.([0-9])$")
      set(arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
    endif()
    if(NOT arch MATCHES "^[1-9][0-9][0-9]?[af]?(-real|-virtual)?$")
      message(FATAL_ERROR "convlab: CONVLAB_CUDA_ARCH: '${item}' is not a CUDA architecture (write the GPU's "
                          "compute capability without the dot, e.g. 80 for an A100, 90 for an H100; "
                          "nvidia-smi --query-gpu=compute_cap --format=csv on the GPU node prints it)")
    endif()
    list(APPEND archs "${arch}")
  endforeach()
  if(NOT archs)
    message(FATAL_ERROR "convlab: CONVLAB_CUDA_ARCH='${text}' names no architecture (e.g. 80 for an A100)")
  endif()
  list(REMOVE_DUPLICATES archs)
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "" OR
   CMAKE_CUDA_ARCHITECTURES STREQUAL "auto")
  set(_convlab_arch "")
  if(NOT "$ENV{CONVLAB_CUDA_ARCH}" STREQUAL "")
    convlab_parse_cuda_arch("$ENV{CONVLAB_CUDA_ARCH}" _convlab_arch)
    message(STATUS "convlab: CUDA architecture(s) ${_convlab_arch}, from CONVLAB_CUDA_ARCH")
  else()
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
      message(STATUS "convlab: no GPU is visible here, so the CUDA code is built for ${_convlab_arch} "
                     "(A100, A10/A40/RTX 30xx, L4/L40/RTX 40xx, H100/H200). To build for the GPU the programs "
                     "will run on, and faster, name it: CONVLAB_CUDA_ARCH=80 (an A100; 90 for an H100) in the "
                     "environment, or -DCMAKE_CUDA_ARCHITECTURES=80")
    endif()
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${_convlab_arch}" CACHE STRING "CUDA architectures" FORCE)
endif()
