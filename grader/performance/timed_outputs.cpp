#include "performance/timed_outputs.hpp"

#include <fmt/format.h>

#include <array>

#include "convlab/fresh_inputs.hpp"
#include "convlab/npy.hpp"
#include "convlab/parallel_rows.hpp"
#include "convlab/reference.hpp"
#include "run/reasons.hpp"

namespace convlab::grader {
namespace fs = std::filesystem;

namespace {

// The inputs of a phase: [distinct input][tensor], as the runner staged them on the device.
using PhaseInputs = std::array<std::array<std::vector<float>, 2>, fresh::kDistinctInputs>;

PhaseInputs phase_inputs(const TimedOutputsSpec& spec, std::size_t input_elements, std::size_t mask_elements) {
  PhaseInputs in;
  for (int d = 0; d < fresh::kDistinctInputs; ++d) {
    const std::array<std::size_t, 2> counts = {input_elements, mask_elements};
    for (std::size_t t = 0; t < 2; ++t) {
      in[d][t].resize(counts[t]);
      fresh::fill_host(spec.seed, d, static_cast<fresh::Tensor>(t), in[d][t].data(), counts[t]);
    }
  }
  return in;
}

}  // namespace

Judgement judge_timed_outputs(const fs::path& samples, const TimedOutputsSpec& spec) {
  Judgement j;
  Tensor<float> got;
  try {
    got = read_npy_f32(samples);
  } catch (const std::exception& e) {
    j.reasons = {reason::kNoOutput};
    j.message = fmt::format("the samples of the timed calls are missing or unreadable: {}", e.what());
    return j;
  }
  if (got.rank() != 2 || got.dim(0) != static_cast<std::size_t>(spec.calls) ||
      got.dim(1) != static_cast<std::size_t>(fresh::kSamplesPerCall)) {
    j.reasons = {reason::kWrongShape};
    j.message = fmt::format("the samples of the timed calls have shape {}, not [{}][{}]", shape_string(got.shape()),
                            spec.calls, fresh::kSamplesPerCall);
    return j;
  }
  const bool layer = spec.info.problem == Problem::conv_layer;
  const ConvLayerShape& ls = spec.info.layer;
  const Conv2dShape& cs = spec.info.conv2d;
  const std::size_t elements = layer ? ls.output_elements() : cs.pixels();
  const std::size_t terms = layer ? ls.terms_per_output() : cs.terms_per_output();
  const PhaseInputs in = layer ? phase_inputs(spec, ls.input_elements(), ls.weight_elements())
                               : phase_inputs(spec, cs.pixels(), cs.terms_per_output());
  const std::vector<int> order = fresh::call_order(spec.seed, spec.warmup + spec.calls);

  // counts[call][class]: every call judged on its own thread (about a second of work for a
  // conv layer's 100 calls on one core).
  std::vector<std::array<std::size_t, 4>> counts(static_cast<std::size_t>(spec.calls));
  parallel_rows(spec.calls, [&](int call) {
    const auto& input = in[static_cast<std::size_t>(order[static_cast<std::size_t>(spec.warmup + call)])];
    std::array<std::size_t, 4>& c = counts[static_cast<std::size_t>(call)];
    for (int s = 0; s < fresh::kSamplesPerCall; ++s) {
      const std::size_t at = fresh::sample_position(spec.nonce, call, s, elements);
      const Conv2dOutput ref =
          layer ? conv_layer_reference_at(input[0].data(), input[1].data(), ls, at)
                : conv2d_reference_at(input[0].data(), cs.height, cs.width, input[1].data(), cs.mask_width,
                                      static_cast<int>(at / static_cast<std::size_t>(cs.width)),
                                      static_cast<int>(at % static_cast<std::size_t>(cs.width)));
      const float value = got.data()[static_cast<std::size_t>(call) * fresh::kSamplesPerCall + s];
      ++c[static_cast<std::size_t>(classify_output(value, ref.value, allowed_error(terms, ref.abs_sum, spec.tolerance)))];
    }
  });
  std::size_t bad_calls = 0;
  std::string first;
  for (int call = 0; call < spec.calls; ++call) {
    const std::array<std::size_t, 4>& c = counts[static_cast<std::size_t>(call)];
    const std::size_t wrong = fresh::kSamplesPerCall - c[static_cast<std::size_t>(OutputClass::correct)];
    if (wrong == 0) continue;
    if (bad_calls++ == 0) {
      first = fmt::format("timed call {} of {}: {} of {} sampled outputs wrong ({} unwritten, {} not finite)", call + 1,
                          spec.calls, wrong, fresh::kSamplesPerCall, c[static_cast<std::size_t>(OutputClass::unwritten)],
                          c[static_cast<std::size_t>(OutputClass::not_finite)]);
    }
  }
  if (bad_calls == 0) {
    j.pass = true;
    j.message = fmt::format("{} sampled outputs of each of {} timed calls within tolerance", fresh::kSamplesPerCall, spec.calls);
    return j;
  }
  j.reasons = {reason::kWrongOnTimedCall};
  j.message = fmt::format("wrong on {} of {} timed calls (fresh inputs each); first: {}", bad_calls, spec.calls, first);
  return j;
}

}  // namespace convlab::grader
