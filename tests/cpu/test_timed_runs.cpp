// Speed points that a submission cannot fake: fresh inputs per timed call, the grader's
// witness dialog and clock, the checks that decide which time is scored, and the whole path
// with a fake runner that cheats the ways real submissions did.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "convlab/fresh_inputs.hpp"
#include "convlab/npy.hpp"
#include "convlab/reference.hpp"
#include "convlab/witness_protocol.hpp"
#include "grade/lab_grader.hpp"
#include "grader_test_support.hpp"
#include "performance/time_checks.hpp"
#include "performance/timed_outputs.hpp"
#include "run/reasons.hpp"
#include "run/witness_dialog.hpp"
#include "system/subprocess.hpp"

using namespace convlab;
using namespace convlab::grader;
using namespace convlab::grader::testing;
namespace fs = std::filesystem;

namespace {

bool has(const std::vector<std::string>& tags, const std::string& tag) {
  return std::find(tags.begin(), tags.end(), tag) != tags.end();
}

bool flagged(const VariantTiming& v, const std::string& tag) {
  return std::any_of(v.flags.begin(), v.flags.end(), [&](const TimeFlag& f) { return f.reason == tag; });
}

std::string witness_line(const std::string& rest) { return std::string(witness::kPrefix) + rest; }

}  // namespace

TEST_CASE("fresh inputs: every value is an exact float from -1 up to 1, the same for the same numbers", "[timing]") {
  std::set<float> seen;
  for (std::uint64_t i = 0; i < 4096; ++i) {
    const float v = fresh::value(7, 1, fresh::kInput, i);
    CHECK(v >= -1.0f);
    CHECK(v < 1.0f);
    CHECK(v * 8388608.0f == std::floor(v * 8388608.0f));  // a multiple of 2^-23
    CHECK(v == fresh::value(7, 1, fresh::kInput, i));
    seen.insert(v);
  }
  CHECK(seen.size() > 4000);  // not a constant, not a short cycle
  CHECK(fresh::value(7, 1, fresh::kInput, 5) != fresh::value(8, 1, fresh::kInput, 5));  // the seed matters
  CHECK(fresh::value(7, 1, fresh::kInput, 5) != fresh::value(7, 2, fresh::kInput, 5));  // so does the input
  CHECK(fresh::value(7, 1, fresh::kInput, 5) != fresh::value(7, 1, fresh::kMask, 5));   // and the tensor
}

TEST_CASE("fresh inputs: no two consecutive calls read the same input, and the seed shuffles them", "[timing]") {
  for (std::uint64_t seed : {0ull, 1ull, 12345678901234ull}) {
    const std::vector<int> order = fresh::call_order(seed, 103);
    REQUIRE(order.size() == 103);
    std::set<int> used(order.begin(), order.end());
    CHECK(used.size() == static_cast<std::size_t>(fresh::kDistinctInputs));
    for (std::size_t i = 1; i < order.size(); ++i) CHECK(order[i] != order[i - 1]);
  }
  CHECK(fresh::call_order(1, 40) != fresh::call_order(2, 40));
}

TEST_CASE("fresh inputs: sample positions lie in the output and change with the nonce and the call", "[timing]") {
  std::set<std::uint64_t> positions;
  for (int s = 0; s < 1000; ++s) {
    const std::uint64_t p = fresh::sample_position(99, 3, s, 777);
    CHECK(p < 777);
    positions.insert(p);
  }
  CHECK(positions.size() > 500);
  CHECK(fresh::sample_position(99, 3, 0, 1u << 30) != fresh::sample_position(100, 3, 0, 1u << 30));
  CHECK(fresh::sample_position(99, 3, 0, 1u << 30) != fresh::sample_position(99, 4, 0, 1u << 30));
}

TEST_CASE("time checks: an honest phase is scored at its event time, unflagged", "[timing]") {
  const PhaseEvidence ref{1.00, 1.02, 100, 150.0};
  const PhaseEvidence sub{2.00, 2.02, 100, 251.0};
  const TimeVerdict v = check_time(sub, ref, 0.5);
  CHECK(v.flags.empty());
  REQUIRE(v.time_ms);
  CHECK(*v.time_ms == Approx(2.00));
}

