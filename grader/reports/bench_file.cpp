#include "reports/bench_file.hpp"

#include <fmt/format.h>

#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "convlab/json_file.hpp"
#include "convlab/limits.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

enum class Kind { object, array, string, number, integer };

// The pictures and tables hold one cell per method, image size and mask width: a file of a few
// thousand rows, each of a new method and a new size, would ask for hundreds of millions. A
// `grader bench` run has about a dozen methods and a few sizes.
constexpr std::size_t kMaxBenchMethods = 64;
constexpr std::size_t kMaxBenchSizes = 64;

// One field the report reads: a path of keys ("*": every element of an array), its kind and,
// for integers, the range the report's arithmetic is safe in. Absent fields are allowed: the
// report prints "?" or "—" for them.
struct Rule {
  const char* path;
  Kind kind;
  long long lo = 0;
  long long hi = 0;
};

const std::vector<Rule>& rules() {
  static const std::vector<Rule> r = {
      {"date", Kind::string},
      {"device", Kind::object},
      {"device/name", Kind::string},
      {"device/compute_capability", Kind::string},
      {"device/driver", Kind::string},
      {"device/runtime", Kind::string},
      {"device/sms", Kind::integer, 0, 1000000},
      {"ceilings", Kind::object},
      {"ceilings/copy_bytes_per_s", Kind::number},
      {"ceilings/fma_flops_per_s", Kind::number},
      {"ceilings/tf32_mma_flops_per_s", Kind::number},
      {"ceilings/tf32_mma_k4_flops_per_s", Kind::number},
      {"clocks", Kind::object},
      {"clocks/during_conv2d", Kind::object},
      {"clocks/during_conv2d/samples", Kind::integer, 0, 1000000000},
      {"conv2d", Kind::object},
      {"conv2d/protocol", Kind::object},
      {"conv2d/protocol/interior_samples", Kind::integer, 0, 1000000000},
      {"conv2d/protocol/warmup", Kind::integer, 0, 1000000000},
      {"conv2d/protocol/repeats", Kind::integer, 0, 1000000000},
      {"conv2d/missing_peers", Kind::array},
      {"conv2d/missing_peers/*", Kind::object},
      {"conv2d/results", Kind::array},
      {"conv2d/results/*", Kind::object},
      {"conv2d/results/*/method", Kind::string},
      {"conv2d/results/*/height", Kind::integer, 1, kMaxExtent},
      {"conv2d/results/*/width", Kind::integer, 1, kMaxExtent},
      {"conv2d/results/*/mask_width", Kind::integer, 1, kMaxMaskWidth},
      {"conv2d/results/*/kind", Kind::string},
      {"conv2d/results/*/error", Kind::string},
      {"conv2d/results/*/detail", Kind::string},
      {"conv2d/results/*/ms", Kind::number},
      {"conv2d/results/*/gb_per_s", Kind::number},
      {"conv2d/results/*/tflop_per_s", Kind::number},
      {"conv2d/results/*/roofline_fraction", Kind::number},
      {"layers", Kind::object},
      {"layers/layers", Kind::array},
      {"layers/layers/*", Kind::object},
      {"layers/layers/*/measurements", Kind::array},
      {"layers/layers/*/measurements/*", Kind::object},
      {"sweep", Kind::object},
      {"sweep/size", Kind::integer, 1, kMaxExtent},
      {"sweep/ncu", Kind::object},
      {"sweep/rows", Kind::array},
      {"sweep/rows/*", Kind::object},
      {"sweep/rows/*/ncu", Kind::object},
      {"sweep/rows/*/mask_width", Kind::integer, 0, kMaxMaskWidth},
      {"sweep/rows/*/block_x", Kind::integer, 1, 1024},
      {"sweep/rows/*/block_y", Kind::integer, 1, 1024},
  };
  return r;
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::object: return "an object";
    case Kind::array: return "an array";
    case Kind::string: return "a string";
    case Kind::number: return "a number (or null: not measured)";
    case Kind::integer: return "an integer";
  }
  return "?";
}

[[noreturn]] void fail(const std::string& origin, const std::string& field, const std::string& why) {
  throw BenchFileError(fmt::format("{}: field \"{}\": {}", origin, field, why));
}

