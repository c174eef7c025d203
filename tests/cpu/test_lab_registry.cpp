// The lab registry: the one table of labs and variant names that the runner, the grader and the
// benchmarks read.
#include <catch2/catch.hpp>

#include <string>

#include "convlab/lab_registry.hpp"

using namespace convlab;

TEST_CASE("lab registry: every lab once, in number order, with the runner's variant names", "[registry]") {
  int expected = 1;
  for (const labs::LabEntry& lab : labs::kLabs) {
    INFO(lab.folder);
    CHECK(lab.number == expected++);
    CHECK(std::string(lab.folder).rfind(lab.number_text() + "-", 0) == 0);
    CHECK(lab.variant_count >= 1);
    CHECK_FALSE(lab.mask_widths.empty());
    for (int i = 0; i < lab.variant_count; ++i) CHECK(lab.variant(lab.variants[static_cast<std::size_t>(i)].name));
  }
  CHECK(labs::find_lab(5)->variants[0].name == std::string("cached_halo"));
  CHECK(labs::find_lab("lab07")->mask_widths == kRegisterTilingMaskWidths);
  CHECK(labs::find_lab(6)->variant("tf32_tensor_core")->tolerance.name == std::string("tf32"));
  CHECK(labs::find_lab(8) == nullptr);
  CHECK(labs::find_lab("lab5") == nullptr);
}