TEST_CASE("time checks: work the events did not see is scored by the wall clock", "[timing]") {
  const PhaseEvidence ref{1.00, 1.02, 100, 150.0};
  SECTION("hidden work of more than half the event time is flagged") {
    const PhaseEvidence sub{0.10, 1.02, 100, 150.0};  // events saw a tenth
    const TimeVerdict v = check_time(sub, ref, 0);
    REQUIRE(v.flags.size() == 1);
    CHECK(v.flags[0].reason == reason::kWorkOffStream);
    CHECK(*v.time_ms == Approx(1.00));  // wall less the reference's overhead
  }
  SECTION("a gap no larger than the reference's own overhead is not") {
    const PhaseEvidence sub{0.10, 0.12, 100, 60.0};
    CHECK(check_time(sub, ref, 0).flags.empty());
  }
  SECTION("the edge: 0.05 ms of unexplained gap on a short kernel is allowed, a little more is not") {
    // Windows as the grader's clock would see them: the reference's, plus the wall time's difference.
    const auto phase = [&](double event, double wall) {
      return PhaseEvidence{event, wall, 100, ref.window_ms + 100 * (wall - ref.wall_ms)};
    };
    CHECK(check_time(phase(0.06, 0.06 + 0.02 + 0.049), ref, 0).flags.empty());
    CHECK(check_time(phase(0.06, 0.06 + 0.02 + 0.051), ref, 0).flags.size() == 1);
  }
}

TEST_CASE("time checks: a time far below the grader's clock is replaced by the clock's estimate", "[timing]") {
  const PhaseEvidence ref{1.00, 1.02, 100, 150.0};
  SECTION("20 ms a call hidden: flagged, scored at about 21 ms") {
    const PhaseEvidence sub{1.00, 1.02, 100, 150.0 + 100 * 20.0};
    const TimeVerdict v = check_time(sub, ref, 0);
    REQUIRE(v.flags.size() == 1);
    CHECK(v.flags[0].reason == reason::kBelowGraderClock);
    CHECK(*v.time_ms == Approx(21.0));
  }
  SECTION("a gap under the clock's resolution over the phase is not flagged") {
    // estimate 1.19 ms, reported 0.5: below half, but (1.19 - 0.5) · 28 = 19.3 ms < 20 ms.
    const PhaseEvidence sub{0.5, 0.52, 28, 28 * (1.5 + 0.19)};
    CHECK(check_time(sub, ref, 0).flags.empty());
  }
  SECTION("a time within half of the estimate is the submission's") {
    const PhaseEvidence sub{1.2, 1.22, 100, 150.0 + 100 * 1.0};  // estimate 2.0
    CHECK(check_time(sub, ref, 0).flags.empty());
  }
}

TEST_CASE("time checks: a time under half the roofline's earns nothing", "[timing]") {
  const PhaseEvidence ref{1.00, 1.02, 100, 150.0};
  // Honest windows: the grader's clock agrees with the reported time.
  const TimeVerdict fast = check_time({0.49, 0.51, 100, 150.0 - 100 * 0.51}, ref, 1.0);
  CHECK_FALSE(fast.time_ms);
  REQUIRE(fast.flags.size() == 1);
  CHECK(fast.flags[0].reason == reason::kFasterThanGpu);
  CHECK(check_time({0.51, 0.53, 100, 150.0 - 100 * 0.49}, ref, 1.0).time_ms);  // just above half: physics allows it
  // A claim under the roofline earns nothing even when the grader's clock says the work took
  // longer: the claim itself is impossible.
  const TimeVerdict claim = check_time({1e-7, 1e-7, 100, 150.0}, ref, 1.0);
  CHECK_FALSE(claim.time_ms);
  CHECK(claim.flags.back().reason == reason::kFasterThanGpu);
}

