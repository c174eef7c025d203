/// @file json_file.hpp
/// @brief A JSON file read the one way a loader reads a file (file_reader.hpp: a regular file of
///        bounded size) and parsed, with one message for each way it can fail. Each loader
///        rethrows the LoadError as its own error type (DatasetError, TuningError, ...).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "convlab/file_reader.hpp"

namespace convlab {

/// The JSON document in `path` (at most `max_bytes`).
/// @throws LoadError "PATH: is a folder, not a file", ..., or "PATH: is not valid JSON: ...".
inline nlohmann::json read_json_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
  const std::string text = read_file(path, max_bytes);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw LoadError(fmt::format("{}: is not valid JSON: {}", path.string(), e.what()));
  }
}

}  // namespace convlab
