// Reading a results folder's bench.json (format "convlab-bench", version 1; its fields in
// bench_report.hpp): the file a user copies between machines and `grader bench --plot-only`
// redraws from, so a file to validate, not trust. Every field the report reads is checked for
// its type, and every count for its range, before the report runs.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "convlab/file_reader.hpp"

namespace convlab::grader {

/// A bench.json the report cannot use: what() names the file, the field and why.
class BenchFileError : public LoadError {
 public:
  using LoadError::LoadError;
};

/// Checks the fields bench_report.cpp reads (types, and ranges of the sizes it multiplies).
/// @param origin names the document in errors (its file). @throws BenchFileError
void check_bench_json(const nlohmann::json& bench, const std::string& origin);

/// Reads and checks `path` (a regular file of at most kMaxTextFileBytes). @throws BenchFileError
nlohmann::json read_bench_file(const std::filesystem::path& path);

}  // namespace convlab::grader
