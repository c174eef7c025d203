# The lab executables, one pair per row of the lab registry (common/include/convlab/
# lab_registry.hpp): a new lab adds its row there, not a line here. Each lab NN is built twice
# from the same registration main (common/src/lab_mains/labNN.cpp):
#   labNN       from ${CONVLAB_LABS_DIR}/NN-name/      (the stubs, or a student's submission)
#   solutionNN  from ${CONVLAB_SOLUTIONS_DIR}/NN-name/ (the reference solutions)
# Their sources are the .cu files of the project's stub folder labs/NN-name/ (the headers they
# include are compiled with them); a solution and a submission hold the same files.
# A submission build (CONVLAB_PREBUILT_HARNESS) has the labNN targets only.
#
# The registration main is the project's code, the same for every student: it is compiled once,
# into the object library convlab_lab_mainNN, which the harness exports with the rest of what a
# lab links (cmake/ConvlabHarnessExport.cmake). A class's submission builds then compile the
# students' files only (1.5-2 core-seconds saved per lab and student on the 2-core CI machine).
set(CONVLAB_LAB_TARGETS "")
set(CONVLAB_LAB_MAINS "")  # convlab_lab_mainNN, exported with the harness
set(CONVLAB_LAB_KINDS lab solution)
if(CONVLAB_PREBUILT_HARNESS)
  set(CONVLAB_LAB_KINDS lab)
endif()

