# Third-party dependencies: Debian packages, all found with find_package, none downloaded.
#   catch2 (v2)          -> Catch2::Catch2           (tests)
#   libcli11-dev         -> CLI11::CLI11             (command lines)
#   nlohmann-json3-dev   -> nlohmann_json::nlohmann_json
#   libfmt-dev           -> fmt::fmt-header-only     (header-only, so that binaries run on
#                                                     machines without libfmt installed)
#   libstb-dev           -> stb_image_write.h        (PNG output)
# An offline machine (the lent GPU machine) gets these through the .deps/ folder made by
# scripts/bundle-deps.sh; it is added to CMAKE_PREFIX_PATH automatically when present.
if(EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/.deps")
  list(PREPEND CMAKE_PREFIX_PATH "${CMAKE_CURRENT_SOURCE_DIR}/.deps")
endif()

find_package(CLI11 2 CONFIG REQUIRED)
find_package(nlohmann_json 3 CONFIG REQUIRED)
find_package(fmt 9 CONFIG REQUIRED)
if(CONVLAB_WITH_TESTS)
  find_package(Catch2 2 CONFIG REQUIRED)
endif()
find_path(CONVLAB_STB_INCLUDE_DIR stb_image_write.h PATH_SUFFIXES stb REQUIRED)  # searches .deps/include too
add_library(convlab_stb INTERFACE)
target_include_directories(convlab_stb SYSTEM INTERFACE "${CONVLAB_STB_INCLUDE_DIR}")
