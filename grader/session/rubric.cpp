#include "session/rubric.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <regex>
#include <set>

#include "convlab/json_file.hpp"
#include "convlab/lab_registry.hpp"
#include "convlab/limits.hpp"
#include "system/exit_codes.hpp"
#include "system/tool_paths.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Reads fields of one JSON object, naming the path of each in errors, and rejects fields it
// does not know (a misspelt key must not be silently ignored).
class Fields {
 public:
  Fields(const json& j, std::string path, const std::string& source) : j_(j), path_(std::move(path)), source_(source) {
    if (!j_.is_object()) fail("", fmt::format("expected an object, got {}", describe_json(j_)));
  }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    const std::string where = path_.empty() ? key : (key.empty() ? path_ : path_ + "." + key);
    throw RubricError(fmt::format("rubric {}: {}{}", source_, where.empty() ? "" : where + ": ", what));
  }
  const json* find(const std::string& key) {
    seen_.insert(key);
    const auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  const json& require(const std::string& key) {
    const json* v = find(key);
    if (!v) fail(key, "missing");
    return *v;
  }
  double number(const std::string& key, double min, double max, std::optional<double> fallback = std::nullopt) {
    const json* v = find(key);
    if (!v) {
      if (fallback) return *fallback;
      fail(key, "missing");
    }
    if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() < min || v->get<double>() > max) {
      fail(key, fmt::format("expected a number from {} to {}, got {}", min, max, describe_json(*v)));
    }
    return v->get<double>();
  }
  int integer(const std::string& key, int min, int max, std::optional<int> fallback = std::nullopt) {
    const json* v = find(key);
    if (!v) {
      if (fallback) return *fallback;
      fail(key, "missing");
    }
    if (!v->is_number_integer() || v->get<long long>() < min || v->get<long long>() > max) {
      fail(key, fmt::format("expected an integer from {} to {}, got {}", min, max, describe_json(*v)));
    }
    return v->get<int>();
  }
  std::uint64_t seed(const std::string& key) {
    const json& v = require(key);
    if (!v.is_number_unsigned()) fail(key, fmt::format("expected a non-negative integer, got {}", describe_json(v)));
    return v.get<std::uint64_t>();
  }
  bool boolean(const std::string& key, bool fallback) {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(key, fmt::format("expected true or false, got {}", describe_json(*v)));
    return v->get<bool>();
  }
  std::string string(const std::string& key, const std::string& fallback) {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_string()) fail(key, fmt::format("expected a string, got {}", describe_json(*v)));
    return v->get<std::string>();
  }
  Fields object(const std::string& key) {
    return Fields(require(key), path_.empty() ? key : path_ + "." + key, source_);
  }
  /// Call last: every key must have been read.
  void no_unknown_keys() const {
    for (const auto& [key, value] : j_.items()) {
      if (!seen_.count(key)) fail(key, "unknown field (a misspelling?)");
    }
  }
  const json& raw() const { return j_; }
  const std::string& path() const { return path_; }

 private:
  const json& j_;
  std::string path_;
  const std::string& source_;
  std::set<std::string> seen_;
};

// A conv2d performance case: {"height", "width", "mask_width", "seed"}.
PerformanceCase parse_conv2d_case(Fields f) {
  PerformanceCase c;
  c.problem = Problem::conv2d;
  c.conv2d.height = f.integer("height", 1, 32768);
  c.conv2d.width = f.integer("width", 1, 32768);
  c.conv2d.mask_width = f.integer("mask_width", 1, kMaxMaskWidth);
  c.seed = f.seed("seed");
  f.no_unknown_keys();
  return c;
}

// A conv-layer performance case: the layer's shape (stride, padding and dilation optional) and "seed".
PerformanceCase parse_conv_layer_case(Fields f) {
  PerformanceCase c;
  c.problem = Problem::conv_layer;
  ConvLayerShape& s = c.layer;
  s.batch = f.integer("batch", 1, 1024);
  s.channels = f.integer("channels", 1, 4096);
  s.filters = f.integer("filters", 1, 4096);
  s.height = f.integer("height", 1, 8192);
  s.width = f.integer("width", 1, 8192);
  s.mask_width = f.integer("mask_width", 1, kMaxMaskWidth);
  s.stride = f.integer("stride", 1, 64, 1);
  s.padding = f.integer("padding", 0, 64, 0);
  s.dilation = f.integer("dilation", 1, 64, 1);
  c.seed = f.seed("seed");
  f.no_unknown_keys();
  try {
    s.validate();
  } catch (const std::exception& e) {
    f.fail("", e.what());
  }
  return c;
}

