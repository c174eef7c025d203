// The rubric: the default file parses, points follow its rules, and a bad file is rejected
// with the file and the field named.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "session/rubric.hpp"

using namespace convlab::grader;
using nlohmann::json;

namespace {

json valid_rubric() {
  return json::parse(R"({
    "format": "convlab-rubric", "version": 1, "name": "test",
    "labs": {"01": {"correctness": 6, "performance": 4}},
    "correctness": {"scoring": "proportional"},
    "performance": {"full_at_ratio": 1.5, "zero_at_ratio": 3,
                    "conv2d_case": {"height": 64, "width": 32, "mask_width": 5, "seed": 1},
                    "conv_layer_case": {"batch": 1, "channels": 2, "filters": 3, "height": 8, "width": 8,
                                        "mask_width": 3, "seed": 2}}
  })");
}

std::string error_of(const json& j) {
  try {
    parse_rubric(j, "r.json");
  } catch (const RubricError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("rubric: the default rubric parses and covers every lab", "[grader][rubric]") {
  const Rubric r = load_rubric(default_rubric_path());
  CHECK(r.source == default_rubric_path().string());
  for (const char* lab : {"01", "02", "03", "04", "05", "06", "07", "08"}) {
    INFO(lab);
    CHECK(r.points(lab).correctness > 0);
    CHECK(r.points(lab).performance > 0);
  }
  CHECK(r.full_at_ratio < r.zero_at_ratio);
  CHECK_NOTHROW(r.conv_layer_case.validate());
}

TEST_CASE("rubric: performance share is full, then linear, then zero", "[grader][rubric]") {
  const Rubric r = parse_rubric(valid_rubric(), "r.json");
  CHECK(r.performance_fraction(0.5) == 1);
  CHECK(r.performance_fraction(1.5) == 1);
  CHECK(r.performance_fraction(2.25) == Approx(0.5));
  CHECK(r.performance_fraction(3) == 0);
  CHECK(r.performance_fraction(100) == 0);
  CHECK(r.performance_fraction(std::nan("")) == 0);
}

TEST_CASE("rubric: correctness is proportional or all-or-nothing, and a hazard zeroes it", "[grader][rubric]") {
  Rubric r = parse_rubric(valid_rubric(), "r.json");
  CHECK(r.correctness_points("01", 3, 4, false) == Approx(4.5));
  CHECK(r.correctness_points("01", 4, 4, true) == 0);
  CHECK(r.correctness_points("01", 0, 0, false) == 0);
  json j = valid_rubric();
  j["correctness"]["scoring"] = "all_or_nothing";
  j["correctness"]["sanitizer_hazard_zeroes"] = false;
  r = parse_rubric(j, "r.json");
  CHECK(r.correctness_points("01", 3, 4, false) == 0);
  CHECK(r.correctness_points("01", 4, 4, true) == 6);
}

TEST_CASE("rubric: errors name the file and the field", "[grader][rubric]") {
  json j = valid_rubric();
  j["labs"]["01"]["correctness"] = "seven";
  CHECK(error_of(j) == "rubric r.json: labs.01.correctness: expected a number from 0 to 1000, got \"seven\"");

  // Points without a bound once summed to inf, and Gradescope's score to null, with exit 0.
  j = valid_rubric();
  j["labs"]["01"]["performance"] = 1e308;
  CHECK(error_of(j) == "rubric r.json: labs.01.performance: expected a number from 0 to 1000, got 1e+308");
  j["labs"]["01"]["performance"] = 1000;
  CHECK(error_of(j) == "(accepted)");  // the limit itself is allowed
  j = valid_rubric();
  j["performance"]["zero_at_ratio"] = 1e300;
  CHECK_THAT(error_of(j), Catch::Contains("performance.zero_at_ratio: expected a number from 0 to 1000"));

  j = valid_rubric();
  j["performance"]["zero_at_ratio"] = 1.2;
  CHECK_THAT(error_of(j), Catch::Contains("performance.zero_at_ratio: must be greater than full_at_ratio"));

  j = valid_rubric();
  j["performance"]["full_at"] = 2;
  CHECK_THAT(error_of(j), Catch::Contains("performance.full_at: unknown field"));

  j = valid_rubric();
  j["version"] = 2;
  CHECK_THAT(error_of(j), Catch::Contains("version: this grader reads version 1"));

  j = valid_rubric();
  j["labs"]["lab01"] = j["labs"]["01"];
  CHECK_THAT(error_of(j), Catch::Contains("labs.lab01: lab keys are two-digit numbers"));

  j = valid_rubric();
  j["performance"]["conv2d_case"].erase("seed");
  CHECK_THAT(error_of(j), Catch::Contains("performance.conv2d_case.seed: missing"));

  j = valid_rubric();
  j["performance"]["conv_layer_case"]["mask_width"] = 9;  // larger than the 8×8 input
  CHECK_THAT(error_of(j), Catch::Contains("performance.conv_layer_case"));

  const Rubric r = parse_rubric(valid_rubric(), "r.json");
  CHECK_THROWS_WITH(r.points("05"), Catch::Contains("labs: no points for lab 05"));
  CHECK_THROWS_WITH(load_rubric("/nonexistent/rubric.json"), Catch::Contains("rubric /nonexistent/rubric.json: cannot open: No such file or directory"));
}

TEST_CASE("rubric: a lab's own performance case replaces the global one for that lab and that problem only",
          "[grader][rubric]") {
  json j = valid_rubric();
  j["labs"]["08"] = {{"correctness", 7}, {"performance", 3},
                     {"conv2d_case", {{"height", 20}, {"width", 24}, {"mask_width", 13}, {"seed", 9u}}}};
  const Rubric r = parse_rubric(j, "r.json");
  const PerformanceCase own = r.performance_case("08", convlab::Problem::conv2d);
  CHECK(own.id() == "conv2d/perf_20x24_k13");
  CHECK(own.seed == 9);
  // Lab 08's conv layers, and every other lab's images, stay on the global cases.
  CHECK(r.performance_case("08", convlab::Problem::conv_layer).id() == "conv_layer/perf_b1_c2_m3_8x8_k3_s1_p0_d1");
  CHECK(r.performance_case("08", convlab::Problem::conv_layer).seed == 2);
  CHECK(r.performance_case("01", convlab::Problem::conv2d).id() == "conv2d/perf_64x32_k5");
  CHECK(r.performance_case("01", convlab::Problem::conv2d).seed == 1);
  CHECK(r.performance_case("05", convlab::Problem::conv2d).id() == "conv2d/perf_64x32_k5");  // no entry at all
}

TEST_CASE("rubric: the default rubric times lab 08's conv2d step at 2048x2048, K = 13, and its conv layers and "
          "every other lab on the global cases",
          "[grader][rubric]") {
  const Rubric r = load_rubric(default_rubric_path());
  CHECK(r.performance_case("08", convlab::Problem::conv2d).id() == "conv2d/perf_2048x2048_k13");
  CHECK(r.performance_case("08", convlab::Problem::conv_layer).id() ==
        r.performance_case("06", convlab::Problem::conv_layer).id());
  for (const char* lab : {"01", "02", "03", "04", "05", "07"}) {
    INFO(lab);
    CHECK(r.performance_case(lab, convlab::Problem::conv2d).id() == "conv2d/perf_2048x2048_k5");
  }
}

TEST_CASE("rubric: a lab's own performance case is checked as the global ones are, and against the K its lab's "
          "variants take, each error naming the field",
          "[grader][rubric]") {
  const json good = {{"height", 20}, {"width", 24}, {"mask_width", 9}, {"seed", 9u}};
  auto with_case = [&](const std::string& lab, const std::string& key, const json& c) {
    json j = valid_rubric();
    j["labs"][lab] = {{"correctness", 7}, {"performance", 3}, {key, c}};
    return error_of(j);
  };
  CHECK(with_case("08", "conv2d_case", good) == "(accepted)");
  json c = good;
  c.erase("seed");
  CHECK(with_case("08", "conv2d_case", c) == "rubric r.json: labs.08.conv2d_case.seed: missing");
  c = good;
  c["mask_width"] = 18;
  CHECK(with_case("08", "conv2d_case", c) ==
        "rubric r.json: labs.08.conv2d_case.mask_width: expected an integer from 1 to 17, got 18");
  c = good;
  c["heigth"] = 20;
  CHECK(with_case("08", "conv2d_case", c) == "rubric r.json: labs.08.conv2d_case.heigth: unknown field (a misspelling?)");
  CHECK(with_case("08", "conv2d_case", "2048x2048") ==
        "rubric r.json: labs.08.conv2d_case: expected an object, got \"2048x2048\"");
  // Lab 08's conv2d step takes K = 9..17: 8 is one below.
  c = good;
  c["mask_width"] = 8;
  CHECK(with_case("08", "conv2d_case", c) == "rubric r.json: labs.08.conv2d_case.mask_width: lab 08's conv2d variants "
                                             "take mask widths 9,10,11,12,13,14,15,16,17, not 8");
  // Lab 01 takes odd K only.
  c["mask_width"] = 3;
  CHECK(with_case("01", "conv2d_case", c) == "(accepted)");
  c["mask_width"] = 4;
  CHECK_THAT(with_case("01", "conv2d_case", c), Catch::Contains("labs.01.conv2d_case.mask_width: lab 01's conv2d "
                                                                "variants take mask widths 1,3,5,7,9,11,13,15,17, not 4"));
  // A case of a problem the lab does not solve could time nothing.
  const json layer = {{"batch", 1}, {"channels", 2}, {"filters", 3}, {"height", 8}, {"width", 8}, {"mask_width", 3}, {"seed", 4u}};
  CHECK(with_case("06", "conv_layer_case", layer) == "(accepted)");
  CHECK(with_case("01", "conv_layer_case", layer) ==
        "rubric r.json: labs.01.conv_layer_case: lab 01 has no conv_layer variant to time on it");
  json too_big = layer;
  too_big["mask_width"] = 9;  // larger than the 8×8 input
  CHECK_THAT(with_case("06", "conv_layer_case", too_big), Catch::StartsWith("rubric r.json: labs.06.conv_layer_case: "));
}
