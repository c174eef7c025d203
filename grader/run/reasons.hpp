// Why a lab lost points: the tag vocabulary is the harness's (convlab/run_reasons.hpp), shared
// with the lab runner that writes the tags into its JSON report. The grader names it
// grader::reason.
#pragma once

#include "convlab/run_reasons.hpp"

namespace convlab::grader {
namespace reason = ::convlab::reason;
}  // namespace convlab::grader
