// The wrong submissions the GPU tests grade (tests/fixtures/wrong_submissions/), made whole
// without a GPU: every fault still applies to the reference solution it is a patch of, so a
// change of a solution that breaks a fixture fails here, on CI, and not only on the GPU
// machine; and each patch shows a fault, not a rewrite of the file.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "wrong_submissions.hpp"

using namespace convlab::testing;
namespace fs = std::filesystem;

namespace {

const fs::path kSolutions = fs::path(CONVLAB_SOURCE_DIR) / "solutions";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::set<std::string> fixture_names() {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(kWrongSubmissionFixtures)) {
    if (e.is_directory()) names.insert(e.path().filename().string());
  }
  return names;
}

// The lab folder of solutions/ whose name starts with `number` ("01" → "01-naive").
std::string solution_folder(const std::string& number) {
  for (const auto& e : fs::directory_iterator(kSolutions)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(number + "-", 0) == 0) return name;
  }
  return "";
}

}  // namespace

TEST_CASE("wrong submissions: every fixture's fault applies to the solution, and each lab it grades is there",
          "[wrong_submissions]") {
  const fs::path dest = fs::temp_directory_path() / "convlab-test-wrong-submissions";
  fs::remove_all(dest);
  const convlab::grader::ProcessResult r = make_wrong_submissions(dest);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::set<std::string> names = fixture_names();
  REQUIRE(names.size() >= 20);
  int patched = 0;
  for (const std::string& name : names) {
    INFO(name);
    const nlohmann::json expect = nlohmann::json::parse(read(kWrongSubmissionFixtures / name / "expect.json"));
    for (const auto& [number, _] : expect.at("labs").items()) {
      const std::string lab = solution_folder(number);
      REQUIRE(!lab.empty());
      CHECK(fs::is_directory(dest / name / lab));
    }
    if (!fs::exists(kWrongSubmissionFixtures / name / "fault.patch")) continue;
    ++patched;
    // The patch changed something: some file of the submission is not the solution's.
    bool differs = false;
    for (const auto& e : fs::recursive_directory_iterator(dest / name)) {
      if (!e.is_regular_file()) continue;
      const fs::path rel = fs::relative(e.path(), dest / name);
      differs = differs || !fs::exists(kSolutions / rel) || read(e.path()) != read(kSolutions / rel);
    }
    CHECK(differs);
  }
  CHECK(patched >= 20);  // the folders that are not patches are the few the README names
  fs::remove_all(dest);
}

TEST_CASE("wrong submissions: a fault is a patch, not a rewrite of the solution", "[wrong_submissions]") {
  for (const std::string& name : fixture_names()) {
    const fs::path patch = kWrongSubmissionFixtures / name / "fault.patch";
    if (!fs::exists(patch)) continue;
    INFO(name);
    std::istringstream lines(read(patch));
    int removed = 0;
    int added = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("---", 0) == 0 || line.rfind("+++", 0) == 0) continue;
      removed += !line.empty() && line[0] == '-';
      added += !line.empty() && line[0] == '+';
    }
    CHECK(added + removed > 0);
    CHECK(removed <= 10);  // the solution's code stays; the fault is what the patch adds or turns
  }
}

TEST_CASE("wrong submissions: a fixture that is not a patch is one of the few the README names",
          "[wrong_submissions]") {
  const std::string readme = read(kWrongSubmissionFixtures / "README.md");
  for (const std::string& name : fixture_names()) {
    if (fs::exists(kWrongSubmissionFixtures / name / "fault.patch")) continue;
    INFO(name);
    CHECK(readme.find("`" + name + "` (stored as files") != std::string::npos);
  }
}

TEST_CASE("wrong submissions: an unknown fixture is refused, naming it", "[wrong_submissions]") {
  const fs::path dest = fs::temp_directory_path() / "convlab-test-wrong-submissions-unknown";
  const convlab::grader::ProcessResult r = make_wrong_submissions(dest, {"no-such-fault"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("no-such-fault: no such fixture"));
  fs::remove_all(dest);
}
