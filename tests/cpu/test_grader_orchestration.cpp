// The grader's orchestration with fake lab runners: every run judged in the grader (the child
// never sees expected outputs), crashes and hangs failing only what they should, restarts,
// and points by the rubric.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>

#include <stb_image.h>

#include "convlab/error_map.hpp"
#include "grader_test_support.hpp"
#include "correctness/judge.hpp"
#include "run/reasons.hpp"
#include "reports/grade_report.hpp"
#include "system/subprocess.hpp"

using namespace convlab;
using namespace convlab::grader;
using namespace convlab::grader::testing;
namespace fs = std::filesystem;

namespace {

bool has(const std::vector<std::string>& tags, const std::string& tag) {
  return std::find(tags.begin(), tags.end(), tag) != tags.end();
}

// One fake lab graded against a correct fake reference on the small case set.
using Graded = GradedFake;
Graded grade_fake(const TempDir& tmp, const std::string& args, GradeSettings settings = test_settings(),
                  const std::string& reference_args = "--fake-time-ms 1") {
  return grade_fake_lab(tmp, args, std::move(settings), reference_args);
}

}  // namespace

TEST_CASE("grader: a correct lab gets every point", "[grader]") {
  TempDir tmp("grade-correct");
  const Graded g = grade_fake(tmp, "--fake-time-ms 1");
  const LabResult& l = g.lab;
  INFO(l.headline());
  CHECK_FALSE(l.could_not_grade);
  CHECK(l.correctness.runs == 3);      // k1, k3, k5; the even mask is skipped
  CHECK(l.correctness.skipped == 1);
  CHECK(l.correctness.passed == 3);
  CHECK(l.reasons.empty());
  REQUIRE(l.performance.variants.size() == 1);
  CHECK(l.performance.variants[0].correct);
  CHECK(l.performance.variants[0].ratio().value() == Approx(1.0));
  CHECK(l.points() == Approx(l.max_points()));
  CHECK(l.max_points() == Approx(g.rubric.points("01").correctness + g.rubric.points("01").performance));
  REQUIRE(l.prediction.has_value());
  CHECK(l.prediction->unavailable.empty());  // lab 01 has a model
  CHECK(l.prediction->exact_reduction > 0);
}

TEST_CASE("grader: wrong values on one case cost that case, by the comparison rule", "[grader]") {
  TempDir tmp("grade-wrong");
  const Graded g = grade_fake(tmp, "--fake wrong --fake-case k3_7x9");
  const LabResult& l = g.lab;
  CHECK(l.correctness.passed == 2);
  CHECK(l.correctness.failed == 1);
  REQUIRE(l.correctness.failures.size() == 1);
  const RunRecord& f = l.correctness.failures[0];
  CHECK(f.case_id == "conv2d/k3_7x9");
  CHECK(has(f.reasons, reason::kOutOfTolerance));
  CHECK_THAT(f.message, Catch::Contains("63 of 63 outputs wrong"));
  CHECK_THAT(f.details, Catch::Contains("expected"));
  CHECK(l.reasons == std::vector<std::string>{reason::kOutOfTolerance});
  CHECK(l.correctness_points == Approx(g.rubric.points("01").correctness * 2 / 3));
  CHECK(l.performance_points == 0);  // no speed points for a wrong lab
  CHECK_THAT(l.performance.note, Catch::Contains("1 of 3 correctness runs failed"));
}

TEST_CASE("grader: unwritten outputs, stubs and guard-band hits are named", "[grader]") {
  TempDir tmp("grade-kinds");
  SECTION("unwritten") {
    const LabResult l = grade_fake(tmp, "--fake unwritten").lab;
    CHECK(l.correctness.passed == 0);
    CHECK(l.reasons == std::vector<std::string>{reason::kUnwritten});
    CHECK(l.points() == 0);
  }
  SECTION("not implemented") {
    const LabResult l = grade_fake(tmp, "--fake not-implemented").lab;
    CHECK(l.reasons == std::vector<std::string>{reason::kNotImplemented});
    CHECK_THAT(l.headline(), Catch::Contains("not implemented"));
  }
  SECTION("a write past the output, values right") {
    const LabResult l = grade_fake(tmp, "--fake guard --fake-case k5_16x16").lab;
    CHECK(l.correctness.passed == 2);
    CHECK(l.reasons == std::vector<std::string>{reason::kOutOfBoundsWrite});
    CHECK_THAT(l.correctness.failures.at(0).message, Catch::Contains("just after it"));
  }
}

