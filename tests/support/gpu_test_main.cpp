// main() of the GPU tests: without a usable GPU every test exits 77, which CTest reports as
// skipped (SKIP_RETURN_CODE). Listing tests (CTest's discovery at build time) needs no GPU.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>

#include "convlab/device_info.hpp"

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing |= std::strncmp(argv[i], "--list", 6) == 0;
  if (!listing) {
    std::string why;
    if (!convlab::query_device(&why)) {
      std::printf("SKIPPED: %s\n", why.c_str());
      return 77;
    }
  }
  return Catch::Session().run(argc, argv);
}
