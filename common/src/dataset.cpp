#include "convlab/dataset.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string_view>
#include <system_error>

#include "convlab/atomic_file.hpp"
#include "convlab/contained_paths.hpp"
#include "convlab/json_file.hpp"
#include "convlab/limits.hpp"
#include "convlab/npy.hpp"

namespace convlab {
namespace fs = std::filesystem;
using nlohmann::json;

// File names inside a case folder (datasets/README.md).
constexpr const char* kCaseJson = "case.json";
constexpr const char* kConv2dImage = "input.npy";
constexpr const char* kConv2dMask = "mask.npy";
constexpr const char* kLayerX = "x.npy";
constexpr const char* kLayerW = "w.npy";
constexpr const char* kExpected = "expected.npy";

const char* problem_name(Problem p) { return p == Problem::conv2d ? "conv2d" : "conv_layer"; }

std::string CaseInfo::id() const { return fmt::format("{}/{}", problem_name(problem), name); }

namespace {

[[noreturn]] void fail(const fs::path& file, const std::string& what) {
  throw DatasetError(fmt::format("{}: {}", file.string(), what));
}

// An integer field within [lo, hi], read in 64 bits: 2^32+37 must be refused, not read as 37.
int int_field(const fs::path& file, const json& obj, const std::string& where, const char* key, long long lo,
              long long hi, std::optional<int> fallback = {}) {
  const std::string field = where.empty() ? key : where + "." + key;
  const auto it = obj.find(key);
  if (it == obj.end()) {
    if (fallback) return *fallback;
    fail(file, fmt::format("missing field \"{}\"", field));
  }
  const json& v = *it;
  const bool too_big = v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi);
  if (!v.is_number_integer()) {
    fail(file, fmt::format("field \"{}\" must be an integer, got {}", field, describe_json(v)));
  }
  const long long x = too_big ? hi : v.get<long long>();
  if (too_big || x > hi) {
    fail(file, fmt::format("field \"{}\" is {}, above the limit of {} (docs/design.md, Limits)", field, describe_json(v), hi));
  }
  if (x < lo) fail(file, fmt::format("field \"{}\" is {}, below the minimum of {}", field, x, lo));
  return static_cast<int>(x);
}

// A string field, or `fallback` when absent.
std::string string_field(const fs::path& file, const json& obj, const char* key, std::optional<std::string> fallback) {
  const auto it = obj.find(key);
  if (it == obj.end()) {
    if (fallback) return *fallback;
    fail(file, fmt::format("missing string field \"{}\"", key));
  }
  if (!it->is_string()) fail(file, fmt::format("field \"{}\" must be a string, got {}", key, describe_json(*it)));
  return it->get<std::string>();
}

void expect_shape(const fs::path& file, const std::vector<std::size_t>& got,
                  const std::vector<std::size_t>& want) {
  if (got != want) {
    fail(file, fmt::format("has shape {} but case.json implies {}", shape_string(got), shape_string(want)));
  }
}

std::vector<std::size_t> dims(std::initializer_list<int> d) {
  std::vector<std::size_t> v;
  for (int x : d) v.push_back(static_cast<std::size_t>(x));
  return v;
}

json info_json(const CaseInfo& info) {
  json j;
  j["format"] = "convlab-case";
  j["version"] = kCaseFormatVersion;
  j["problem"] = problem_name(info.problem);
  j["name"] = info.name;
  j["description"] = info.description;
  j["seed"] = info.seed;
  if (info.problem == Problem::conv2d) {
    j["shape"] = {{"height", info.conv2d.height}, {"width", info.conv2d.width},
                  {"mask_width", info.conv2d.mask_width}};
  } else {
    const ConvLayerShape& s = info.layer;
    j["shape"] = {{"batch", s.batch},       {"channels", s.channels}, {"filters", s.filters},
                  {"height", s.height},     {"width", s.width},       {"mask_width", s.mask_width},
                  {"stride", s.stride},     {"padding", s.padding},   {"dilation", s.dilation}};
  }
  return j;
}

}  // namespace

std::string case_name_problem(const std::string& name) {
  if (name.empty()) return "it is empty";
  if (name == "." || name == "..") return fmt::format("it is \"{}\", a folder reference", name);
  if (name.size() > kMaxCaseNameLength) {
    return fmt::format("it is {} characters long, above the limit of {}", name.size(), kMaxCaseNameLength);
  }
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (ok) continue;
    const auto u = static_cast<unsigned char>(c);
    const std::string shown = u > 32 && u < 127 ? fmt::format("'{}'", c) : fmt::format("byte 0x{:02x}", u);
    return fmt::format("it holds {}; a case name is one path component of letters, digits, '.', '_' and '-'", shown);
  }
  return "";
}

