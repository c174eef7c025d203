// A seed on the command line (`datagen --seed`, `grade`/`batch`/`slurm --random-seed`): a whole
// number from 0 to 2^64-1, all of the text. Read into a std::uint64_t as it is, "-1" would be
// 2^64-1 without a word; this check runs on the text first.
#pragma once

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <string>

namespace convlab::grader {

/// The check of a seed option: "" when `text` is a whole number in 0..2^64-1, else why not.
inline std::string seed_problem(const std::string& text) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return fmt::format("'{}' is not a whole number from 0 to 18446744073709551615", text);
  }
  return "";
}

/// seed_problem as a CLI11 validator: `->check(seed_number())`.
inline CLI::Validator seed_number() {
  return CLI::Validator([](std::string& text) { return seed_problem(text); }, "SEED", "seed");
}

}  // namespace convlab::grader
