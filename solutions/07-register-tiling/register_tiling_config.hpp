/// @file register_tiling_config.hpp
/// @brief Lab 07's configurations on the host: what a kernel of the family is (TileConfig),
///        the compiled-in defaults, the tuning file the autotuner writes and the lab reads,
///        the NVRTC name of an instantiation, and the reading of ptxas's resource report.
///
/// Pure C++ (no CUDA): the autotuner (`grader tune`), the solution's launcher and the CPU tests
/// all include it. The kernel itself is register_tiling_kernel.cuh.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "convlab/device_info.hpp"

namespace convlab::lab07 {

/// Where a thread's input window comes from (the paper's two layouts).
enum class InputPath : int {
  global = 0,  ///< global→register: every thread loads its window through L1/L2
  shared = 1,  ///< shared→register: the block loads its tile to shared memory first
};

/// How the mask reaches the threads (the talk's two ways).
enum class FilterPath : int {
  constant = 0,  ///< __constant__ memory: constant-bank FFMA operands (a D2D copy per launch)
  shfl = 1,      ///< each lane holds ⌈K²/32⌉ taps; __shfl_sync broadcasts one per use
};

/// How the kernel walks the rows of a thread's window.
enum class RowLoop : int {
  unrolled = 0,  ///< unrolled as well: every index a constant, code size ∝ OX·OY·K²
  rolled = 1,    ///< a run-time loop, one row prefetched into a second register buffer
};

inline const char* input_name(InputPath p) { return p == InputPath::global ? "global" : "shared"; }
inline const char* filter_name(FilterPath f) { return f == FilterPath::constant ? "constant" : "shfl"; }
inline const char* rows_name(RowLoop r) { return r == RowLoop::unrolled ? "unrolled" : "rolled"; }

/// The mask widths lab 07 supports: 2..7 (the paper) and odd 9..17 (the talk).
inline const std::vector<int>& supported_mask_widths() {
  static const std::vector<int> ks{2, 3, 4, 5, 6, 7, 9, 11, 13, 15, 17};
  return ks;
}
inline bool mask_supported(int k) {
  const auto& ks = supported_mask_widths();
  return std::find(ks.begin(), ks.end(), k) != ks.end();
}

/// Static shared memory a block may use (the kernel's tile is a static array).
inline constexpr int kStaticSharedLimit = 48 * 1024;

/// One member of the kernel family (the template arguments that matter for tuning).
struct TileConfig {
  int mask_width = 3;  ///< K
  int out_x = 4;       ///< OX, outputs per thread in x
  int out_y = 4;       ///< OY, outputs per thread in y
  int block_x = 32;    ///< BX, threads per block in x
  int block_y = 4;     ///< BY, threads per block in y
  InputPath input = InputPath::global;
  FilterPath filter = FilterPath::constant;
  RowLoop rows = RowLoop::unrolled;

  /// Width of the vector loads and stores when the image allows them: 4, 2 or 1 floats.
  [[nodiscard]] constexpr int vector_width() const { return out_x % 4 == 0 ? 4 : (out_x % 2 == 0 ? 2 : 1); }

  /// Shared-memory bytes of a block (0 on the global path); mirrors TileGeometry.
  [[nodiscard]] constexpr int shared_bytes(bool vec) const {
    if (input != InputPath::shared) return 0;
    const int vw = vec ? vector_width() : 1;
    const int r = (mask_width - 1) / 2;
    const int rr = mask_width - 1 - r;
    const int left = (r + vw - 1) / vw;
    const int chunks = left + (block_x * out_x - 1 + rr) / vw + 1;
    const int rows = block_y * out_y + mask_width - 1;
    return rows * (chunks + 1) * vw * 4;
  }

