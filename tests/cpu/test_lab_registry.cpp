// The lab registry: the one table of labs and variant names that the runner, the grader and the
// benchmarks read.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "convlab/lab_registry.hpp"
#include "convlab/mask_widths.hpp"

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
  CHECK(labs::find_lab(8)->variant("tf32")->tolerance.name == std::string("tf32x1"));
  CHECK(labs::find_lab(8)->variant("tf32x3")->tolerance.name == std::string("fp32"));
  CHECK(labs::find_lab(8)->variant("tf32x3_wgmma")->tolerance.name == std::string("fp32"));
  CHECK(labs::find_lab(8)->variant("tf32_bf16_wgmma")->tolerance.name == std::string("fp32"));
  CHECK(labs::find_lab(8)->variant("tf32_wgmma")->tolerance.name == std::string("tf32x1"));
  CHECK(labs::find_lab(8)->variant_count == 7);
  CHECK(labs::find_lab(9) == nullptr);
  CHECK(labs::find_lab("lab5") == nullptr);
}

TEST_CASE("lab registry: CMake finds every row, and each lab's stub folder has its sources", "[registry]") {
  // cmake/ConvlabLabs.cmake makes the lab executables from the lines of the header that match
  // this pattern (its file(STRINGS ... REGEX)), and their sources from the stub folder's .cu files.
  const std::filesystem::path source = CONVLAB_SOURCE_DIR;
  std::ifstream header(source / "common" / "include" / "convlab" / "lab_registry.hpp");
  REQUIRE(header);
  const std::regex row(R"re(^ *\{[0-9]+, "([0-9][0-9]-[A-Za-z0-9-]+)")re");
  std::vector<std::string> found;
  std::smatch m;
  for (std::string line; std::getline(header, line);) {
    if (std::regex_search(line, m, row)) found.push_back(m[1]);
  }
  std::vector<std::string> registered;
  for (const labs::LabEntry& lab : labs::kLabs) registered.emplace_back(lab.folder);
  CHECK(found == registered);
  for (const std::string& folder : registered) {
    INFO(folder);
    bool has_cu = false;
    for (const auto& f : std::filesystem::directory_iterator(source / "labs" / folder)) has_cu |= f.path().extension() == ".cu";
    CHECK(has_cu);
  }
}

TEST_CASE("lab registry: lab 08's third variant solves conv2d with every K from 9 to 17 and its fourth from 13, both "
          "FP32-accurate on tensor cores, and every other variant its lab's problem",
          "[registry]") {
  const labs::LabEntry& lab = *labs::find_lab(8);
  const labs::VariantEntry* banded = lab.variant("banded_tf32x3");
  REQUIRE(banded != nullptr);
  CHECK(lab.problem == Problem::conv_layer);
  CHECK(lab.problem_of(*banded) == Problem::conv2d);
  CHECK(lab.mask_widths_of(*banded) == MaskWidths::range(9, kMaxMaskWidth));
  CHECK(lab.mask_widths_of(*banded).widths() == std::vector<int>{9, 10, 11, 12, 13, 14, 15, 16, 17});
  CHECK(banded->tolerance.name == std::string("fp32"));
  CHECK(banded->tensor_cores);
  CHECK(lab.variant_count_of(Problem::conv_layer) == 5);  // tf32, tf32x3, tf32x3_wgmma, tf32_bf16_wgmma, tf32_wgmma
  CHECK(lab.variant_count_of(Problem::conv2d) == 2);
  const labs::VariantEntry* mixed = lab.variant("banded_tf32_bf16");
  REQUIRE(mixed != nullptr);
  CHECK(lab.problem_of(*mixed) == Problem::conv2d);
  CHECK(lab.mask_widths_of(*mixed).widths() == std::vector<int>{13, 14, 15, 16, 17});
  CHECK(mixed->tolerance.name == std::string("fp32"));
  CHECK(mixed->tensor_cores);
  CHECK(lab.mask_widths_for(Problem::conv2d) == MaskWidths::range(9, kMaxMaskWidth));
  CHECK(lab.solves(Problem::conv2d));
  CHECK(lab.problem_of(*lab.variant("tf32")) == Problem::conv_layer);
  CHECK(lab.mask_widths_of(*lab.variant("tf32")) == kAllMaskWidths);  // a row without its own: the lab's
  for (const labs::LabEntry& l : labs::kLabs) {
    INFO(l.folder);
    if (l.number != 8) CHECK_FALSE(l.solves(l.problem == Problem::conv2d ? Problem::conv_layer : Problem::conv2d));
    for (int i = 0; i < l.variant_count; ++i) {
      const labs::VariantEntry& v = l.variants[static_cast<std::size_t>(i)];
      // A variant of another problem than its lab's names the K it takes: the lab's say nothing of it.
      if (l.problem_of(v) != l.problem) CHECK_FALSE(v.mask_widths.empty());
    }
  }
}

TEST_CASE("lab registry: lab 08's fifth, sixth and seventh variants run on compute capability 9.0 alone, and every "
          "other variant on any GPU",
          "[registry]") {
  const labs::VariantEntry& wgmma = *labs::find_lab(8)->variant("tf32x3_wgmma");
  const labs::VariantEntry& mixed = *labs::find_lab(8)->variant("tf32_bf16_wgmma");
  const labs::VariantEntry& tf32 = *labs::find_lab(8)->variant("tf32_wgmma");
  for (const labs::VariantEntry* hopper : {&wgmma, &mixed, &tf32}) {
    INFO(hopper->name);
    CHECK(hopper->compute_capability == 90);
    CHECK(hopper->tensor_cores);
    CHECK(hopper->tolerance.name == std::string(hopper == &tf32 ? "tf32x1" : "fp32"));
    CHECK(labs::find_lab(8)->problem_of(*hopper) == Problem::conv_layer);
    CHECK(hopper->runs_on(9, 0));
    CHECK_FALSE(hopper->runs_on(8, 9));   // Ada
    CHECK_FALSE(hopper->runs_on(8, 0));   // A100
    CHECK_FALSE(hopper->runs_on(10, 0));  // sm_90a code runs on no later GPU
  }
  for (const labs::LabEntry& l : labs::kLabs) {
    for (int i = 0; i < l.variant_count; ++i) {
      const labs::VariantEntry& v = l.variants[static_cast<std::size_t>(i)];
      INFO(l.folder << " " << v.name);
      const bool hopper = &v == &wgmma || &v == &mixed || &v == &tf32;
      if (!hopper) CHECK(v.compute_capability == 0);
      if (!hopper) CHECK(v.runs_on(7, 5));
    }
  }
}

TEST_CASE("lab registry: a random case set draws every K some lab's conv2d variant takes, and no other",
          "[registry]") {
  const MaskWidths all = labs::conv2d_mask_widths_of_all_labs();
  CHECK(all == (kOddMaskWidths | kRegisterTilingMaskWidths | MaskWidths::range(9, kMaxMaskWidth)));
  CHECK(all.contains(10));   // lab 08's step 3 alone takes the even K above 7
  CHECK_FALSE(all.contains(8));  // no lab takes K = 8
}