TEST_CASE("grader: the runner's reason tags decide, never the words of its message", "[grader]") {
  TempDir tmp("grade-tags");
  SECTION("the tag 'wrote into input' under a message about an out-of-bounds write") {
    const LabResult l = grade_fake(tmp, "--fake tag-not-prose --fake-case k5_16x16").lab;
    CHECK(l.correctness.passed == 2);
    CHECK(l.reasons == std::vector<std::string>{reason::kWroteInput});
  }
  SECTION("a message naming problems with no tag is a runner error, not those problems") {
    const LabResult l = grade_fake(tmp, "--fake prose-not-tag --fake-case k5_16x16").lab;
    CHECK(l.correctness.passed == 2);
    CHECK(l.reasons == std::vector<std::string>{reason::kRunnerError});
    CHECK_THAT(l.correctness.failures.at(0).message, Catch::Contains("wrote into its input"));
  }
}

TEST_CASE("grader: --error-map draws each failing run as lab__variant__case.png except a stub's", "[grader]") {
  TempDir tmp("grade-error-map");
  GradeSettings settings = test_settings();
  settings.error_map_dir = tmp.path() / "maps";
  fs::create_directories(*settings.error_map_dir);
  auto files = [&] {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(*settings.error_map_dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  };
  SECTION("wrong values on one case: one picture, named in the record") {
    const LabResult l = grade_fake(tmp, "--fake wrong --fake-case k3_7x9", settings).lab;
    CHECK(files() == std::vector<std::string>{"lab01__v1__k3_7x9.png"});
    REQUIRE(l.correctness.failures.size() == 1);
    CHECK(l.correctness.failures[0].error_map == (*settings.error_map_dir / "lab01__v1__k3_7x9.png").string());
  }
  SECTION("a write just past the output: the guard strip shows it") {
    grade_fake(tmp, "--fake guard --fake-case k5_16x16", settings);
    REQUIRE(files() == std::vector<std::string>{"lab01__v1__k5_16x16.png"});
    int w = 0, h = 0, n = 0;
    unsigned char* px = stbi_load((*settings.error_map_dir / "lab01__v1__k5_16x16.png").string().c_str(), &w, &h, &n, 3);
    REQUIRE(px != nullptr);
    ErrorMapInput in;  // the same grid, to find the cells' pixels
    in.height = in.width = 16;
    in.classes.assign(256, OutputClass::correct);
    in.guard_hits = {256};
    const ErrorMapLayout lay = error_map_layout(in);
    auto at = [&](int x, int y) {
      const std::size_t i = 3 * (static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x));
      return Rgb{px[i], px[i + 1], px[i + 2]};
    };
    const int gap = std::max(2, lay.cell / 2), half = lay.cell / 2;
    const Rgb just_after = at(lay.origin_x + half, lay.origin_y + 16 * lay.cell + gap + half);
    const Rgb next_one = at(lay.origin_x + lay.cell + half, lay.origin_y + 16 * lay.cell + gap + half);
    const Rgb inside = at(lay.origin_x + 5 * lay.cell + half, lay.origin_y + 5 * lay.cell + half);
    stbi_image_free(px);
    CHECK(just_after == error_map_colour::kGuardHit);
    CHECK(next_one == error_map_colour::kGuardIntact);
    CHECK(inside == error_map_colour::kCorrect);  // the values are right
  }
  SECTION("a stub draws nothing: its map would be all unwritten") {
    grade_fake(tmp, "--fake not-implemented", settings);
    CHECK(files().empty());
  }
}