  /// Empty when the kernel can be built with these values, else why not (mirrors its
  /// static_asserts, so that the tuner never hands NVRTC a configuration that cannot compile).
  [[nodiscard]] std::string check() const {
    if (mask_width < 1 || mask_width > 17) return fmt::format("mask width {} outside 1..17", mask_width);
    if (out_x < 1 || out_x > 32 || out_y < 1 || out_y > 32) {
      return fmt::format("outputs per thread {}x{} outside 1..32", out_x, out_y);
    }
    if (block_x < 1 || block_y < 1) return "empty block";
    const int threads = block_x * block_y;
    if (threads % 32 != 0 || threads > 1024) {
      return fmt::format("block {}x{} is not a whole number of warps up to 1024 threads", block_x, block_y);
    }
    if (shared_bytes(true) > kStaticSharedLimit || shared_bytes(false) > kStaticSharedLimit) {
      return fmt::format("shared tile of {} bytes above the {} of static shared memory",
                         std::max(shared_bytes(true), shared_bytes(false)), kStaticSharedLimit);
    }
    return "";
  }

  /// "8x4 out/thread, 32x4 threads, global->register, constant filter, rolled rows".
  [[nodiscard]] std::string describe() const {
    return fmt::format("{}x{} out/thread, {}x{} threads, {}->register, {} filter, {} rows", out_x, out_y, block_x,
                       block_y, input_name(input), filter_name(filter), rows_name(rows));
  }
  /// "k17_8x4_b32x4_global_constant_rolled": a file-name-safe key.
  [[nodiscard]] std::string key() const {
    return fmt::format("k{}_{}x{}_b{}x{}_{}_{}_{}", mask_width, out_x, out_y, block_x, block_y, input_name(input),
                       filter_name(filter), rows_name(rows));
  }
  friend constexpr bool operator==(const TileConfig& a, const TileConfig& b) {
    return a.mask_width == b.mask_width && a.out_x == b.out_x && a.out_y == b.out_y && a.block_x == b.block_x &&
           a.block_y == b.block_y && a.input == b.input && a.filter == b.filter && a.rows == b.rows;
  }
  friend constexpr bool operator!=(const TileConfig& a, const TileConfig& b) { return !(a == b); }
};

/// One instantiation: a configuration plus the two switches that are not tuned.
struct KernelVariant {
  TileConfig config;
  bool vec = true;             ///< VW-wide loads/stores (width % VW == 0, aligned pointers)
  bool runtime_inner = false;  ///< the talk's run-time innermost loop (for the comparison only)
};

/// The NVRTC name expression (and C++ name) of an instantiation,
/// "convlab::lab07::register_tiled<17, 8, 4, 32, 4, 0, 0, 1, true, false>".
inline std::string kernel_name(const KernelVariant& v) {
  const TileConfig& c = v.config;
  // With one-float loads the two values of VEC build the same kernel: name one of them.
  const bool vec = v.vec && c.vector_width() > 1;
  return fmt::format("convlab::lab07::register_tiled<{}, {}, {}, {}, {}, {}, {}, {}, {}, {}>", c.mask_width, c.out_x,
                     c.out_y, c.block_x, c.block_y, static_cast<int>(c.input), static_cast<int>(c.filter),
                     static_cast<int>(c.rows), vec ? "true" : "false", v.runtime_inner ? "true" : "false");
}

/// The configurations compiled into solution07 (one per mask width): the autotuner's choice on
/// an NVIDIA H200 (`grader tune`, see labs/07-register-tiling/README.md). Any other
/// configuration, from a tuning file, is compiled by NVRTC when first used.
inline constexpr TileConfig kDefaultConfigs[] = {
    {2, 2, 3, 128, 1, InputPath::global, FilterPath::shfl, RowLoop::unrolled},
    {3, 4, 3, 64, 2, InputPath::global, FilterPath::shfl, RowLoop::unrolled},
    {4, 4, 4, 32, 8, InputPath::global, FilterPath::shfl, RowLoop::unrolled},
    {5, 4, 6, 64, 2, InputPath::global, FilterPath::shfl, RowLoop::unrolled},
    {6, 4, 8, 32, 2, InputPath::global, FilterPath::shfl, RowLoop::unrolled},
    {7, 4, 8, 32, 2, InputPath::global, FilterPath::shfl, RowLoop::unrolled},
    {9, 12, 2, 32, 8, InputPath::global, FilterPath::constant, RowLoop::unrolled},
    {11, 12, 2, 32, 4, InputPath::global, FilterPath::constant, RowLoop::rolled},
    {13, 12, 2, 32, 2, InputPath::global, FilterPath::constant, RowLoop::rolled},
    {15, 12, 2, 32, 2, InputPath::global, FilterPath::constant, RowLoop::rolled},
    {17, 12, 2, 32, 4, InputPath::global, FilterPath::constant, RowLoop::rolled},
};

/// The compiled-in default for mask width k, or nullptr if k is not supported.
inline const TileConfig* default_config(int k) {
  for (const TileConfig& c : kDefaultConfigs) {
    if (c.mask_width == k) return &c;
  }
  return nullptr;
}

/// `c` moved onto the path a role names ("shfl", "constant": the filter path; "global",
/// "shared": the input path), for the lab's comparison variants when the tuning file has no
/// configuration of that role. A shared tile that outgrows static shared memory is shrunk (the
/// block first, then the outputs per thread) until it fits.
inline TileConfig force_path(TileConfig c, const std::string& role) {
  if (role == "shfl") c.filter = FilterPath::shfl;
  else if (role == "constant") c.filter = FilterPath::constant;
  else if (role == "global") c.input = InputPath::global;
  else if (role == "shared") c.input = InputPath::shared;
  while (!c.check().empty() && c.input == InputPath::shared) {
    if (c.block_y > 1) c.block_y /= 2;
    else if (c.out_y > 1) c.out_y /= 2;
    else if (c.block_x > 32) c.block_x /= 2;
    else if (c.out_x > 1) c.out_x /= 2;
    else break;
  }
  return c;
}

// ---------------------------------------------------------------------------------------------
// The tuning file.

/// Version of the tuning-file format written and read here.
inline constexpr int kTuningFormatVersion = 1;
/// Its "format" field.
inline constexpr const char* kTuningFormat = "convlab-lab07-tuning";

/// A malformed tuning file; what() names the file and the field.
class TuningError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline nlohmann::json to_json(const TileConfig& c) {
  return {{"mask_width", c.mask_width}, {"outputs_x", c.out_x}, {"outputs_y", c.out_y},
          {"block_x", c.block_x},       {"block_y", c.block_y}, {"input", input_name(c.input)},
          {"filter", filter_name(c.filter)}, {"rows", rows_name(c.rows)}};
}

/// Reads one configuration; `where` prefixes error messages.
inline TileConfig tile_config_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw TuningError(where + ": not an object");
  auto get_int = [&](const char* key) {
    const auto it = j.find(key);
    if (it == j.end()) throw TuningError(fmt::format("{}: missing \"{}\"", where, key));
    if (!it->is_number_integer()) throw TuningError(fmt::format("{}: \"{}\" is not an integer", where, key));
    return it->get<int>();
  };
  auto get_str = [&](const char* key) {
    const auto it = j.find(key);
    if (it == j.end()) throw TuningError(fmt::format("{}: missing \"{}\"", where, key));
    if (!it->is_string()) throw TuningError(fmt::format("{}: \"{}\" is not a string", where, key));
    return it->get<std::string>();
  };
  TileConfig c;
  c.mask_width = get_int("mask_width");
  c.out_x = get_int("outputs_x");
  c.out_y = get_int("outputs_y");
  c.block_x = get_int("block_x");
  c.block_y = get_int("block_y");
  const std::string in = get_str("input");
  const std::string fi = get_str("filter");
  if (in == "global") c.input = InputPath::global;
  else if (in == "shared") c.input = InputPath::shared;
  else throw TuningError(fmt::format("{}: input \"{}\" is neither \"global\" nor \"shared\"", where, in));
  if (fi == "constant") c.filter = FilterPath::constant;
  else if (fi == "shfl") c.filter = FilterPath::shfl;
  else throw TuningError(fmt::format("{}: filter \"{}\" is neither \"constant\" nor \"shfl\"", where, fi));
  if (j.contains("rows")) {  // optional: "unrolled" when absent
    const std::string ro = get_str("rows");
    if (ro == "unrolled") c.rows = RowLoop::unrolled;
    else if (ro == "rolled") c.rows = RowLoop::rolled;
    else throw TuningError(fmt::format("{}: rows \"{}\" is neither \"unrolled\" nor \"rolled\"", where, ro));
  }
  if (const std::string why = c.check(); !why.empty()) throw TuningError(where + ": " + why);
  return c;
}