function(convlab_add_lab number folder)
  # A submission build is configured by the grader outside its compile sandbox, which does not
  # show labs/ (grader/README.md, "The sandbox"): its glob is read once, never re-checked by the
  # sandboxed compile (a re-check there would find no file and stop every lab's build).
  set(recheck CONFIGURE_DEPENDS)
  if(CONVLAB_PREBUILT_HARNESS)
    set(recheck "")
  endif()
  file(GLOB sources ${recheck} RELATIVE "${PROJECT_SOURCE_DIR}/labs/${number}-${folder}"
       "${PROJECT_SOURCE_DIR}/labs/${number}-${folder}/*.cu")
  if(NOT sources)
    message(FATAL_ERROR "convlab: labs/${number}-${folder}/ (a row of the lab registry) has no .cu file")
  endif()
  if(CONVLAB_PREBUILT_HARNESS)
    set(main convlab::lab_main${number})  # the prebuilt harness's (imported)
  else()
    set(main convlab_lab_main${number})
    # An object library, not an archive: the runner's main() calls this_lab(), which an archive
    # listed before the runner would not supply.
    add_library(${main} OBJECT "${PROJECT_SOURCE_DIR}/common/src/lab_mains/lab${number}.cpp")
    target_link_libraries(${main} PRIVATE convlab::runner convlab_warnings)
  endif()
  foreach(kind IN LISTS CONVLAB_LAB_KINDS)
    if(kind STREQUAL "lab")
      set(root "${CONVLAB_LABS_DIR}")
    else()
      set(root "${CONVLAB_SOLUTIONS_DIR}")
    endif()
    set(target "${kind}${number}")
    set(files "")
    set(missing "")
    foreach(src IN LISTS sources)
      set(file "${root}/${number}-${folder}/${src}")
      if(NOT EXISTS "${file}")
        list(APPEND missing "${file}")
      endif()
      list(APPEND files "${file}")
    endforeach()
    if(missing)
      # Solutions arrive lab by lab; a lab's stub must always be there.
      if(kind STREQUAL "solution")
        message(STATUS "convlab: no solution for lab ${number} yet (missing ${missing})")
        continue()
      endif()
      message(FATAL_ERROR "convlab: lab ${number} is missing ${missing}")
    endif()
    if(kind STREQUAL "solution")
      # The solution's kernels as a library too: the benchmarks (grader/bench/) link every lab's.
      set(kernels "convlab_solution${number}_kernels")
      add_library(${kernels} STATIC ${files})
      target_include_directories(${kernels} PUBLIC "${root}/${number}-${folder}")
      target_link_libraries(${kernels} PUBLIC convlab::cuda PRIVATE convlab_warnings)
      # Line info lets compute-sanitizer and Nsight Compute point at source lines.
      target_compile_options(${kernels} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
      add_executable(${target})
      target_link_libraries(${target} PRIVATE ${main} ${kernels} convlab::runner convlab_warnings)
    else()
      add_executable(${target} ${files})
      target_link_libraries(${target} PRIVATE ${main} convlab::runner convlab_warnings)
      target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
    endif()
    list(APPEND CONVLAB_LAB_TARGETS ${target})
  endforeach()
  set(CONVLAB_LAB_TARGETS "${CONVLAB_LAB_TARGETS}" PARENT_SCOPE)
  if(NOT CONVLAB_PREBUILT_HARNESS)
    set(CONVLAB_LAB_MAINS ${CONVLAB_LAB_MAINS} ${main} PARENT_SCOPE)
  endif()
endfunction()

# The registry's rows, `{N, "NN-name", ...`: tests/cpu/test_lab_registry.cpp checks that this
# pattern finds every lab of kLabs.
set(_convlab_registry "${PROJECT_SOURCE_DIR}/common/include/convlab/lab_registry.hpp")
set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_convlab_registry}")
file(STRINGS "${_convlab_registry}" _convlab_rows REGEX "^ *\\{[0-9]+, \"[0-9][0-9]-[A-Za-z0-9-]+\"")
foreach(_row IN LISTS _convlab_rows)
  string(REGEX MATCH "\"([0-9][0-9])-([A-Za-z0-9-]+)\"" _ "${_row}")
  convlab_add_lab(${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
endforeach()
# Lab 08 step 5 runs Hopper's wgmma, which needs sm_90a code: the targets that compile lab 08's
# kernels get it wherever this build's architectures include 90 (cmake/ConvlabCudaArchitectures.cmake,
# convlab_target_uses_wgmma); solution08, the benchmarks and the GPU tests link
# convlab_solution08_kernels, a submission build (the grader's) has lab08.
foreach(_wgmma_target lab08 convlab_solution08_kernels)
  if(TARGET ${_wgmma_target})
    convlab_target_uses_wgmma(${_wgmma_target})
  endif()
endforeach()
# Lab 07 reads the tuning file made for its own kernel source and compiles the tuned
# configurations it was not built with at run time (NVRTC), both through the autotuner's
# library (TunedDispatch); the origin picks the tuning file (build/tuning/lab07-<gpu>.json for
# labs/, solution07-<gpu>.json for solutions/).
foreach(_lab07_target lab07 convlab_solution07_kernels)
  if(TARGET ${_lab07_target})
    target_link_libraries(${_lab07_target} PRIVATE convlab::autotune)
  endif()
endforeach()
if(TARGET lab07)
  target_compile_definitions(lab07 PRIVATE CONVLAB_LAB07_ORIGIN="labs")
endif()
if(TARGET convlab_solution07_kernels)
  target_compile_definitions(convlab_solution07_kernels PRIVATE CONVLAB_LAB07_ORIGIN="solutions")
endif()
# Labs 06–08: the launchers (the same files as the labs') report unwritten steps with
# not_implemented(), which the runner library defines: programs that link the kernels without the
# runner (the benchmarks, the GPU tests) need it too.
foreach(_stepped_kernels convlab_solution06_kernels convlab_solution07_kernels convlab_solution08_kernels)
  if(TARGET ${_stepped_kernels})
    target_link_libraries(${_stepped_kernels} PUBLIC convlab::runner)
  endif()
endforeach()
# Lab 07 compiles configurations at run time from its own kernel source: a copy of it goes beside
# each lab 07 executable (bin/lab07.kernel.cuh), which the grader's sandbox shows the lab.
foreach(_lab07_kind lab solution)
  if(TARGET ${_lab07_kind}07)
    if(_lab07_kind STREQUAL "lab")
      set(_lab07_root "${CONVLAB_LABS_DIR}")
    else()
      set(_lab07_root "${CONVLAB_SOLUTIONS_DIR}")
    endif()
    add_custom_command(TARGET ${_lab07_kind}07 POST_BUILD
      COMMAND "${CMAKE_COMMAND}" -E copy_if_different
              "${_lab07_root}/07-register-tiling/register_tiling_kernel.cuh"
              "$<TARGET_FILE:${_lab07_kind}07>.kernel.cuh"
      VERBATIM)
    # What the launcher would compile with NVRTC at first use, compiled now from that copy into
    # bin/<lab>07.jit-cache/ (common/include/convlab/autotune/precompile.hpp). Off for a
    # student's build, where each configuration compiles once when first run and stays cached;
    # on for the grader's submission builds, so that no lab 07 run spends its GPU slot in NVRTC.
    if(CONVLAB_LAB07_PRECOMPILE)
      if(TARGET lab07_precompile)
        set(_lab07_precompiler lab07_precompile)
        add_dependencies(${_lab07_kind}07 lab07_precompile)
      else()
        set(_lab07_precompiler convlab::lab07_precompile)  # the prebuilt harness's (imported)
      endif()
      add_custom_command(TARGET ${_lab07_kind}07 POST_BUILD
        COMMAND "$<TARGET_FILE:${_lab07_precompiler}>" --kernel "$<TARGET_FILE:${_lab07_kind}07>.kernel.cuh"
                --origin "${_lab07_kind}s" --arch "${CMAKE_CUDA_ARCHITECTURES}"
                --out "$<TARGET_FILE:${_lab07_kind}07>.jit-cache"
        VERBATIM)
    endif()
  endif()
endforeach()
