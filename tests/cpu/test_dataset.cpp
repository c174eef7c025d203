// Case folders: round trips, every malformed-case error, and the committed public set.
#include <catch2/catch.hpp>

#include <fstream>

#include "convlab/datagen.hpp"
#include "convlab/dataset.hpp"
#include "convlab/npy.hpp"
#include "test_paths.hpp"

using namespace convlab;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / "convlab-test-dataset" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write_text(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::trunc) << s; }

using convlab::testing::kDatasets;

}  // namespace

TEST_CASE("dataset: a conv2d case survives a write and a read", "[dataset]") {
  const Conv2dCase c = generate_case(Conv2dSpec{"k3_5x4", {5, 4, 3}, 42, "test"});
  const fs::path dir = fresh_dir("roundtrip2d");
  write_case(dir, c);
  const Conv2dCase back = load_conv2d_case(dir);
  CHECK(back.info.name == "k3_5x4");
  CHECK(back.info.seed == 42);
  CHECK(back.info.conv2d.height == 5);
  CHECK(back.info.conv2d.mask_width == 3);
  CHECK(back.image.values() == c.image.values());
  CHECK(back.mask.values() == c.mask.values());
  REQUIRE(back.expected);
  CHECK(back.expected->values() == c.expected->values());
  CHECK_FALSE(load_conv2d_case(dir, false).expected);  // the grader's children never see it
}

TEST_CASE("dataset: a conv-layer case survives a write and a read", "[dataset]") {
  ConvLayerSpec spec{"layer", {2, 3, 4, 9, 8, 3, 2, 1, 1}, 9, "test"};
  const ConvLayerCase c = generate_case(spec);
  const fs::path dir = fresh_dir("roundtriplayer");
  write_case(dir, c);
  const ConvLayerCase back = load_conv_layer_case(dir);
  CHECK(back.info.layer.stride == 2);
  CHECK(back.info.layer.out_height() == 5);
  CHECK(back.x.values() == c.x.values());
  CHECK(back.expected->shape() == std::vector<std::size_t>{2, 4, 5, 4});
}

TEST_CASE("dataset: malformed case folders are rejected with the file and the reason", "[dataset]") {
  const Conv2dCase good = generate_case(Conv2dSpec{"k3_5x4", {5, 4, 3}, 1, ""});
  auto expect_error = [](const fs::path& dir, const std::string& phrase) {
    INFO("case " << dir.string() << " should fail with: " << phrase);
    try {
      (void)load_conv2d_case(dir);
      FAIL("no error");
    } catch (const std::exception& e) {
      CHECK_THAT(std::string(e.what()), Catch::Contains(phrase));
      CHECK_THAT(std::string(e.what()), Catch::Contains(dir.string()));
    }
  };
  const fs::path none = fresh_dir("no_json");
  expect_error(none, "cannot open");

  const fs::path bad = fresh_dir("bad_json");
  write_text(bad / "case.json", "{ not json");
  expect_error(bad, "is not valid JSON");

  const fs::path fmt_ = fresh_dir("wrong_format");
  write_text(fmt_ / "case.json", R"({"format": "other", "version": 1})");
  expect_error(fmt_, "\"format\" must be \"convlab-case\"");

  const fs::path ver = fresh_dir("wrong_version");
  write_text(ver / "case.json", R"({"format": "convlab-case", "version": 7})");
  expect_error(ver, "format version 7 is not supported");

  const fs::path missing = fresh_dir("missing_field");
  write_text(missing / "case.json", R"({"format": "convlab-case", "version": 1, "name": "x", "problem": "conv2d", "shape": {"height": 3, "width": 3}})");
  expect_error(missing, "missing field \"shape.mask_width\"");

  const fs::path notint = fresh_dir("not_int");
  write_text(notint / "case.json", R"({"format": "convlab-case", "version": 1, "name": "x", "problem": "conv2d", "shape": {"height": "3", "width": 3, "mask_width": 3}})");
  expect_error(notint, "field \"shape.height\" must be an integer, got \"3\"");

  const fs::path k = fresh_dir("mask_too_big");
  write_text(k / "case.json", R"({"format": "convlab-case", "version": 1, "name": "x", "problem": "conv2d", "shape": {"height": 3, "width": 3, "mask_width": 19}})");
  expect_error(k, "field \"shape.mask_width\" is 19, above the limit of 17");

  const fs::path prob = fresh_dir("bad_problem");
  write_text(prob / "case.json", R"({"format": "convlab-case", "version": 1, "name": "x", "problem": "conv3d", "shape": {}})");
  expect_error(prob, "\"problem\" must be");

  const fs::path shape = fresh_dir("shape_disagrees");
  write_case(shape, good);
  write_npy(shape / "input.npy", Tensor<float>({4, 5}));
  expect_error(shape, "has shape (4, 5) but case.json implies (5, 4)");

  const fs::path lost = fresh_dir("missing_npy");
  write_case(lost, good);
  fs::remove(lost / "mask.npy");
  expect_error(lost, "mask.npy: cannot open");

  const fs::path kind = fresh_dir("wrong_kind");
  write_case(kind, generate_case(ConvLayerSpec{"l", {1, 1, 1, 3, 3, 1, 1, 0, 1}, 1, ""}));
  expect_error(kind, "is a conv_layer case, not conv2d");
}

TEST_CASE("dataset: find_cases walks a dataset root, or takes a single case", "[dataset]") {
  const auto all = find_cases(kDatasets);
  CHECK(all.size() >= 30);
  CHECK(find_cases(all.front()) == std::vector<fs::path>{all.front()});
  CHECK_THROWS_WITH(find_cases(fresh_dir("empty")), Catch::Contains("holds no case"));
  CHECK_THROWS_WITH(find_cases("/nonexistent/datasets"), Catch::Contains("no such file"));
}

TEST_CASE("dataset: every committed case loads and its expected output is the reference's", "[dataset]") {
  int conv2d = 0, layers = 0;
  for (const fs::path& dir : find_cases(kDatasets)) {
    INFO(dir.string());
    const CaseInfo info = read_case_info(dir);
    if (info.problem == Problem::conv2d) {
      const Conv2dCase c = load_conv2d_case(dir);
      REQUIRE(c.expected);
      CHECK(c.expected->values() == conv2d_reference(c.image, c.mask).values());
      ++conv2d;
    } else {
      const ConvLayerCase c = load_conv_layer_case(dir);
      REQUIRE(c.expected);
      CHECK(c.expected->values() == conv_layer_reference(c.x, c.w, c.params()).values());
      ++layers;
    }
  }
  CHECK(conv2d >= 20);
  CHECK(layers >= 10);
}
