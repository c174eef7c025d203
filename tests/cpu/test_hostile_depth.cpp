// Hostile input, depth: a JSON value nested far deeper than any file of ours once crashed the
// grader (a stack overflow, rc 139) when its error message quoted the value whole. Every loader
// now refuses nesting past kMaxJsonDepth before it parses, and a message quotes a value by its
// size, never whole.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "convlab/datagen.hpp"
#include "convlab/dataset.hpp"
#include "convlab/json_file.hpp"
#include "convlab/limits.hpp"
#include "grader_test_support.hpp"
#include "reports/bench_file.hpp"
#include "session/rubric.hpp"

using namespace convlab;
using namespace convlab::grader;
using namespace convlab::grader::testing;
namespace fs = std::filesystem;

namespace {

std::string nested(int depth, const std::string& inner = "1") {
  return std::string(static_cast<std::size_t>(depth), '[') + inner + std::string(static_cast<std::size_t>(depth), ']');
}

// A valid case.json of the 5x4 K=3 case with the value at `path` (e.g. {"shape", "height"})
// replaced by the JSON text `value`.
std::string case_json_with(const std::vector<std::string>& path, const std::string& value) {
  nlohmann::json j = {{"format", "convlab-case"}, {"version", 1}, {"problem", "conv2d"}, {"name", "k3_5x4"},
                      {"seed", 1}, {"description", "d"}, {"shape", {{"height", 5}, {"width", 4}, {"mask_width", 3}}}};
  nlohmann::json* at = &j;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) at = &(*at)[path[i]];
  (*at)[path.back()] = "@@";
  std::string text = j.dump();
  text.replace(text.find("\"@@\""), 4, value);
  return text;
}

// The message of the exception `load` throws; "" when it throws none.
template <class Load>
std::string message_of(Load load) {
  try {
    load();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("json depth: nesting is counted over the bytes, strings and escapes skipped", "[hostile][depth]") {
  CHECK(json_nesting("1") == 0);
  CHECK(json_nesting(R"({"a": [1, [2]]})") == 3);
  CHECK(json_nesting(R"({"a": "[[[[[[", "b": "\"[[[["})") == 1);
  CHECK(json_nesting(nested(1000)) == kMaxJsonDepth + 1);  // counting stops past the limit
  CHECK_NOTHROW(parse_json(nested(kMaxJsonDepth), "x"));
  CHECK_THAT(message_of([] { parse_json(nested(kMaxJsonDepth + 1), "x.json"); }),
             Catch::Contains("x.json: nests arrays and objects deeper than 64 levels"));
}

TEST_CASE("json depth: a case.json, a rubric and a bench.json nested 100,000 deep are refused by name",
          "[hostile][depth]") {
  TempDir tmp("hostile-depth");
  const std::string deep = nested(100000);
  SECTION("case.json, the deep value in a field") {
    const fs::path dir = tmp.path() / "k3_5x4";
    write_case(dir, generate_case(Conv2dSpec{"k3_5x4", {5, 4, 3}, 1, ""}));
    write_test_file(dir / "case.json", case_json_with({"shape", "height"}, deep));
    const std::string m = message_of([&] { read_case_info(dir); });
    CHECK_THAT(m, Catch::Contains((dir / "case.json").string()));
    CHECK_THAT(m, Catch::Contains("deeper than 64"));
  }
  SECTION("a rubric") {
    write_test_file(tmp.path() / "rubric.json", R"({"format": "convlab-rubric", "version": 1, "labs": )" + deep + "}");
    CHECK_THAT(message_of([&] { load_rubric(tmp.path() / "rubric.json"); }), Catch::Contains("deeper than 64"));
  }
  SECTION("bench.json") {
    write_test_file(tmp.path() / "bench.json", deep);
    CHECK_THAT(message_of([&] { read_bench_file(tmp.path() / "bench.json"); }), Catch::Contains("deeper than 64"));
  }
}

TEST_CASE("json depth: a message quotes a value by its size, never whole", "[hostile][depth]") {
  CHECK(describe_json(nlohmann::json::parse(nested(60))) == "an array of 1 element");
  CHECK(describe_json(nlohmann::json::parse(R"({"a": 1, "b": 2})")) == "an object of 2 keys");
  CHECK(describe_json(3.5) == "3.5");
  const std::string huge(1 << 20, 'x');
  const std::string quoted = describe_json(huge);
  CHECK(quoted.size() <= kMaxQuotedChars + 3);
  CHECK(quoted.substr(0, 4) == "\"xxx");
  // A megabyte-long string where a number belongs: the message stays a line.
  TempDir tmp("hostile-quote");
  const fs::path dir = tmp.path() / "k3_5x4";
  write_case(dir, generate_case(Conv2dSpec{"k3_5x4", {5, 4, 3}, 1, ""}));
  write_test_file(dir / "case.json", case_json_with({"shape", "height"}, "\"" + huge + "\""));
  const std::string m = message_of([&] { read_case_info(dir); });
  CHECK_THAT(m, Catch::Contains("shape.height"));
  CHECK_THAT(m, Catch::Contains("must be an integer"));
  CHECK(m.size() < 400 + dir.string().size());
}

TEST_CASE("json depth: every depth around the limit in every field meets only the loader's own error",
          "[hostile][depth]") {
  TempDir tmp("hostile-depth-sweep");
  const fs::path dir = tmp.path() / "k3_5x4";
  write_case(dir, generate_case(Conv2dSpec{"k3_5x4", {5, 4, 3}, 1, ""}));
  write_test_file(dir / "case.json", case_json_with({"shape", "height"}, "5"));
  REQUIRE(message_of([&] { read_case_info(dir); }).empty());  // the document itself is valid
  const std::vector<std::vector<std::string>> fields = {{"shape", "height"}, {"shape", "width"}, {"shape", "mask_width"},
                                                        {"name"}, {"problem"}, {"seed"}, {"format"}, {"version"}};
  for (const auto& field : fields) {
    for (int depth : {1, 2, kMaxJsonDepth - 2, kMaxJsonDepth - 1, kMaxJsonDepth + 1, 5000}) {
      write_test_file(dir / "case.json", case_json_with(field, nested(depth)));
      INFO(field.back() << " at depth " << depth);
      const std::string m = message_of([&] { read_case_info(dir); });
      CHECK_THAT(m, Catch::Contains("case.json"));  // a named error, not a crash or a silent pass
      // Past the limit the loader stops before parsing; below it, the field's own rule speaks.
      const bool too_deep = depth + 1 > kMaxJsonDepth - (field.size() == 2 ? 1 : 0);
      if (too_deep) CHECK_THAT(m, Catch::Contains("deeper than 64"));
      if (depth <= 2) CHECK_THAT(m, !Catch::Contains("deeper than"));
    }
  }
}