TEST_CASE("witness dialog: ready, computed and done in order get a seed, a nonce and a window", "[timing]") {
  WitnessDialog d(42);
  CHECK(d.on_line("a lab's own output line") == "");
  const std::string go = d.on_line(witness_line("ready conv2d/perf v1"));
  REQUIRE(go.rfind("go ", 0) == 0);
  const std::string sample = d.on_line(witness_line("computed 100"));
  REQUIRE(sample.rfind("sample ", 0) == 0);
  CHECK(d.on_line(witness_line("done")) == "");
  REQUIRE(d.phases().size() == 1);
  const WitnessPhase& p = d.phases()[0];
  CHECK(p.complete);
  CHECK(p.calls == 100);
  CHECK(go == fmt::format("go {}\n", p.seed));
  CHECK(sample == fmt::format("sample {}\n", p.nonce));
  CHECK(p.window_ms >= 0);
  CHECK(find_phase(d.phases(), "conv2d/perf", "v1") == &p);
  // The next phase gets other numbers: the child cannot predict them from the last. (A copy:
  // the next phase may move the phases, and `p` with them.)
  const auto first_seed = p.seed;
  d.on_line(witness_line("ready conv2d/perf v2"));
  CHECK(d.phases()[1].seed != first_seed);
}

TEST_CASE("witness dialog: a line out of order breaks the phase, and a forged early done is caught by the real one",
          "[timing]") {
  SECTION("done twice") {
    WitnessDialog d(1);
    d.on_line(witness_line("ready c v"));
    d.on_line(witness_line("computed 10"));
    d.on_line(witness_line("done"));  // forged by the lab, early
    CHECK(d.phases()[0].complete);
    d.on_line(witness_line("done"));  // the runner's own
    CHECK_FALSE(d.phases()[0].complete);
    CHECK_THAT(d.phases()[0].broken, Catch::Contains("done"));
  }
  SECTION("computed before go was answered... or with no calls") {
    WitnessDialog d(1);
    CHECK(d.on_line(witness_line("computed 10")) == "");  // no phase: nothing to answer
    d.on_line(witness_line("ready c v"));
    CHECK(d.on_line(witness_line("computed 0")) == "");
    CHECK_FALSE(d.phases()[0].complete);
  }
  SECTION("an unknown witness line") {
    WitnessDialog d(1);
    d.on_line(witness_line("ready c v"));
    d.on_line(witness_line("trust me"));
    d.on_line(witness_line("computed 10"));
    d.on_line(witness_line("done"));
    CHECK_FALSE(d.phases()[0].complete);
  }
}

TEST_CASE("run_process: a dialog's answers reach the child's stdin as its lines arrive", "[timing]") {
  const LineDialog dialog = [](std::string_view line) -> std::string {
    return line == "question" ? "answer 42\n" : "";
  };
  const ProcessResult p =
      run_process({"/bin/sh", "-c", "echo question; read word number; echo \"got $word $number\""}, std::chrono::seconds(10),
                  "", dialog);
  CHECK(p.exit_code == 0);
  CHECK_THAT(p.output, Catch::Contains("got answer 42"));
  // Without a dialog, stdin is empty: read sees the end at once.
  const ProcessResult q = run_process({"/bin/sh", "-c", "read x || echo eof"}, std::chrono::seconds(10));
  CHECK_THAT(q.output, Catch::Contains("eof"));
}