CaseInfo read_case_info(const fs::path& dir) {
  const fs::path file = dir / kCaseJson;
  json j;
  try {
    j = read_json_file(file, kMaxTextFileBytes);
  } catch (const LoadError& e) {
    throw DatasetError(e.what());
  }
  if (!j.is_object()) fail(file, "must hold a JSON object");
  if (string_field(file, j, "format", std::string()) != "convlab-case") fail(file, "\"format\" must be \"convlab-case\"");
  const int version = int_field(file, j, "", "version", 0, INT_MAX);
  if (version != kCaseFormatVersion) {
    fail(file, fmt::format("format version {} is not supported (this convlab reads version {})",
                           version, kCaseFormatVersion));
  }
  CaseInfo info;
  info.dir = dir;
  if (!j.contains("name") || !j["name"].is_string()) fail(file, "missing string field \"name\"");
  info.name = j["name"].get<std::string>();
  // The name becomes a folder (staging) and part of output file names: one plain component.
  if (const std::string why = case_name_problem(info.name); !why.empty()) {
    fail(file, fmt::format("field \"name\": {} is not a case name: {}", json(info.name).dump(-1, ' ', false, json::error_handler_t::replace), why));
  }
  info.description = string_field(file, j, "description", std::string());
  if (j.contains("seed")) {
    if (!j["seed"].is_number_unsigned()) {
      fail(file, fmt::format("field \"seed\" must be a non-negative integer, got {}", describe_json(j["seed"])));
    }
    info.seed = j["seed"].get<std::uint64_t>();
  }
  const std::string problem = string_field(file, j, "problem", std::string());
  if (!j.contains("shape") || !j["shape"].is_object()) fail(file, "missing object field \"shape\"");
  const json& s = j["shape"];
  try {
    if (problem == "conv2d") {
      info.problem = Problem::conv2d;
      info.conv2d = {int_field(file, s, "shape", "height", 1, kMaxExtent),
                     int_field(file, s, "shape", "width", 1, kMaxExtent),
                     int_field(file, s, "shape", "mask_width", 1, kMaxMaskWidth)};
      info.conv2d.validate();
    } else if (problem == "conv_layer") {
      info.problem = Problem::conv_layer;
      ConvLayerShape& l = info.layer;
      l.batch = int_field(file, s, "shape", "batch", 1, kMaxLayerCount);
      l.channels = int_field(file, s, "shape", "channels", 1, kMaxLayerCount);
      l.filters = int_field(file, s, "shape", "filters", 1, kMaxLayerCount);
      l.height = int_field(file, s, "shape", "height", 1, kMaxExtent);
      l.width = int_field(file, s, "shape", "width", 1, kMaxExtent);
      l.mask_width = int_field(file, s, "shape", "mask_width", 1, kMaxMaskWidth);
      l.stride = int_field(file, s, "shape", "stride", 1, kMaxLayerStep, 1);
      l.padding = int_field(file, s, "shape", "padding", 0, kMaxLayerStep, 0);
      l.dilation = int_field(file, s, "shape", "dilation", 1, kMaxLayerStep, 1);
      l.validate();
    } else {
      fail(file, fmt::format("\"problem\" must be \"conv2d\" or \"conv_layer\", got \"{}\"", problem));
    }
  } catch (const std::invalid_argument& e) {
    fail(file, e.what());
  }
  return info;
}

Conv2dCase load_conv2d_case(const fs::path& dir, bool with_expected) {
  Conv2dCase c;
  c.info = read_case_info(dir);
  if (c.info.problem != Problem::conv2d) fail(dir / kCaseJson, "is a conv_layer case, not conv2d");
  const Conv2dShape& s = c.info.conv2d;
  c.image = read_npy_f32(dir / kConv2dImage);
  expect_shape(dir / kConv2dImage, c.image.shape(), dims({s.height, s.width}));
  c.mask = read_npy_f32(dir / kConv2dMask);
  expect_shape(dir / kConv2dMask, c.mask.shape(), dims({s.mask_width, s.mask_width}));
  if (with_expected && fs::exists(dir / kExpected)) {
    c.expected = read_npy_f64(dir / kExpected);
    expect_shape(dir / kExpected, c.expected->shape(), dims({s.height, s.width}));
  }
  return c;
}

ConvLayerCase load_conv_layer_case(const fs::path& dir, bool with_expected) {
  ConvLayerCase c;
  c.info = read_case_info(dir);
  if (c.info.problem != Problem::conv_layer) fail(dir / kCaseJson, "is a conv2d case, not conv_layer");
  const ConvLayerShape& s = c.info.layer;
  c.x = read_npy_f32(dir / kLayerX);
  expect_shape(dir / kLayerX, c.x.shape(), dims({s.batch, s.channels, s.height, s.width}));
  c.w = read_npy_f32(dir / kLayerW);
  expect_shape(dir / kLayerW, c.w.shape(), dims({s.filters, s.channels, s.mask_width, s.mask_width}));
  if (with_expected && fs::exists(dir / kExpected)) {
    c.expected = read_npy_f64(dir / kExpected);
    expect_shape(dir / kExpected, c.expected->shape(),
                 dims({s.batch, s.filters, s.out_height(), s.out_width()}));
  }
  return c;
}

