/// @file json_file.hpp
/// @brief A JSON file read the one way a loader reads a file (file_reader.hpp: a regular file of
///        bounded size) and parsed with bounded nesting (limits.hpp, kMaxJsonDepth), with one
///        message for each way it can fail; and the one way an error message quotes a value of
///        such a file (describe_json: short, never the whole value). Each loader rethrows the
///        LoadError as its own error type (DatasetError, TuningError, ...).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "convlab/file_reader.hpp"
#include "convlab/limits.hpp"

namespace convlab {

/// The deepest nesting of arrays and objects in `text`, counted up to `stop` (strings skipped,
/// escapes included): a pass over the bytes, so that a parser or a message never recurses
/// into a value nested deeper than kMaxJsonDepth.
inline int json_nesting(std::string_view text, int stop = kMaxJsonDepth + 1) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size() && deepest < stop; ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

/// `text` parsed as JSON; `what` names it in errors (a path, "the runner's report").
/// @throws LoadError "WHAT: is not valid JSON: ..." or "WHAT: nests arrays and objects deeper than 64 levels"
inline nlohmann::json parse_json(std::string_view text, const std::string& what) {
  if (json_nesting(text) > kMaxJsonDepth) {
    throw LoadError(fmt::format("{}: nests arrays and objects deeper than {} levels", what, kMaxJsonDepth));
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw LoadError(fmt::format("{}: is not valid JSON: {}", what, e.what()));
  }
}

/// A value of an untrusted file, quoted for an error message: a number, boolean or null as it
/// is written, a string of at most kMaxQuotedChars characters, and an array or object by its
/// size only ("an array of 3 elements").
inline std::string describe_json(const nlohmann::json& v) {
  if (v.is_array()) return fmt::format("an array of {} element{}", v.size(), v.size() == 1 ? "" : "s");
  if (v.is_object()) return fmt::format("an object of {} key{}", v.size(), v.size() == 1 ? "" : "s");
  std::string text = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > kMaxQuotedChars) text = text.substr(0, kMaxQuotedChars) + "...";
  return text;
}

/// The JSON document in `path` (at most `max_bytes`).
/// @throws LoadError "PATH: is a folder, not a file", ..., "PATH: is not valid JSON: ...", or
///         "PATH: nests arrays and objects deeper than 64 levels".
inline nlohmann::json read_json_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
  return parse_json(read_file(path, max_bytes), path.string());
}

}  // namespace convlab