TEST_CASE("grader: a crash fails its case and a fresh process runs the rest", "[grader]") {
  TempDir tmp("grade-crash");
  const LabResult l = grade_fake(tmp, "--fake crash --fake-case k3_7x9").lab;
  CHECK(l.correctness.restarts == 1);
  CHECK(l.correctness.passed == 2);  // k1 before the crash, k5 after it
  REQUIRE(l.correctness.failures.size() == 1);
  const RunRecord& f = l.correctness.failures[0];
  CHECK(f.case_id == "conv2d/k3_7x9");
  CHECK(has(f.reasons, reason::kCrashed));
  CHECK(has(f.reasons, reason::kIllegalAddress));
  CHECK_THAT(f.message, Catch::Contains("cudaErrorIllegalAddress"));
}

TEST_CASE("grader: a lab that crashes on every case stops after the restart limit", "[grader]") {
  TempDir tmp("grade-crash-all");
  GradeSettings s = test_settings();
  s.max_crash_restarts = 1;
  const LabResult l = grade_fake(tmp, "--fake crash", s).lab;
  CHECK(l.correctness.passed == 0);
  CHECK(l.correctness.restarts == 1);
  CHECK(l.correctness.failures.size() == 3);
  CHECK(l.correctness.failures.back().verdict == RunRecord::Verdict::not_run);
  CHECK_THAT(l.correctness.failures.back().message, Catch::Contains("crashed 2 times"));
}

TEST_CASE("grader: a segfault in the lab is a crash with its signal", "[grader]") {
  TempDir tmp("grade-segv");
  const LabResult l = grade_fake(tmp, "--fake segv --fake-case k5_16x16").lab;
  CHECK(l.correctness.passed == 2);
  CHECK(has(l.reasons, reason::kCrashed));
  CHECK_THAT(l.correctness.failures.at(0).message, Catch::Contains("signal 11"));
}

TEST_CASE("grader: a hang fails as timed out, the lab stops, grading goes on", "[grader]") {
  TempDir tmp("grade-hang");
  const fs::path reference = fake_lab(tmp.path() / "bin", "reference", "");
  auto env = make_env(small_case_set(tmp.path() / "cases"), tmp.path() / "work", reference);
  SECTION("the runner's own alarm") {
    const LabResult hung = grade_lab(lab01(), executable(fake_lab(tmp.path() / "bin", "hang", "--fake hang --fake-case k3_7x9")), *env);
    CHECK(hung.correctness.hung);
    CHECK(hung.correctness.passed == 1);  // k1 ran before
    CHECK(has(hung.reasons, reason::kTimedOut));
    CHECK_THAT(hung.correctness.failures.at(0).message, Catch::Contains("TIMEOUT"));
    CHECK(hung.correctness.failures.at(1).verdict == RunRecord::Verdict::not_run);
    CHECK_THAT(hung.correctness.failures.at(1).message, Catch::Contains("hung on conv2d/k3_7x9"));
  }
  SECTION("a child that ignores its alarm is killed by the grader") {
    const auto start = std::chrono::steady_clock::now();
    const LabResult hung = grade_lab(lab01(), executable(fake_lab(tmp.path() / "bin", "hard", "--fake hang-hard")), *env);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
    CHECK(hung.correctness.hung);
    CHECK(has(hung.reasons, reason::kTimedOut));
    CHECK_THAT(hung.correctness.failures.at(0).message, Catch::Contains("timed out"));
  }
  // The next lab of the same run is graded normally.
  const LabResult next = grade_lab(lab01(), executable(reference), *env);
  CHECK(next.correctness.passed == 3);
}