/// What a tuning file holds: the best configuration per mask width for one GPU.
struct TuningTable {
  std::string device;                  ///< cudaDeviceProp::name of the GPU it was tuned on
  std::string compute_capability;      ///< "9.0"
  std::map<int, TileConfig> best;      ///< mask width -> configuration
  /// mask width -> role -> the fastest configuration restricted to one path ("shfl",
  /// "constant", "global", "shared"): what the lab's comparison variants run.
  std::map<int, std::map<std::string, TileConfig>> roles;
  nlohmann::json measurements;         ///< free-form: timings of the chosen configurations, etc.
};

/// The roles a tuning file may name, and the path each one forces.
inline bool role_known(const std::string& role) {
  return role == "shfl" || role == "constant" || role == "global" || role == "shared";
}
inline bool role_fits(const std::string& role, const TileConfig& c) {
  if (role == "shfl") return c.filter == FilterPath::shfl;
  if (role == "constant") return c.filter == FilterPath::constant;
  if (role == "global") return c.input == InputPath::global;
  if (role == "shared") return c.input == InputPath::shared;
  return false;
}

/// Parses a tuning file's JSON. @throws TuningError naming `origin` and the bad field.
inline TuningTable parse_tuning(const nlohmann::json& j, const std::string& origin) {
  if (!j.is_object()) throw TuningError(origin + ": not a JSON object");
  if (j.value("format", "") != kTuningFormat) {
    throw TuningError(fmt::format("{}: \"format\" is not \"{}\"", origin, kTuningFormat));
  }
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != kTuningFormatVersion) {
    throw TuningError(fmt::format("{}: unsupported \"version\" (this build reads {})", origin, kTuningFormatVersion));
  }
  TuningTable t;
  if (!j.contains("device") || !j["device"].is_string()) throw TuningError(origin + ": missing \"device\"");
  t.device = j["device"].get<std::string>();
  t.compute_capability = j.value("compute_capability", "");
  if (!j.contains("best") || !j["best"].is_array()) throw TuningError(origin + ": missing the array \"best\"");
  int index = 0;
  for (const auto& e : j["best"]) {
    const TileConfig c = tile_config_from_json(e, fmt::format("{}: best[{}]", origin, index++));
    if (!mask_supported(c.mask_width)) {
      throw TuningError(fmt::format("{}: best[{}]: mask width {} is not one lab 07 supports", origin, index - 1,
                                    c.mask_width));
    }
    if (t.best.count(c.mask_width)) {
      throw TuningError(fmt::format("{}: mask width {} appears twice in \"best\"", origin, c.mask_width));
    }
    t.best[c.mask_width] = c;
  }
  if (j.contains("roles")) {
    if (!j["roles"].is_array()) throw TuningError(origin + ": \"roles\" is not an array");
    index = 0;
    for (const auto& e : j["roles"]) {
      const std::string where = fmt::format("{}: roles[{}]", origin, index++);
      if (!e.is_object() || !e.contains("role") || !e["role"].is_string()) throw TuningError(where + ": missing \"role\"");
      const std::string role = e["role"].get<std::string>();
      if (!role_known(role)) throw TuningError(fmt::format("{}: unknown role \"{}\"", where, role));
      const TileConfig c = tile_config_from_json(e, where);
      if (!mask_supported(c.mask_width)) {
        throw TuningError(fmt::format("{}: mask width {} is not one lab 07 supports", where, c.mask_width));
      }
      if (!role_fits(role, c)) throw TuningError(fmt::format("{}: the configuration does not take the {} path", where, role));
      t.roles[c.mask_width][role] = c;
    }
  }
  t.measurements = j.value("measurements", nlohmann::json::object());
  return t;
}

