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

# The compute capabilities of the GPUs nvidia-smi sees, as "90;80" (empty: none seen).
function(convlab_detect_gpu_architectures out)
  set(archs "")
  find_program(CONVLAB_NVIDIA_SMI nvidia-smi)
  if(CONVLAB_NVIDIA_SMI)
    execute_process(
      COMMAND "${CONVLAB_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
      OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET
      OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 20)
    if(rc EQUAL 0 AND caps MATCHES "^[0-9]+\\.[0-9]+")
      string(REPLACE "\n" ";" caps "${caps}")
      foreach(cap IN LISTS caps)
        string(STRIP "${cap}" cap)
        string(REPLACE "." "" cap "${cap}")
        list(APPEND archs "${cap}")
      endforeach()
      list(REMOVE_DUPLICATES archs)
    endif()
  endif()
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "" OR
   CMAKE_CUDA_ARCHITECTURES STREQUAL "auto")
  set(_convlab_arch "")
  if(NOT "$ENV{CONVLAB_CUDA_ARCH}" STREQUAL "")
    convlab_parse_cuda_arch("$ENV{CONVLAB_CUDA_ARCH}" _convlab_arch)
    message(STATUS "convlab: CUDA architecture(s) ${_convlab_arch}, from CONVLAB_CUDA_ARCH")
  else()
    convlab_detect_gpu_architectures(_convlab_arch)
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

# Lab 08 step 5 runs Hopper's warpgroup MMA (wgmma), which exists only in code compiled for
# sm_90a, the architecture-specific target of compute capability 9.0 (its code runs on no other
# GPU). The targets that compile lab 08's kernels (cmake/ConvlabLabs.cmake: lab08 and
# convlab_solution08_kernels, which solution08, the benchmarks and the GPU tests link) take this
# build's architectures with 90 made 90a: "90" -> sm_90a code and compute_90 PTX (later GPUs still
# JIT the rest of lab 08 from it; step 5 refuses them), "90-real" -> "90a-real", "90-virtual" ->
# "90a-virtual"; "native" is resolved here as the gpu preset's "auto" is. The rest of the project
# keeps the build's list. Every configuration goes through this function, the grader's builds of a
# student's lab 08 (-DCMAKE_CUDA_ARCHITECTURES=<the GPU's>) included. "all" and "all-major" are
# left as they are, with a message: step 5 then refuses to run, naming the fix.
function(convlab_cuda_architectures_with_wgmma out)
  set(given "${CMAKE_CUDA_ARCHITECTURES}")
  if(given STREQUAL "native")
    convlab_detect_gpu_architectures(given)
  endif()
  set(archs "")
  foreach(arch IN LISTS given)
    if(arch STREQUAL "90")
      list(APPEND archs 90a-real 90-virtual)
    elseif(arch STREQUAL "90-real")
      list(APPEND archs 90a-real)
    elseif(arch STREQUAL "90-virtual")
      list(APPEND archs 90a-virtual)
    else()
      list(APPEND archs "${arch}")
    endif()
  endforeach()
  if(NOT archs)
    set(archs "${CMAKE_CUDA_ARCHITECTURES}")  # "native" with no GPU seen: CMake's own rule decides
  endif()
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()

# `target` compiles lab 08's kernels: its CUDA architectures as convlab_cuda_architectures_with_wgmma says.
function(convlab_target_uses_wgmma target)
  if(CMAKE_CUDA_ARCHITECTURES MATCHES "^(all|all-major)$")
    message(STATUS "convlab: CUDA architectures '${CMAKE_CUDA_ARCHITECTURES}' give ${target} no sm_90a code: lab 08 "
                   "step 5 (wgmma) will refuse to run; name the architectures (e.g. 90) to build it")
    return()
  endif()
  convlab_cuda_architectures_with_wgmma(archs)
  set_property(TARGET ${target} PROPERTY CUDA_ARCHITECTURES ${archs})
endfunction()
