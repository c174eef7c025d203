# What a lab executable links, exported from this build folder for the grader's submission
# builds (CONVLAB_PREBUILT_HARNESS in the top-level CMakeLists.txt): the harness, each lab's
# registration main, lab 07's autotuner and the program that precompiles lab 07's run-time
# instantiations.
#
# A class's build workers each configure a labs-only build folder that imports
# <this build folder>/convlab-harness-targets.cmake, so the harness is compiled once for the
# whole class, on every core, instead of once per worker (build/harness_build.hpp).
# The names are the ones the labs link in a full build too: convlab::runner, convlab::autotune.
set(_convlab_lab_dependencies
  convlab_warnings warnings   # PRIVATE to the libraries below, so part of what they export
  convlab_stb stb
  convlab_harness harness
  convlab_cuda cuda
  convlab_runner runner
  convlab_tuning tuning
  convlab_autotune autotune
  lab07_precompile lab07_precompile)
# Each lab's registration main, compiled once (cmake/ConvlabLabs.cmake): convlab::lab_mainNN.
foreach(_main IN LISTS CONVLAB_LAB_MAINS)
  string(REPLACE "convlab_" "" _main_name "${_main}")
  list(APPEND _convlab_lab_dependencies ${_main} ${_main_name})
endforeach()
set(_convlab_exported "")
while(_convlab_lab_dependencies)
  list(POP_FRONT _convlab_lab_dependencies _target _name)
  set_target_properties(${_target} PROPERTIES EXPORT_NAME ${_name})
  list(APPEND _convlab_exported ${_target})
endwhile()
export(TARGETS ${_convlab_exported} NAMESPACE convlab::
       FILE "${PROJECT_BINARY_DIR}/convlab-harness-targets.cmake")
