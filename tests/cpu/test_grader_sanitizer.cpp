// compute-sanitizer's reports, as the grader reads them: findings quoted in the tool's words,
// summaries counted, and a tool that did not run told apart from a clean run.
#include <catch2/catch.hpp>

#include "correctness/sanitizer.hpp"

using namespace convlab::grader;

TEST_CASE("sanitizer: a racecheck hazard is found and quoted with both accesses", "[grader][sanitizer]") {
  const std::string out = R"(========= COMPUTE-SANITIZER
PASS  lab03 tiled_output conv2d/k5_33x65
========= Error: Race reported between Write access at void convlab::lab03::tiled_output_kernel<32>(const float *, float *, int, int, int)+0x2a0 in /tmp/x/submission/03-tiled-output/tiled_output.cu:55
=========     and Read access at void convlab::lab03::tiled_output_kernel<32>(const float *, float *, int, int, int)+0x4f0 in /tmp/x/submission/03-tiled-output/tiled_output.cu:66 [2048 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
)";
  const SanitizerResult r = parse_sanitizer_output("racecheck", out);
  CHECK(r.ran);
  CHECK(r.hazards == 1);
  REQUIRE(r.findings.size() == 1);
  CHECK_THAT(r.findings[0], Catch::StartsWith("Error: Race reported between Write access"));
  CHECK_THAT(r.findings[0], Catch::Contains("\nand Read access at"));
  CHECK_THAT(r.findings[0], Catch::Contains("tiled_output.cu:66 [2048 hazards]"));
}

TEST_CASE("sanitizer: a memcheck invalid write is found with where it happened", "[grader][sanitizer]") {
  const std::string out = R"(========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at convlab::lab02::constant_mask_kernel(const float *, float *, int, int, int)+0x3b0 in constant_mask.cu:48
=========     by thread (0,4,0) in block (0,0,0)
=========     Address 0x7f3a2c001d00 is out of bounds
=========
========= ERROR SUMMARY: 37 errors
)";
  const SanitizerResult r = parse_sanitizer_output("memcheck", out);
  CHECK(r.ran);
  CHECK(r.hazards == 37);
  REQUIRE_FALSE(r.findings.empty());
  CHECK(r.findings[0] ==
        "Invalid __global__ write of size 4 bytes\nat convlab::lab02::constant_mask_kernel(const float *, float *, int, "
        "int, int)+0x3b0 in constant_mask.cu:48");
}

TEST_CASE("sanitizer: clean runs and runs that never started are told apart", "[grader][sanitizer]") {
  const SanitizerResult clean = parse_sanitizer_output("memcheck", "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n");
  CHECK(clean.ran);
  CHECK(clean.hazards == 0);
  CHECK(clean.findings.empty());
  const SanitizerResult race_clean =
      parse_sanitizer_output("racecheck", "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n");
  CHECK(race_clean.ran);
  CHECK(race_clean.hazards == 0);
  const SanitizerResult broken = parse_sanitizer_output(
      "memcheck", "========= Error: Target application terminated before first instrumented API call\n");
  CHECK_FALSE(broken.ran);
  CHECK_THAT(broken.unavailable, Catch::Contains("Target application terminated"));
  const SanitizerResult nothing = parse_sanitizer_output("memcheck", "");
  CHECK_FALSE(nothing.ran);
  CHECK_FALSE(nothing.unavailable.empty());
}

TEST_CASE("sanitizer: a warning-level race still counts as a hazard", "[grader][sanitizer]") {
  const std::string out = R"(========= Warning: Race reported between Read access at k()+0x100 in t.cu:7
=========     and Write access at k()+0x200 in t.cu:9 [2 hazards]
========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)
)";
  const SanitizerResult r = parse_sanitizer_output("racecheck", out);
  CHECK(r.hazards == 1);
  CHECK_THAT(r.findings.at(0), Catch::StartsWith("Warning: Race reported"));
}
