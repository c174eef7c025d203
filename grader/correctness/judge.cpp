#include "correctness/judge.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "convlab/npy.hpp"
#include "run/reasons.hpp"

namespace convlab::grader {

void add_reason(std::vector<std::string>& tags, const std::string& tag) {
  if (std::find(tags.begin(), tags.end(), tag) == tags.end()) tags.push_back(tag);
}

Judgement judge_output(const std::filesystem::path& output, const Expectation& e, Tolerance tol) {
  Judgement j;
  if (!std::filesystem::exists(output)) {
    j.reasons = {reason::kNoOutput};
    j.message = "the run wrote no output";
    return j;
  }
  Tensor<float> got;
  try {
    // The child's file: one larger than the expected shape can fill is refused by its size,
    // before its header is read or anything allocated.
    got = read_npy_f32(output, npy_file_bytes_limit(e.expected.size(), sizeof(float)));
  } catch (const std::exception& ex) {
    j.reasons = {reason::kNoOutput};
    j.message = fmt::format("unreadable output: {}", ex.what());
    return j;
  }
  const CompareResult cmp = compare_outputs(got, e.expected, e.abs_sum, e.terms, tol);
  j.pass = cmp.ok();
  j.message = cmp.summary();
  j.details = cmp.details();
  j.reasons = reason::of_comparison(cmp);
  return j;
}

std::optional<std::filesystem::path> draw_error_map(const std::filesystem::path& dir, const ErrorMapRun& run,
                                                    const std::filesystem::path& output, const Expectation& e,
                                                    Tolerance tol, const std::vector<std::ptrdiff_t>& guard_offsets,
                                                    std::string& why) {
  try {
    if (!std::filesystem::exists(output)) {
      why = "the run wrote no output";
      return std::nullopt;
    }
    return write_error_map(dir, run, read_npy_f32(output, npy_file_bytes_limit(e.expected.size(), sizeof(float))),
                           e.expected, e.abs_sum, e.terms, tol, guard_offsets);
  } catch (const std::exception& ex) {
    why = ex.what();
    return std::nullopt;
  }
}

bool unsupported_device(const std::string& message) {
  for (const char* s : {"cudaErrorNoKernelImageForDevice", "cudaErrorUnsupportedPtxVersion", "cudaErrorInsufficientDriver",
                        "cudaErrorInvalidKernelImage", "cudaErrorUnsupportedDevSideSync"}) {
    if (message.find(s) != std::string::npos) return true;
  }
  return false;
}

}  // namespace convlab::grader
