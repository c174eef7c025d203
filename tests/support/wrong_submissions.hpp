// The wrong submissions of tests/fixtures/wrong_submissions/, made whole for a test: each
// fixture stores its expect.json and only its fault (a patch on the reference solution, or the
// few files a patch cannot show); scripts/wrong-submissions.sh turns them into submission
// folders. One implementation for the tests and the scripts that grade them.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "system/subprocess.hpp"

namespace convlab::testing {

/// The fixtures: one folder per fault, each with its expect.json.
inline const std::filesystem::path kWrongSubmissionFixtures =
    std::filesystem::path(CONVLAB_SOURCE_DIR) / "tests" / "fixtures" / "wrong_submissions";

/// Makes `dest`/NAME/ for every fixture (or those in `names`), in the layout of labs/, by
/// running scripts/wrong-submissions.sh. @returns its result: exit code 0 when every fault applied.
grader::ProcessResult make_wrong_submissions(const std::filesystem::path& dest,
                                             const std::vector<std::string>& names = {});

}  // namespace convlab::testing