namespace {

// A case folder written over an older case holds exactly the new case's files: an expected.npy
// left from a run with references beside inputs written without (--no-expected) would make
// correct labs fail against the old case's outputs.
void remove_stale_case_files(const fs::path& dir, std::initializer_list<const char*> keep) {
  for (const char* name : {kConv2dImage, kConv2dMask, kLayerX, kLayerW, kExpected}) {
    if (std::find_if(keep.begin(), keep.end(), [&](const char* k) { return std::string_view(k) == name; }) != keep.end()) {
      continue;
    }
    std::error_code ec;
    fs::remove(dir / name, ec);
    if (ec) throw DatasetError(fmt::format("{}: a stale file cannot be removed: {}", (dir / name).string(), ec.message()));
  }
}

}  // namespace

void write_case(const fs::path& dir, const Conv2dCase& c, Durability durability) {
  fs::create_directories(dir);
  if (c.expected) {
    remove_stale_case_files(dir, {kConv2dImage, kConv2dMask, kExpected});
  } else {
    remove_stale_case_files(dir, {kConv2dImage, kConv2dMask});
  }
  write_npy(dir / kConv2dImage, c.image, durability);
  write_npy(dir / kConv2dMask, c.mask, durability);
  if (c.expected) write_npy(dir / kExpected, *c.expected, durability);
  write_file_atomically(dir / kCaseJson, info_json(c.info).dump(2) + "\n", durability);
}

void write_case(const fs::path& dir, const ConvLayerCase& c, Durability durability) {
  fs::create_directories(dir);
  if (c.expected) {
    remove_stale_case_files(dir, {kLayerX, kLayerW, kExpected});
  } else {
    remove_stale_case_files(dir, {kLayerX, kLayerW});
  }
  write_npy(dir / kLayerX, c.x, durability);
  write_npy(dir / kLayerW, c.w, durability);
  if (c.expected) write_npy(dir / kExpected, *c.expected, durability);
  write_file_atomically(dir / kCaseJson, info_json(c.info).dump(2) + "\n", durability);
}

namespace {

/// A case folder's links checked: each must lead to a file inside the walked `root` (a case
/// read through a link would otherwise read whatever the link points at).
void check_case_links(const fs::path& root, const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code e;
    if (it->is_symlink(e)) resolve_inside(root, it->path());
  }
}

}  // namespace

std::vector<fs::path> find_cases(const fs::path& path, std::vector<std::string>* skipped) try {
  std::error_code ec;
  const fs::file_status top = fs::status(path, ec);
  if (ec == std::errc::too_many_symbolic_link_levels) {
    throw DatasetError(fmt::format("{}: a loop of symbolic links", path.string()));
  }
  if (!fs::exists(top)) throw DatasetError(fmt::format("{}: no such file or folder", path.string()));
  // A case.json that is not a regular file (a folder, a FIFO) still marks a case folder: its
  // loader refuses it by name rather than the walk passing over it in silence.
  if (fs::exists(path / kCaseJson, ec) || fs::is_symlink(path / kCaseJson, ec)) {
    check_case_links(path, path);
    return {path};
  }
  std::vector<fs::path> cases;
  // Folder by folder, so that one unreadable folder is reported and passed over instead of
  // ending the walk (recursive_directory_iterator stops at the first error).
  std::vector<fs::path> pending{path};
  bool root = true;
  while (!pending.empty()) {
    const fs::path dir = pending.back();
    pending.pop_back();
    fs::directory_iterator it(dir, ec);
    if (ec) {
      if (root) throw DatasetError(fmt::format("{}: cannot be read: {}", dir.string(), ec.message()));
      if (skipped) skipped->push_back(fmt::format("{}: skipped: {}", dir.string(), ec.message()));
      continue;
    }
    root = false;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec) break;
      std::error_code e;
      // A link is followed only inside the walked folder (contained_paths.hpp): one that leads
      // out, dangles or loops stops the walk, naming it.
      const bool linked = it->is_symlink(e);
      const fs::path real = linked ? resolve_inside(path, it->path()) : it->path();
      if (!fs::is_directory(real, e)) continue;
      if (fs::exists(it->path() / kCaseJson, e) || fs::is_symlink(it->path() / kCaseJson, e)) {
        check_case_links(path, it->path());
        cases.push_back(it->path());
      } else if (!linked) {  // a linked folder's cases are found where they lie
        pending.push_back(it->path());
      }
    }
    if (ec && skipped) skipped->push_back(fmt::format("{}: skipped the rest: {}", dir.string(), ec.message()));
  }
  if (cases.empty()) throw DatasetError(fmt::format("{}: holds no case (no case.json below it)", path.string()));
  std::sort(cases.begin(), cases.end());
  return cases;
} catch (const PathError& e) {
  throw DatasetError(e.what());
}

}  // namespace convlab