TEST_CASE("grader: the child never sees the expected output", "[grader]") {
  TempDir tmp("grade-cheat");
  // The cheat copies expected.npy when it is there: run directly on the dataset, it "passes"...
  const CaseSet cases = small_case_set(tmp.path() / "cases");
  const fs::path cheat = fake_lab(tmp.path() / "bin", "cheat", "--fake read-expected");
  const fs::path out = tmp.path() / "direct";
  const ProcessResult direct = run_process({cheat.string(), (tmp.path() / "cases" / "conv2d" / "k3_7x9").string(),
                                            "--output", out.string(), "--no-time"},
                                           std::chrono::seconds(30));
  REQUIRE(direct.exit_code == 0);
  ExpectationCache cache;
  const auto conv2d = cases.of_problem(Problem::conv2d);
  const auto k3 = *std::find_if(conv2d.begin(), conv2d.end(), [](const GradingCase* c) { return c->info.name == "k3_7x9"; });
  CHECK(judge_output(out / "k3_7x9__v1.npy", cache.get(*k3), Tolerance::fp32()).pass);
  // ...but the grader hands it inputs only, so it finds nothing to copy.
  const Graded g = grade_fake(tmp, "--fake read-expected");
  CHECK(g.lab.correctness.passed == 0);
  CHECK(g.lab.reasons == std::vector<std::string>{reason::kUnwritten});
}

TEST_CASE("grader: speed points follow the time ratio to the reference", "[grader]") {
  TempDir tmp("grade-slow");
  const Graded g = grade_fake(tmp, "--fake-time-ms 3", test_settings(), "--fake-time-ms 1");
  const LabResult& l = g.lab;
  CHECK(l.correctness.passed == 3);
  REQUIRE(l.performance.variants.size() == 1);
  const VariantTiming& v = l.performance.variants[0];
  CHECK(v.ratio().value() == Approx(3.0));
  const double expected_fraction = (g.rubric.zero_at_ratio - 3.0) / (g.rubric.zero_at_ratio - g.rubric.full_at_ratio);
  CHECK(v.fraction == Approx(expected_fraction));
  CHECK(l.performance_points == Approx(g.rubric.points("01").performance * expected_fraction));
  CHECK(has(l.reasons, reason::kTooSlow));
  CHECK(l.correctness_points == Approx(l.correctness_max));
}

TEST_CASE("grader: a lab's speed share is the mean over its variants", "[grader]") {
  TempDir tmp("grade-variants");
  // Two variants, both at 10× the reference: no speed points at all.
  const Graded g = grade_fake(tmp, "--fake-variants a,b --fake-time-ms 10", test_settings(),
                              "--fake-variants a,b --fake-time-ms 1");
  CHECK(g.lab.correctness.runs == 6);
  REQUIRE(g.lab.performance.variants.size() == 2);
  CHECK(g.lab.performance_points == 0);
  CHECK(has(g.lab.reasons, reason::kTooSlow));
}

TEST_CASE("grader: no reference solution means the speed cannot be graded", "[grader]") {
  TempDir tmp("grade-noref");
  const fs::path lab = fake_lab(tmp.path() / "bin", "lab", "");
  auto env = make_env(small_case_set(tmp.path() / "cases"), tmp.path() / "work", std::nullopt);
  const LabResult l = grade_lab(lab01(), executable(lab), *env);
  CHECK(l.correctness.passed == 3);  // the variants come from the lab itself
  CHECK(l.could_not_grade);
  CHECK_THAT(l.could_not_grade_reason, Catch::Contains("no reference solution"));
}

TEST_CASE("grader: a lab that did not build gets no points and keeps its message", "[grader]") {
  TempDir tmp("grade-unbuilt");
  auto env = make_env(small_case_set(tmp.path() / "cases"), tmp.path() / "work", std::nullopt);
  LabExecutable e;
  e.build_reasons = {reason::kCompileError};
  e.build_message = "does not compile:\n01-naive/naive.cu(3): error: expected a \";\"";
  const LabResult l = grade_lab(lab01(), e, *env);
  CHECK_FALSE(l.built);
  CHECK_FALSE(l.could_not_grade);
  CHECK(l.points() == 0);
  CHECK(l.reasons == std::vector<std::string>{reason::kCompileError});
  CHECK_THAT(l.headline(), Catch::Contains("naive.cu(3): error"));
}