// A lab's own performance case (labs.NN.conv2d_case, labs.NN.conv_layer_case): read as the
// global one is, and checked against the lab registry, so that a case no variant of the lab
// could be timed on is the rubric's error, named here, and not a lab that cannot be graded.
std::optional<PerformanceCase> lab_case(Fields& lab, const std::string& number, Problem p) {
  const std::string key = p == Problem::conv2d ? "conv2d_case" : "conv_layer_case";
  if (!lab.raw().contains(key)) return std::nullopt;
  Fields f = lab.object(key);
  const PerformanceCase c = p == Problem::conv2d ? parse_conv2d_case(f) : parse_conv_layer_case(f);
  const labs::LabEntry* entry = labs::find_lab("lab" + number);
  if (entry == nullptr) return c;
  if (!entry->solves(p)) {
    lab.fail(key, fmt::format("lab {} has no {} variant to time on it", number, problem_name(p)));
  }
  const MaskWidths takes = entry->mask_widths_for(p);
  if (p == Problem::conv2d && !takes.contains(c.conv2d.mask_width)) {
    f.fail("mask_width", fmt::format("lab {}'s conv2d variants take mask widths {}, not {}", number,
                                     takes.to_string(), c.conv2d.mask_width));
  }
  return c;
}

}  // namespace

std::string PerformanceCase::name() const {
  if (problem == Problem::conv2d) return fmt::format("perf_{}x{}_k{}", conv2d.height, conv2d.width, conv2d.mask_width);
  const ConvLayerShape& s = layer;
  return fmt::format("perf_b{}_c{}_m{}_{}x{}_k{}_s{}_p{}_d{}", s.batch, s.channels, s.filters, s.height, s.width,
                     s.mask_width, s.stride, s.padding, s.dilation);
}

std::string PerformanceCase::id() const { return std::string(problem_name(problem)) + "/" + name(); }

PerformanceCase Rubric::performance_case(const std::string& number, Problem p) const {
  if (const auto it = labs.find(number); it != labs.end()) {
    const std::optional<PerformanceCase>& own = p == Problem::conv2d ? it->second.conv2d_case : it->second.conv_layer_case;
    if (own) return *own;
  }
  PerformanceCase c;
  c.problem = p;
  c.conv2d = conv2d_case;
  c.layer = conv_layer_case;
  c.seed = p == Problem::conv2d ? conv2d_seed : conv_layer_seed;
  return c;
}

const LabPoints& Rubric::points(const std::string& number) const {
  const auto it = labs.find(number);
  if (it == labs.end()) {
    throw RubricError(fmt::format("rubric {}: labs: no points for lab {} (add \"{}\": {{\"correctness\": ..., "
                                  "\"performance\": ...}})", source, number, number));
  }
  return it->second;
}

bool LabPoints::is_stretch(const std::string& variant) const {
  return std::find(stretch.begin(), stretch.end(), variant) != stretch.end();
}

double Rubric::performance_fraction(double ratio) const {
  if (!(ratio >= 0)) return 0;  // NaN: no valid timing
  if (ratio <= full_at_ratio) return 1;
  if (ratio >= zero_at_ratio) return 0;
  return (zero_at_ratio - ratio) / (zero_at_ratio - full_at_ratio);
}

double Rubric::correctness_points(const std::string& number, int passed, int runs, bool hazard) const {
  const double max = points(number).correctness;
  if (runs <= 0 || (hazard && sanitizer_hazard_zeroes)) return 0;
  if (!proportional) return passed == runs ? max : 0;
  return max * passed / runs;
}

std::optional<std::string> Rubric::performance_gate(int passed, int runs, bool hazard) const {
  if (!performance_requires_full_correctness) return std::nullopt;
  if (hazard && sanitizer_hazard_zeroes) return "no performance points: compute-sanitizer found a hazard";
  if (runs <= 0 || passed != runs) {
    return fmt::format("no performance points: {} of {} correctness runs failed", runs - passed, runs);
  }
  return std::nullopt;
}

