/// @file tuning_file.hpp
/// @brief Lab 07's tuning file: what `grader tune` writes and the lab's launcher reads (the best
///        configuration per mask width and per role), its JSON form and its default path.
#pragma once

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "convlab/autotune/kernel_source.hpp"
#include "convlab/atomic_file.hpp"
#include "convlab/device_info.hpp"
#include "convlab/json_file.hpp"
#include "convlab/limits.hpp"
#include "convlab/lab07_config.hpp"

namespace convlab::lab07 {

// ---------------------------------------------------------------------------------------------
// The tuning file.

/// Version of the tuning-file format written and read here.
inline constexpr int kTuningFormatVersion = 1;
/// Its "format" field.
inline constexpr const char* kTuningFormat = "convlab-lab07-tuning";

/// A malformed tuning file; what() names the file and the field.
class TuningError : public LoadError {
 public:
  using LoadError::LoadError;
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
    // In 64 bits first: 2^32+5 must not be read as 5.
    if (it->is_number_unsigned() ? it->get<std::uint64_t>() > 1000000u
                                 : (it->get<long long>() > 1000000 || it->get<long long>() < -1000000)) {
      throw TuningError(fmt::format("{}: \"{}\" is {}, outside -1000000..1000000", where, key, describe_json(*it)));
    }
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
  else if (fi == "loaded") c.filter = FilterPath::loaded;
  else throw TuningError(fmt::format("{}: filter \"{}\" is not \"constant\", \"shfl\" or \"loaded\"", where, fi));
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
  /// The kernel source that was tuned ("kernel": origin, path, hash). A launcher uses the file
  /// only when the hash is its own kernel's; a file without it (older tuners) is used by none.
  std::optional<KernelSourceId> kernel;
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
  if (!j.contains("format") || j["format"] != kTuningFormat) {
    throw TuningError(fmt::format("{}: \"format\" is not \"{}\"", origin, kTuningFormat));
  }
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"] != kTuningFormatVersion) {
    throw TuningError(fmt::format("{}: unsupported \"version\" (this build reads {})", origin, kTuningFormatVersion));
  }
  TuningTable t;
  if (!j.contains("device") || !j["device"].is_string()) throw TuningError(origin + ": missing \"device\"");
  t.device = j["device"].get<std::string>();
  if (j.contains("compute_capability")) {
    if (!j["compute_capability"].is_string()) {
      throw TuningError(fmt::format("{}: \"compute_capability\" is not a string", origin));
    }
    t.compute_capability = j["compute_capability"].get<std::string>();
  }
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
  if (j.contains("kernel")) {
    const nlohmann::json& k = j["kernel"];
    const std::string where = origin + ": kernel";
    if (!k.is_object()) throw TuningError(where + ": not an object");
    KernelSourceId id;
    for (auto [key, field] : {std::pair<const char*, std::string*>{"origin", &id.origin}, {"path", &id.path},
                              {"hash", &id.hash}}) {
      if (!k.contains(key) || !k[key].is_string()) {
        throw TuningError(fmt::format("{}: missing the string \"{}\"", where, key));
      }
      *field = k[key].get<std::string>();
    }
    if (!std::regex_match(id.hash, std::regex("[0-9a-f]{16}"))) {
      throw TuningError(fmt::format("{}: hash \"{}\" is not 16 hex digits", where, id.hash));
    }
    t.kernel = id;
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
  if (t.kernel) j["kernel"] = to_json(*t.kernel);
  j["measurements"] = t.measurements.is_null() ? nlohmann::json::object() : t.measurements;
  return j;
}

/// Reads a tuning file. @throws TuningError (unreadable, not JSON, or malformed).
inline TuningTable read_tuning_file(const std::filesystem::path& path) {
  nlohmann::json j;
  try {
    j = read_json_file(path, kMaxTextFileBytes);
  } catch (const LoadError& e) {
    throw TuningError(e.what());
  }
  return parse_tuning(j, path.string());
}

/// Writes a tuning file atomically (convlab/atomic_file.hpp), creating its folder.
/// @throws TuningError naming the file and the step that failed.
inline void write_tuning_file(const std::filesystem::path& path, const TuningTable& t) {
  try {
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
    write_file_atomically(path, tuning_to_json(t).dump(2) + "\n");
  } catch (const std::filesystem::filesystem_error& e) {
    throw TuningError(fmt::format("{}: cannot be written: {}", path.string(), e.code().message()));
  } catch (const std::runtime_error& e) {
    throw TuningError(e.what());
  }
}

using convlab::device_slug;  // "NVIDIA H200" -> "nvidia-h200" (convlab/device_info.hpp)

/// Environment variable naming the tuning file the lab reads (overrides the default path).
inline constexpr const char* kTuningEnv = "CONVLAB_LAB07_TUNING";

/// Default tuning file of a GPU for the kernel of `origin`: `<bin>/../tuning/lab07-<slug>.json`
/// for the student's kernel (labs/), `solution07-<slug>.json` for the reference (solutions/),
/// i.e. in build/tuning/ for the executables in build/bin/. Two files, so that tuning one never
/// overwrites the other's.
inline std::filesystem::path default_tuning_path(const std::filesystem::path& bin_dir, const std::string& device,
                                                 const std::string& origin = "labs") {
  const char* stem = origin == "solutions" ? "solution07" : "lab07";
  return bin_dir.parent_path() / "tuning" / fmt::format("{}-{}.json", stem, device_slug(device));
}

/// Default report folder (heat maps, tables) beside it: build/tuning/lab07-<slug>/ or
/// build/tuning/solution07-<slug>/.
inline std::filesystem::path default_report_dir(const std::filesystem::path& bin_dir, const std::string& device,
                                                const std::string& origin = "labs") {
  const char* stem = origin == "solutions" ? "solution07" : "lab07";
  return bin_dir.parent_path() / "tuning" / fmt::format("{}-{}", stem, device_slug(device));
}

/// The configuration lab 07 runs for mask width k and a variant's role ("" for the tuned
/// variant, or "shfl", "constant", "shared"): the tuning file's configuration of that role, else
/// its best (or the compiled-in default when there is no tuning file or it lacks k) moved onto
/// the role's path. What the launchers run and what the analysis model predicts.
/// @throws std::invalid_argument for an unsupported k
inline TileConfig config_for_role(const TuningTable* tuned, int k, const std::string& role) {
  if (!role.empty() && tuned && tuned->roles.count(k) && tuned->roles.at(k).count(role)) {
    return tuned->roles.at(k).at(role);  // the tuner's best configuration of that path
  }
  TileConfig c;
  if (tuned && tuned->best.count(k)) {
    c = tuned->best.at(k);
  } else if (const TileConfig* d = default_config(k)) {
    c = *d;
  } else {
    throw std::invalid_argument(fmt::format("lab07: mask width {} is not supported (2..7 and odd 9..17)", k));
  }
  return role.empty() ? c : force_path(c, role);
}

}  // namespace convlab::lab07