TEST_CASE("timed outputs: the grader recomputes the samples of every call and judges them", "[timing]") {
  TempDir tmp("timed-outputs");
  CaseInfo info;
  info.problem = Problem::conv2d;
  info.name = "perf";
  info.conv2d = {33, 47, 5};
  TimedOutputsSpec spec{info, 11, 22, 3, 6, Tolerance::fp32()};
  // The outputs a correct kernel would give, from the inputs the seed names.
  const std::vector<int> order = fresh::call_order(spec.seed, spec.warmup + spec.calls);
  Tensor<float> samples({6, static_cast<std::size_t>(fresh::kSamplesPerCall)});
  std::vector<float> image(33 * 47), mask(25);
  for (int call = 0; call < 6; ++call) {
    fresh::fill_host(spec.seed, order[spec.warmup + call], fresh::kInput, image.data(), image.size());
    fresh::fill_host(spec.seed, order[spec.warmup + call], fresh::kMask, mask.data(), mask.size());
    for (int s = 0; s < fresh::kSamplesPerCall; ++s) {
      const std::size_t at = fresh::sample_position(spec.nonce, call, s, image.size());
      samples.data()[call * fresh::kSamplesPerCall + s] = static_cast<float>(
          conv2d_reference_at(image.data(), 33, 47, mask.data(), 5, static_cast<int>(at / 47), static_cast<int>(at % 47)).value);
    }
  }
  const fs::path file = tmp.path() / "samples.npy";
  write_npy(file, samples);
  CHECK(judge_timed_outputs(file, spec).pass);

  SECTION("one call's output left from the call before fails, naming the call") {
    std::copy_n(samples.data() + 3 * fresh::kSamplesPerCall, fresh::kSamplesPerCall, samples.data() + 4 * fresh::kSamplesPerCall);
    write_npy(file, samples);
    const Judgement j = judge_timed_outputs(file, spec);
    CHECK_FALSE(j.pass);
    CHECK(has(j.reasons, reason::kWrongOnTimedCall));
    CHECK_THAT(j.message, Catch::Contains("timed call 5 of 6"));
  }
  SECTION("another nonce names other positions: the same values fail") {
    spec.nonce = 23;
    CHECK_FALSE(judge_timed_outputs(file, spec).pass);
  }
  SECTION("fewer calls than the dialog said, or no file, prove nothing") {
    spec.calls = 7;
    CHECK(has(judge_timed_outputs(file, spec).reasons, reason::kWrongShape));
    CHECK(has(judge_timed_outputs(tmp.path() / "none.npy", spec).reasons, reason::kNoOutput));
  }
}

TEST_CASE("timed runs: an honest lab's time is witnessed and scored, unflagged", "[timing][grader]") {
  TempDir tmp("timed-honest");
  const LabResult l = grade_fake_lab(tmp, "--fake-time-ms 1").lab;
  INFO(l.headline());
  REQUIRE(l.performance.variants.size() == 1);
  const VariantTiming& v = l.performance.variants[0];
  CHECK(v.flags.empty());
  CHECK(v.fraction == Approx(1.0));
  CHECK(l.points() == Approx(l.max_points()));
}

TEST_CASE("timed runs: skipping the work of repeated calls costs the speed points, not correctness", "[timing][grader]") {
  TempDir tmp("timed-reuse");
  const LabResult l = grade_fake_lab(tmp, "--fake reuse-output --fake-time-ms 0.05").lab;
  REQUIRE(l.performance.variants.size() == 1);
  const VariantTiming& v = l.performance.variants[0];
  CHECK(flagged(v, reason::kWrongOnTimedCall));
  CHECK(l.performance_points == 0);
  CHECK(l.correctness_points == Approx(l.correctness_max));
  CHECK(has(l.reasons, reason::kWrongOnTimedCall));
}

TEST_CASE("timed runs: a time reported below the grader's clock is replaced by the clock's", "[timing][grader]") {
  TempDir tmp("timed-reports-less");
  // Works 1 ms a call for the grader's clock, reports 0.05 ms; the reference takes 1 ms.
  const LabResult l = grade_fake_lab(tmp, "--fake reports-less --fake-time-ms 1").lab;
  REQUIRE(l.performance.variants.size() == 1);
  const VariantTiming& v = l.performance.variants[0];
  INFO(l.headline());
  CHECK(flagged(v, reason::kBelowGraderClock));
  REQUIRE(v.time_ms);
  CHECK(*v.time_ms > 0.5);  // about the 1 ms it took, not the 0.05 it claimed
}

