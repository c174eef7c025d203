#include "engine/judge.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "convlab/npy.hpp"
#include "engine/reasons.hpp"

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
    got = read_npy_f32(output);
  } catch (const std::exception& ex) {
    j.reasons = {reason::kNoOutput};
    j.message = fmt::format("unreadable output: {}", ex.what());
    return j;
  }
  const CompareResult cmp = compare_outputs(got, e.expected, e.abs_sum, e.terms, tol);
  j.pass = cmp.ok();
  j.message = cmp.summary();
  j.details = cmp.details();
  if (!cmp.shape_error.empty()) add_reason(j.reasons, reason::kWrongShape);
  if (cmp.unwritten > 0) add_reason(j.reasons, reason::kUnwritten);
  if (cmp.not_finite > 0) add_reason(j.reasons, reason::kNotFinite);
  if (cmp.bad > cmp.unwritten + cmp.not_finite) add_reason(j.reasons, reason::kOutOfTolerance);
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
    return write_error_map(dir, run, read_npy_f32(output), e.expected, e.abs_sum, e.terms, tol, guard_offsets);
  } catch (const std::exception& ex) {
    why = ex.what();
    return std::nullopt;
  }
}

std::vector<std::string> reasons_in_message(const std::string& message) {
  std::vector<std::string> tags;
  auto has = [&](const char* s) { return message.find(s) != std::string::npos; };
  if (has("not implemented")) add_reason(tags, reason::kNotImplemented);
  if (has("out-of-bounds write")) add_reason(tags, reason::kOutOfBoundsWrite);
  if (has("wrote into its input")) add_reason(tags, reason::kWroteInput);
  if (has("cudaErrorIllegalAddress") || has("illegal memory access")) add_reason(tags, reason::kIllegalAddress);
  if (has("CUDA error") && !has("cudaErrorIllegalAddress")) add_reason(tags, reason::kCudaError);
  return tags;
}

bool unsupported_device(const std::string& message) {
  for (const char* s : {"cudaErrorNoKernelImageForDevice", "cudaErrorUnsupportedPtxVersion", "cudaErrorInsufficientDriver",
                        "cudaErrorInvalidKernelImage", "cudaErrorUnsupportedDevSideSync"}) {
    if (message.find(s) != std::string::npos) return true;
  }
  return false;
}

}  // namespace convlab::grader