inline nlohmann::json tuning_to_json(const TuningTable& t) {
  nlohmann::json j = {{"format", kTuningFormat}, {"version", kTuningFormatVersion}, {"device", t.device},
                      {"compute_capability", t.compute_capability}};
  j["best"] = nlohmann::json::array();
  for (const auto& [k, c] : t.best) j["best"].push_back(to_json(c));
  j["roles"] = nlohmann::json::array();
  for (const auto& [k, roles] : t.roles) {
    for (const auto& [role, c] : roles) {
      nlohmann::json e = to_json(c);
      e["role"] = role;
      j["roles"].push_back(e);
    }
  }
  j["measurements"] = t.measurements.is_null() ? nlohmann::json::object() : t.measurements;
  return j;
}

/// Reads a tuning file. @throws TuningError (unreadable, not JSON, or malformed).
inline TuningTable read_tuning_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw TuningError(path.string() + ": cannot be read");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw TuningError(fmt::format("{}: not valid JSON ({})", path.string(), e.what()));
  }
  return parse_tuning(j, path.string());
}

/// Writes a tuning file atomically (a temporary file renamed over the target).
inline void write_tuning_file(const std::filesystem::path& path, const TuningTable& t) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) throw TuningError(tmp.string() + ": cannot be written");
    out << tuning_to_json(t).dump(2) << '\n';
    if (!out) throw TuningError(tmp.string() + ": write failed");
  }
  std::filesystem::rename(tmp, path);
}