TEST_CASE("timed runs: an honest lab timed while the machine is busy keeps its points: its window is compared with "
          "the reference's timed again in the same turn",
          "[timing][grader]") {
  TempDir tmp("timed-busy");
  // The reference is timed first on a quiet machine, then the machine gets busy: every window
  // from then on, the lab's and the reference's, is 5 times its calls' time. 1 ms a call: a
  // phase of 100 ms of work, so that the two busy windows' own jitter (21 ms was seen on a
  // loaded 2-core CI machine) stays under what check 2 flags for an honest lab, max(20 ms, the
  // phase's work) — the limit grader/README.md states for labs under 0.2 ms a call.
  const std::string reference = "--fake busy --fake-time-ms 1 --fake-target " + (tmp.path() / "quiet-once").string();
  const LabResult l = grade_fake_lab(tmp, "--fake busy --fake-time-ms 1", test_settings(), reference).lab;
  INFO(l.headline());
  REQUIRE(l.performance.variants.size() == 1);
  const VariantTiming& v = l.performance.variants[0];
  CHECK(v.flags.empty());
  REQUIRE(v.time_ms);
  CHECK(*v.time_ms == Approx(1.0).margin(0.001));  // its own time, not the busy window's
  CHECK(l.points() == Approx(l.max_points()));
  CHECK(fs::exists(tmp.path() / "quiet-once"));  // the reference's first run was the quiet one
}

TEST_CASE("timed runs: work hidden from the events is scored by the wall clock", "[timing][grader]") {
  TempDir tmp("timed-off-stream");
  const LabResult l = grade_fake_lab(tmp, "--fake off-stream --fake-time-ms 1").lab;
  const VariantTiming& v = l.performance.variants.at(0);
  CHECK(flagged(v, reason::kWorkOffStream));
  CHECK(*v.time_ms == Approx(1.0).margin(0.01));
  CHECK(v.fraction == Approx(1.0));  // as fast as the reference, once the whole work is counted
}

TEST_CASE("timed runs: a lab that ignores the dialog, or beats physics, earns no speed points", "[timing][grader]") {
  TempDir tmp("timed-unverified");
  SECTION("no witness") {
    const LabResult l = grade_fake_lab(tmp, "--fake no-witness").lab;
    CHECK(flagged(l.performance.variants.at(0), reason::kUnverifiedTime));
    CHECK(l.performance_points == 0);
    CHECK(l.correctness_points == Approx(l.correctness_max));
  }
  SECTION("impossible") {
    const LabResult l = grade_fake_lab(tmp, "--fake impossible").lab;
    CHECK(flagged(l.performance.variants.at(0), reason::kFasterThanGpu));
    CHECK(l.performance_points == 0);
  }
}

TEST_CASE("timed runs: the samples of the timed calls are judged by finish_lab after the turn alone and not in it",
          "[timing][grader]") {
  // Recomputing them is host work (a core-second per conv-layer variant): the turn alone holds
  // the GPU from every other student of the host, so time_lab leaves them pending.
  TempDir tmp("timed-judged-after");
  const fs::path reference = fake_lab(tmp.path() / "bin", "reference", "--fake-time-ms 1");
  const fs::path lab = fake_lab(tmp.path() / "bin", "lab", "--fake reuse-output --fake-time-ms 0.05");
  auto env = make_env(small_case_set(tmp.path() / "cases"), tmp.path() / "work", reference);
  CheckedLab checked = check_lab(lab01(), executable(lab), *env);
  REQUIRE(checked.timing_due);
  time_lab(checked, *env);
  REQUIRE(checked.timed);
  REQUIRE(checked.timed->first.variants.size() == 1);
  const TimedVariant& timed = checked.timed->first.variants.begin()->second;
  REQUIRE(timed.pending);
  const fs::path samples = timed.pending->file;
  CHECK(fs::exists(samples));              // kept past the runner's output folder
  CHECK(timed.timed_outputs.message.empty());  // not judged yet
  CHECK(checked.result.performance.variants.empty());  // nor scored

  const LabResult l = finish_lab(std::move(checked), *env);
  REQUIRE(l.performance.variants.size() == 1);
  CHECK(flagged(l.performance.variants[0], reason::kWrongOnTimedCall));  // the reused output, caught after the turn
  CHECK(l.performance_points == 0);
  CHECK(l.correctness_points == Approx(l.correctness_max));
  CHECK_FALSE(fs::exists(samples));  // judged, then removed with the run's folder
}
