#!/usr/bin/env bash
# Copies the header-only Debian dependencies, with their CMake package files, into .deps/ in
# Debian's own /usr layout, so that an offline machine with CUDA and CMake but none of these
# packages (a lent GPU machine, say) can build convlab: CMakeLists.txt adds .deps/ to
# CMAKE_PREFIX_PATH when it exists. Run it where `./convlab build` has installed the packages.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .deps
paths=(
  include/CLI include/nlohmann include/fmt include/catch2 include/stb
  share/cmake/CLI11 share/cmake/nlohmann_json
  lib/cmake/Catch2
  lib/x86_64-linux-gnu/cmake/fmt
)
for p in "${paths[@]}"; do
  mkdir -p ".deps/$(dirname "$p")"
  cp -r "/usr/$p" ".deps/$p"
done
# fmt's package file checks that its shared library exists, although convlab uses fmt
# header-only (fmt::fmt-header-only), so no binary ever loads it.
cp -P /usr/lib/x86_64-linux-gnu/libfmt.so* .deps/lib/x86_64-linux-gnu/
# Likewise Catch2's names its Catch2WithMain archive, which convlab does not link.
cp /usr/lib/libCatch2WithMain.a .deps/lib/
echo "bundled into .deps/ ($(du -sh .deps | cut -f1))"
