// What a lab executable lists (`labNN --list --json`, which needs no GPU) is the lab registry's
// row as the grader reads it: lab 08's variants solve two problems, each with its own K and
// tolerance, registered in one process (common/src/lab_mains/lab08.cpp, describe_lab).
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "convlab/json_file.hpp"
#include "convlab/lab_registry.hpp"
#include "convlab/limits.hpp"
#include "grader_test_support.hpp"
#include "run/lab_variants.hpp"
#include "system/subprocess.hpp"

using namespace convlab;
using namespace convlab::grader;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST_CASE("lab08 --list --json lists steps 1, 2, 5, 6 and 7 on conv layers (5 to 7 on compute capability 9.0 only) and "
          "steps 3 and 4 on images with their K, as the registry says, and the grader reads it back",
          "[registry][lab08]") {
  testing::TempDir tmp("lab08-list");
  const fs::path list = tmp.path() / "list.json";
  const ProcessResult p = run_process({CONVLAB_LAB08_EXE, "--list", "--json", list.string()}, 60s);
  INFO(p.output);
  REQUIRE(p.exit_code == 0);
  const LabVariants listing = parse_lab_variants(read_json_file(list, kMaxTextFileBytes));
  CHECK(listing.lab == "lab08");
  const labs::LabEntry& lab = *labs::find_lab(8);
  REQUIRE(static_cast<int>(listing.variants.size()) == lab.variant_count);
  for (const VariantInfo& v : listing.variants) {
    INFO(v.name);
    const labs::VariantEntry* entry = lab.variant(v.name);
    REQUIRE(entry != nullptr);
    CHECK(v.problem == lab.problem_of(*entry));
    CHECK(v.tolerance.name == std::string(entry->tolerance.name));
    CHECK(v.tensor_cores == entry->tensor_cores);
    CHECK(v.compute_capability == entry->compute_capability);
    if (v.problem == Problem::conv2d) CHECK(v.mask_widths == lab.mask_widths_of(*entry));
  }
  const auto banded = std::find_if(listing.variants.begin(), listing.variants.end(),
                                   [](const VariantInfo& v) { return v.name == "banded_tf32x3"; });
  REQUIRE(banded != listing.variants.end());
  CHECK(banded->problem == Problem::conv2d);
  CHECK(banded->mask_widths == MaskWidths::range(9, kMaxMaskWidth));
  CHECK(banded->tolerance.name == std::string("fp32"));
  CHECK(listing.names_of(Problem::conv_layer) == "tf32, tf32x3, tf32x3_wgmma, tf32_bf16_wgmma, tf32_wgmma");
  const auto wgmma = std::find_if(listing.variants.begin(), listing.variants.end(),
                                  [](const VariantInfo& v) { return v.name == "tf32x3_wgmma"; });
  REQUIRE(wgmma != listing.variants.end());
  CHECK(wgmma->compute_capability == 90);
  CHECK(wgmma->tolerance.name == std::string("fp32"));
  // On an A100 the grader leaves it out, on an H200 it keeps it.
  LabVariants on_a100 = listing, on_h200 = listing;
  on_a100.keep_runnable_on(80);
  on_h200.keep_runnable_on(90);
  CHECK(on_a100.names_of(Problem::conv_layer) == "tf32, tf32x3");
  REQUIRE(on_a100.not_on_this_gpu.size() == 3);
  CHECK(on_a100.not_on_this_gpu[0].name == "tf32x3_wgmma");
  CHECK(on_a100.not_on_this_gpu[1].name == "tf32_bf16_wgmma");
  CHECK(on_a100.not_on_this_gpu[2].name == "tf32_wgmma");
  CHECK(on_h200.variants.size() == listing.variants.size());
  CHECK(on_h200.not_on_this_gpu.empty());
  CHECK(listing.names_of(Problem::conv2d) == "banded_tf32x3, banded_tf32_bf16");
  CHECK_NOTHROW(check_problems_against_registry(listing, "08"));
}
