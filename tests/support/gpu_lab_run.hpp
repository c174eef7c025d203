// Running a lab executable from a GPU test, as the grader does: in a child process, with its
// JSON report read back.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "system/subprocess.hpp"

namespace convlab::testing {

/// How a lab executable ran, and the results it reported.
struct LabRun {
  grader::ProcessResult process;
  nlohmann::json report;  ///< its `--json` report ({"format": "convlab-run", ...})
};

/// Runs `build/bin/<exe> <cases> --json FILE --quiet <extra...>` and parses its report
/// (REQUIREs one: a runner that wrote none fails the test, with the runner's output).
LabRun run_lab(const std::string& exe, const std::filesystem::path& cases, const std::vector<std::string>& extra = {},
               std::chrono::seconds timeout = std::chrono::seconds(900));

/// The last `chars` characters of a long output (a grader's, a runner's), for failure messages.
std::string tail(const std::string& text, std::size_t chars = 6000);

/// Checks that the run exited 0 and that every result is PASS (or SKIP, for a mask width the lab
/// does not take, when `allow_skip`), `expected_passes` of them PASS.
void expect_all_pass(const LabRun& r, int expected_passes, bool allow_skip = true);

}  // namespace convlab::testing
