#include "gpu_lab_run.hpp"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <fstream>

#include "test_paths.hpp"

namespace convlab::testing {
namespace fs = std::filesystem;

std::string tail(const std::string& text, std::size_t chars) {
  return text.size() <= chars ? text : "..." + text.substr(text.size() - chars);
}

LabRun run_lab(const std::string& exe, const fs::path& cases, const std::vector<std::string>& extra,
               std::chrono::seconds timeout) {
  // Unique per process and call: CTest may run test processes side by side.
  static std::atomic<int> calls{0};
  const fs::path json = fs::temp_directory_path() / fmt::format("convlab-gpu-{}-{}-{}.json", exe, ::getpid(), calls++);
  fs::remove(json);
  std::vector<std::string> argv{(kBin / exe).string(), cases.string(), "--json", json.string(),
                                "--quiet"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  LabRun r;
  r.process = grader::run_process(argv, timeout);
  INFO(exe << " " << r.process.describe() << ", output:\n" << r.process.output);
  std::ifstream in(json);
  REQUIRE(in);
  r.report = nlohmann::json::parse(in);
  in.close();
  fs::remove(json);
  return r;
}

void expect_all_pass(const LabRun& r, int expected_passes, bool allow_skip) {
  INFO(r.process.output);
  CHECK(r.process.exit_code == 0);
  int pass = 0;
  for (const auto& res : r.report.at("results")) {
    const std::string status = res.at("status");
    INFO(res.dump());
    CHECK((status == "PASS" || (allow_skip && status == "SKIP")));
    pass += status == "PASS";
  }
  CHECK(pass == expected_passes);
}

}  // namespace convlab::testing