TEST_CASE("grader: a runner that rejects its arguments is the grader's failure, not the lab's", "[grader]") {
  TempDir tmp("grade-usage");
  const Graded g = grade_fake(tmp, "--fake usage");
  CHECK(g.lab.could_not_grade);
  CHECK_THAT(g.lab.could_not_grade_reason, Catch::Contains("rejected its arguments"));
}

TEST_CASE("grader: grade_submission grades every lab and collects what could not be graded", "[grader]") {
  TempDir tmp("grade-submission");
  const fs::path reference = fake_lab(tmp.path() / "bin", "reference", "");
  auto env = make_env(small_case_set(tmp.path() / "cases"), tmp.path() / "work", reference);
  const LabInfo lab02{"02", "02-constant-mask", {"constant_mask.cu"}};
  LabExecutable missing;
  missing.could_not_grade = "lab02 is not built";
  const SubmissionResult s =
      grade_submission("student", "submission", tmp.path(), {lab01(), lab02}, {executable(reference), missing}, *env);
  REQUIRE(s.labs.size() == 2);
  CHECK(s.labs[0].points() == Approx(s.labs[0].max_points()));
  CHECK(s.score() == Approx(s.labs[0].max_points()));
  CHECK(s.max_score() == Approx(s.labs[0].max_points() + s.labs[1].max_points()));
  REQUIRE(s.could_not_grade.size() == 1);
  CHECK_THAT(s.could_not_grade[0], Catch::Contains("lab02 is not built"));
}

TEST_CASE("grader: a lab right on the small cases but wrong on the timed one earns no speed points", "[grader]") {
  TempDir tmp("grade-perf-wrong");
  const Rubric rubric = test_rubric();
  const std::string perf = fmt::format("perf_{}x{}_k{}", rubric.conv2d_case.height, rubric.conv2d_case.width,
                                       rubric.conv2d_case.mask_width);
  const Graded g = grade_fake(tmp, "--fake wrong --fake-case " + perf);
  CHECK(g.lab.correctness.passed == g.lab.correctness.runs);
  CHECK(g.lab.performance_points == 0);
  CHECK(has(g.lab.reasons, reason::kOutOfTolerance));
  REQUIRE(g.lab.performance.variants.size() == 1);
  CHECK_THAT(g.lab.performance.variants[0].note, Catch::Contains("wrong on the performance case"));
}

namespace {

// A lab with a required variant "core" and a stretch variant "tf32" (the rubric's "stretch"),
// graded against a correct reference with both.
Graded grade_with_stretch(const TempDir& tmp, const std::string& args, bool stretch_in_rubric = true) {
  Rubric rubric = test_rubric();
  if (stretch_in_rubric) rubric.labs["01"].stretch = {"tf32"};
  const fs::path reference = fake_lab(tmp.path() / "bin", "reference", "--fake-variants core,tf32 --fake-time-ms 1");
  const fs::path lab = fake_lab(tmp.path() / "bin", "lab", "--fake-variants core,tf32 --fake-time-ms 1 " + args);
  auto env = make_env(small_case_set(tmp.path() / "cases"), tmp.path() / "work", reference, test_settings(), rubric);
  Graded g;
  g.rubric = rubric;
  g.lab = grade_lab(lab01(), executable(lab), *env);
  return g;
}

}  // namespace