double Rubric::performance_points(const std::string& number, const std::vector<double>& fractions) const {
  if (fractions.empty()) return 0;
  double sum = 0;
  for (const double f : fractions) sum += f;
  return points(number).performance * sum / static_cast<double>(fractions.size());
}

Rubric parse_rubric(const json& j, const std::string& source) {
  Rubric r;
  r.source = source;
  Fields top(j, "", source);
  if (top.string("format", "") != "convlab-rubric") top.fail("format", "expected \"convlab-rubric\"");
  if (top.integer("version", 0, 1000000) != kRubricVersion) {
    top.fail("version", fmt::format("this grader reads version {}", kRubricVersion));
  }
  r.name = top.string("name", "");
  top.find("description");  // free text for people

  Fields labs = top.object("labs");
  for (const auto& [number, value] : labs.raw().items()) {
    if (!std::regex_match(number, std::regex(R"(\d\d)"))) labs.fail(number, "lab keys are two-digit numbers, e.g. \"01\"");
    Fields lab(value, "labs." + number, source);
    LabPoints p;
    // Bounded so that no sum of them overflows to inf (a Gradescope score of null).
    p.correctness = lab.number("correctness", 0, kMaxRubricPoints);
    p.performance = lab.number("performance", 0, kMaxRubricPoints);
    if (const json* st = lab.find("stretch")) {
      if (!st->is_array()) lab.fail("stretch", fmt::format("expected an array of variant names, got {}", describe_json(*st)));
      for (const json& v : *st) {
        if (!v.is_string() || v.get<std::string>().empty()) {
          lab.fail("stretch", fmt::format("expected variant names (strings), got {}", describe_json(v)));
        }
        p.stretch.push_back(v.get<std::string>());
      }
    }
    p.conv2d_case = lab_case(lab, number, Problem::conv2d);
    p.conv_layer_case = lab_case(lab, number, Problem::conv_layer);
    lab.no_unknown_keys();
    r.labs[number] = p;
    labs.find(number);
  }

  Fields correctness = top.object("correctness");
  const std::string scoring = correctness.string("scoring", "proportional");
  if (scoring != "proportional" && scoring != "all_or_nothing") {
    correctness.fail("scoring", fmt::format("expected \"proportional\" or \"all_or_nothing\", got \"{}\"", scoring));
  }
  r.proportional = scoring == "proportional";
  r.sanitizer_hazard_zeroes = correctness.boolean("sanitizer_hazard_zeroes", true);
  correctness.no_unknown_keys();

  Fields perf = top.object("performance");
  r.full_at_ratio = perf.number("full_at_ratio", 0, kMaxRubricRatio);
  r.zero_at_ratio = perf.number("zero_at_ratio", 0, kMaxRubricRatio);
  if (r.full_at_ratio < 1) perf.fail("full_at_ratio", fmt::format("must be ≥ 1 (the reference's own time), got {}", r.full_at_ratio));
  if (r.zero_at_ratio <= r.full_at_ratio) {
    perf.fail("zero_at_ratio", fmt::format("must be greater than full_at_ratio ({}), got {}", r.full_at_ratio, r.zero_at_ratio));
  }
  r.performance_requires_full_correctness = perf.boolean("requires_full_correctness", true);

  const PerformanceCase conv2d = parse_conv2d_case(perf.object("conv2d_case"));
  r.conv2d_case = conv2d.conv2d;
  r.conv2d_seed = conv2d.seed;
  const PerformanceCase layer = parse_conv_layer_case(perf.object("conv_layer_case"));
  r.conv_layer_case = layer.layer;
  r.conv_layer_seed = layer.seed;
  perf.no_unknown_keys();
  top.no_unknown_keys();
  return r;
}

Rubric load_rubric(const fs::path& file) {
  json j;
  try {
    j = read_json_file(file, kMaxTextFileBytes);
  } catch (const LoadError& e) {
    throw RubricError(fmt::format("rubric {}", e.what()));
  }
  return parse_rubric(j, file.string());
}

fs::path default_rubric_path() { return source_dir() / "grader" / "rubric.json"; }

}  // namespace convlab::grader