using convlab::device_slug;  // "NVIDIA H200" -> "nvidia-h200" (convlab/device_info.hpp)

/// Environment variable naming the tuning file the lab reads (overrides the default path).
inline constexpr const char* kTuningEnv = "CONVLAB_LAB07_TUNING";

/// Default tuning file of a GPU: `<bin>/../tuning/lab07-<slug>.json`, i.e. build/tuning/ for
/// the executables in build/bin/.
inline std::filesystem::path default_tuning_path(const std::filesystem::path& bin_dir, const std::string& device) {
  return bin_dir.parent_path() / "tuning" / fmt::format("lab07-{}.json", device_slug(device));
}

// ---------------------------------------------------------------------------------------------
// ptxas's resource report ("-Xptxas -v"), for the spill check.

/// What ptxas reported for one function.
struct ResourceUsage {
  bool found = false;     ///< the function appeared in the report
  int registers = 0;
  int stack_bytes = 0;    ///< stack frame (local memory), 0 for a kernel that keeps all in registers
  int spill_stores = 0;   ///< bytes
  int spill_loads = 0;    ///< bytes
  int shared_bytes = 0;   ///< static shared memory
  [[nodiscard]] bool spills() const { return spill_stores > 0 || spill_loads > 0; }
};

/// Reads the entry of `function` (its mangled name) from a ptxas -v log, e.g.
///   ptxas info    : Function properties for _Z3fooPf
///   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
///   ptxas info    : Used 30 registers, used 0 barriers, 4096 bytes smem
/// An empty `function` takes the first function in the log.
inline ResourceUsage parse_ptxas_report(const std::string& log, const std::string& function) {
  ResourceUsage u;
  std::vector<std::string> lines;
  {
    std::string line;
    for (const char ch : log) {
      if (ch == '\n') { lines.push_back(line); line.clear(); }
      else if (ch != '\r') line += ch;
    }
    if (!line.empty()) lines.push_back(line);
  }
  static const std::regex props(R"(Function properties for (\S+))");
  static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  static const std::regex compiling(R"(Compiling entry function '([^']+)')");
  std::string target = function;
  bool in_function = false;
  for (const std::string& line : lines) {
    std::smatch m;
    if (std::regex_search(line, m, props) || std::regex_search(line, m, compiling)) {
      if (target.empty()) target = m[1].str();
      const bool match = m[1].str() == target;
      if (in_function && !match) break;  // the next function begins
      in_function = match;
      if (match) u.found = true;
      continue;
    }
    if (!in_function) continue;
    if (std::regex_search(line, m, frame)) {
      u.stack_bytes = std::stoi(m[1].str());
      u.spill_stores = std::stoi(m[2].str());
      u.spill_loads = std::stoi(m[3].str());
    } else if (std::regex_search(line, m, used)) {
      u.registers = std::stoi(m[1].str());
      if (std::regex_search(line, m, smem)) u.shared_bytes = std::stoi(m[1].str());
    }
  }
  return u;
}

}  // namespace convlab::lab07