void check_value(const json& v, const Rule& rule, const std::string& origin, const std::string& field) {
  bool ok = false;
  switch (rule.kind) {
    case Kind::object: ok = v.is_object(); break;
    case Kind::array: ok = v.is_array(); break;
    case Kind::string: ok = v.is_string(); break;
    case Kind::number: ok = v.is_number() || v.is_null(); break;
    case Kind::integer: ok = v.is_number_integer(); break;
  }
  if (!ok) fail(origin, field, fmt::format("must be {}, got {}", kind_name(rule.kind), describe_json(v)));
  if (rule.kind == Kind::integer) {
    const bool above = v.is_number_unsigned() ? v.get<std::uint64_t>() > static_cast<std::uint64_t>(rule.hi)
                                              : v.get<long long>() > rule.hi;
    if (above || (!v.is_number_unsigned() && v.get<long long>() < rule.lo)) {
      fail(origin, field, fmt::format("is {}, outside {}..{}", describe_json(v), rule.lo, rule.hi));
    }
  }
}

// Applies `rule` below `j`, whose path so far is `field`; `rest` is what is left of the rule's path.
void walk(const json& j, std::string_view rest, const Rule& rule, const std::string& origin, const std::string& field) {
  const std::size_t slash = rest.find('/');
  const std::string_view key = rest.substr(0, slash);
  const std::string_view after = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  auto step = [&](const json& child, const std::string& child_field) {
    if (after.empty()) {
      check_value(child, rule, origin, child_field);
    } else {
      walk(child, after, rule, origin, child_field);
    }
  };
  if (key == "*") {
    if (!j.is_array()) return;  // reported by the array's own rule
    for (std::size_t i = 0; i < j.size(); ++i) step(j[i], fmt::format("{}[{}]", field, i));
    return;
  }
  if (!j.is_object()) return;  // reported by the object's own rule
  const auto it = j.find(std::string(key));
  if (it == j.end()) return;
  step(*it, field.empty() ? std::string(key) : fmt::format("{}.{}", field, key));
}

}  // namespace

void check_bench_json(const json& bench, const std::string& origin) {
  if (!bench.is_object()) throw BenchFileError(fmt::format("{}: must hold a JSON object", origin));
  if (!bench.contains("format") || bench["format"] != "convlab-bench") {
    fail(origin, "format", "must be \"convlab-bench\"");
  }
  if (!bench.contains("version") || bench["version"] != 1) fail(origin, "version", "must be 1 (this grader reads version 1)");
  // Rules in order: a parent's kind is checked before its children are walked.
  for (const Rule& rule : rules()) walk(bench, rule.path, rule, origin, "");
  const bool has_results = bench.contains("conv2d") && bench["conv2d"].contains("results");
  if (has_results) {
    // The report multiplies height by width in int.
    const json& results = bench["conv2d"]["results"];
    std::set<std::string> methods;
    std::set<std::pair<int, int>> sizes;
    for (std::size_t i = 0; i < results.size(); ++i) {
      const json& r = results[i];
      methods.insert(r.value("method", std::string()));
      sizes.insert({r.value("height", 0), r.value("width", 0)});
      if (methods.size() > kMaxBenchMethods) {
        fail(origin, fmt::format("conv2d.results[{}]", i),
             fmt::format("a method past the {} distinct methods a report holds", kMaxBenchMethods));
      }
      if (sizes.size() > kMaxBenchSizes) {
        fail(origin, fmt::format("conv2d.results[{}]", i),
             fmt::format("an image size past the {} distinct sizes a report holds", kMaxBenchSizes));
      }
      if (!r.contains("height") || !r.contains("width")) continue;
      if (!product_within({r["height"].get<std::uint64_t>(), r["width"].get<std::uint64_t>()}, kMaxTensorElements)) {
        fail(origin, fmt::format("conv2d.results[{}]", i),
             fmt::format("a {}x{} image holds more than {} elements, the limit", describe_json(r["height"]), describe_json(r["width"]),
                         kMaxTensorElements));
      }
    }
  }
  if (has_results && !bench.contains("ceilings")) fail(origin, "ceilings", "missing (conv2d has results)");
}

json read_bench_file(const fs::path& path) {
  json bench;
  try {
    bench = read_json_file(path, kMaxTextFileBytes);
  } catch (const LoadError& e) {
    throw BenchFileError(e.what());
  }
  check_bench_json(bench, path.string());
  return bench;
}

}  // namespace convlab::grader