TEST_CASE("grader: a stretch variant left as a stub costs nothing, and one that passes earns a bonus line", "[grader][rubric]") {
  TempDir tmp("grade-stretch");
  SECTION("the stub is left out of the runs and the speed mean, and says so") {
    const Graded g = grade_with_stretch(tmp, "--fake not-implemented --fake-variant tf32");
    const LabResult& l = g.lab;
    INFO(l.headline());
    CHECK(l.correctness.runs == 3);  // core on k1, k3, k5; tf32's three stub runs are not counted
    CHECK(l.correctness.passed == 3);
    CHECK(l.correctness.failures.empty());
    CHECK(l.reasons.empty());
    REQUIRE(l.performance.variants.size() == 1);
    CHECK(l.performance.variants[0].variant == "core");
    CHECK(l.points() == Approx(l.max_points()));
    CHECK(l.bonus.empty());
    REQUIRE(l.notes.size() == 1);
    CHECK_THAT(l.notes[0], Catch::Contains("stretch variant tf32 is not implemented"));
    SubmissionResult s;
    s.name = "labs/";
    s.labs = {l};
    CHECK_THAT(grade_text(s, RunInfo{}), Catch::Contains("note: stretch variant tf32 is not implemented"));
  }
  SECTION("without \"stretch\" in the rubric the same stub costs its runs") {
    const Graded g = grade_with_stretch(tmp, "--fake not-implemented --fake-variant tf32", false);
    CHECK(g.lab.correctness.runs == 6);
    CHECK(g.lab.correctness.passed == 3);
    CHECK(g.lab.correctness_points == Approx(g.lab.correctness_max / 2));
    CHECK(g.lab.performance_points == 0);
  }
  SECTION("a stretch variant that passes earns a bonus line and no more points") {
    const Graded g = grade_with_stretch(tmp, "");
    const LabResult& l = g.lab;
    CHECK(l.correctness.runs == 6);
    CHECK(l.points() == Approx(l.max_points()));
    CHECK(l.max_points() == Approx(g.rubric.points("01").correctness + g.rubric.points("01").performance));
    CHECK(l.bonus == std::vector<std::string>{"bonus: stretch variant tf32 passes all 3 runs"});
    SubmissionResult s;
    s.name = "labs/";
    s.labs = {l};
    CHECK_THAT(grade_text(s, RunInfo{}), Catch::Contains("bonus: stretch variant tf32 passes all 3 runs"));
    CHECK(grade_json(s, RunInfo{})["submission"]["labs"][0]["bonus"][0] == "bonus: stretch variant tf32 passes all 3 runs");
  }
  SECTION("a stretch variant attempted but wrong counts like any other") {
    const Graded g = grade_with_stretch(tmp, "--fake wrong --fake-variant tf32");
    const LabResult& l = g.lab;
    CHECK(l.correctness.runs == 6);
    CHECK(l.correctness.failed == 3);
    CHECK(l.bonus.empty());
    CHECK(has(l.reasons, reason::kOutOfTolerance));
    CHECK(l.points() < l.max_points());
  }
}

TEST_CASE("rubric: \"stretch\" is a list of variant names", "[grader][rubric]") {
  nlohmann::json j = nlohmann::json::parse(R"({"format": "convlab-rubric", "version": 1,
    "labs": {"06": {"correctness": 7, "performance": 3, "stretch": ["tf32_tensor_core"]}},
    "correctness": {}, "performance": {"full_at_ratio": 1.25, "zero_at_ratio": 4,
      "conv2d_case": {"height": 8, "width": 8, "mask_width": 3, "seed": 1},
      "conv_layer_case": {"batch": 1, "channels": 1, "filters": 1, "height": 8, "width": 8, "mask_width": 3, "seed": 2}}})");
  const Rubric r = parse_rubric(j, "test.json");
  CHECK(r.points("06").is_stretch("tf32_tensor_core"));
  CHECK_FALSE(r.points("06").is_stretch("register_tiled"));
  j["labs"]["06"]["stretch"] = "tf32_tensor_core";
  CHECK_THROWS_WITH(parse_rubric(j, "test.json"), Catch::Contains("labs.06.stretch: expected an array"));
  j["labs"]["06"]["stretch"] = {1};
  CHECK_THROWS_WITH(parse_rubric(j, "test.json"), Catch::Contains("labs.06.stretch: expected variant names"));
  // The default rubric: lab 06's TF32 step is a stretch step, nothing else is.
  const Rubric d = load_rubric(default_rubric_path());
  CHECK(d.points("06").stretch == std::vector<std::string>{"tf32_tensor_core"});
  CHECK(d.points("07").stretch.empty());
}
