// The lab registry: the one table of labs and variant names that the runner, the grader and the
// benchmarks read.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

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
  CHECK(labs::find_lab(8)->variant("tf32")->tolerance.name == std::string("tf32x1"));
  CHECK(labs::find_lab(8)->variant("tf32x3")->tolerance.name == std::string("fp32"));
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
