// A lab whose variants solve two problems (lab 08: conv layers in steps 1, 2, 5 and 6, one image
// in steps 3 and 4), graded with fake lab runners that play it: each variant runs on the cases of
// its own problem, is timed on the performance case of its own problem (the lab's own where the
// rubric names one), and a case set or a rubric that leaves one of its problems without a case is
// a could-not-grade that names the problem and the variants. A variant listed for one GPU only
// (step 5: compute capability 9.0) is left out of the lab on any other, and counted on that one.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "convlab/datagen.hpp"
#include "grader_test_support.hpp"
#include "system/exit_codes.hpp"
#include "system/subprocess.hpp"

using namespace convlab;
using namespace convlab::grader;
using namespace convlab::grader::testing;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// Lab 08 played by the fake: "tf32" solves conv layers, "banded" one image with K = 9..17. Its
// reported time, 20 ms a call, is far above what the fake spends in the grader's window per call
// computing its samples (K² taps each, a few ms on a loaded machine): the witness's estimate
// (time_checks.cpp) stays under twice the time, and no run is flagged by the machine's load.
const std::string kTwoProblems =
    "--fake-time-ms 20 --fake-variants tf32,banded --fake-problem conv_layer,conv2d --fake-masks "
    "9,10,11,12,13,14,15,16,17";

LabInfo lab08() { return {"08", "08-tensor-cores", {"banded_conv2d.cu", "tensor_cores.cu"}}; }

// Three images (K = 3, which "banded" does not take, 9 and 10) and two layers.
void write_conv2d_cases(const fs::path& root) {
  for (const Conv2dSpec& s : {Conv2dSpec{"k3_7x9", {7, 9, 3}, 102, ""}, Conv2dSpec{"k9_12x10", {12, 10, 9}, 105, ""},
                              Conv2dSpec{"k10_9x11", {9, 11, 10}, 106, ""}}) {
    write_case(root / "conv2d" / s.name, generate_case(s));
  }
}
void write_layer_cases(const fs::path& root) {
  for (const ConvLayerSpec& s : {ConvLayerSpec{"l_b1_c2_m3_6x6_k3", {1, 2, 3, 6, 6, 3, 1, 1, 1}, 201, ""},
                                 ConvLayerSpec{"l_b2_c1_m2_5x7_k1", {2, 1, 2, 5, 7, 1, 1, 0, 1}, 202, ""}}) {
    write_case(root / "conv_layer" / s.name, generate_case(s));
  }
}

// The test rubric (global conv2d case 20×24, K = 3) with a small layer, and lab 08's own conv2d
// case (20×24, K = 9) when `own_conv2d_case`.
Rubric two_problem_rubric(bool own_conv2d_case) {
  Rubric r = test_rubric();
  r.conv_layer_case = {1, 2, 3, 8, 8, 3, 1, 1, 1};
  r.conv_layer_seed = 7;
  std::optional<PerformanceCase>& own = r.labs.at("08").conv2d_case;
  own.reset();
  if (own_conv2d_case) {
    own = PerformanceCase{};
    own->problem = Problem::conv2d;
    own->conv2d = {20, 24, 9};
    own->seed = 11;
  }
  return r;
}

// Lab 08 played by the fake (and by its reference) on the two layers and, when `with_images`,
// the three images, with or without the rubric's case of its own.
LabResult grade_two_problems(const std::string& name, bool with_images, bool own_conv2d_case) {
  const TempDir tmp(name);
  if (with_images) write_conv2d_cases(tmp.path() / "cases");
  write_layer_cases(tmp.path() / "cases");
  const fs::path reference = fake_lab(tmp.path() / "bin", "reference", kTwoProblems);
  const fs::path lab = fake_lab(tmp.path() / "bin", "lab", kTwoProblems);
  auto env = make_env(load_case_set(tmp.path() / "cases", "test"), tmp.path() / "work", reference, test_settings(),
                      two_problem_rubric(own_conv2d_case));
  return grade_lab(lab08(), executable(lab), *env);
}

const VariantTiming& timing_of(const LabResult& l, const std::string& variant) {
  for (const VariantTiming& v : l.performance.variants) {
    if (v.variant == variant) return v;
  }
  FAIL("no timing of " << variant);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("grader: a lab whose variants solve two problems runs each variant on the cases of its own problem only",
          "[grader][two-problems]") {
  const LabResult l = grade_two_problems("two-problems-runs", true, true);
  INFO(l.headline() << " " << l.could_not_grade_reason);
  CHECK_FALSE(l.could_not_grade);
  const CorrectnessResult& c = l.correctness;
  CHECK(c.by_variant.at("tf32").runs == 2);    // the two layers
  CHECK(c.by_variant.at("banded").runs == 2);  // K = 9 and 10
  CHECK(c.runs == 4);
  CHECK(c.passed == 4);
  // Only "banded" on K = 3 is a skip; another problem's case is no run at all, not a skipped one.
  CHECK(c.skipped == 1);
  CHECK(c.failures.empty());
}

TEST_CASE("grader: each variant of a two-problem lab is timed on the performance case of its own problem, the lab's "
          "own where the rubric names one",
          "[grader][two-problems]") {
  const LabResult l = grade_two_problems("two-problems-timing", true, true);
  INFO(l.headline() << " " << l.could_not_grade_reason << " " << l.performance.note);
  REQUIRE_FALSE(l.could_not_grade);
  const std::string image = "conv2d/perf_20x24_k9", layer = "conv_layer/perf_b1_c2_m3_8x8_k3_s1_p1_d1";
  CHECK(l.performance.case_ids == std::vector<std::string>{image, layer});
  REQUIRE(l.performance.variants.size() == 2);
  for (const auto& [variant, on] : {std::pair<std::string, std::string>{"banded", image}, {"tf32", layer}}) {
    INFO(variant);
    const VariantTiming& t = timing_of(l, variant);
    CHECK(t.case_id == on);
    // Its timed outputs were judged against its own case (a sample judged against the other
    // problem's case fails, and costs the speed points).
    CHECK(t.correct);
    CHECK(t.flags.empty());
    CHECK(t.fraction == 1);
  }
  CHECK(l.points() == Approx(l.max_points()));
  // Lab 08's model needs the GPU's SM count (step 1 and 2's split-K plans), unknown here: it says
  // so, about no case (its steps are on two).
  REQUIRE(l.prediction.has_value());
  CHECK_THAT(l.prediction->unavailable, Catch::Contains("SM count"));
  CHECK(l.prediction->case_id.empty());
}

TEST_CASE("grader: a two-problem lab whose rubric case of one problem suits none of its variants cannot be timed, "
          "and says which case and which variants",
          "[grader][two-problems]") {
  // No case of lab 08's own: the global conv2d case has K = 3, which "banded" does not take.
  const LabResult l = grade_two_problems("two-problems-unsuited", true, false);
  CHECK(l.correctness.passed == 4);
  CHECK(l.could_not_grade);
  CHECK(l.could_not_grade_reason ==
        "no conv2d variant of lab08 (banded) takes the rubric's performance case conv2d/perf_20x24_k3 (a lab may name "
        "its own: labs.08.conv2d_case in the rubric)");
  CHECK(l.performance.variants.empty());
}

TEST_CASE("grader: a case set without a case of one of a lab's problems is a could-not-grade naming the problem and "
          "its variants",
          "[grader][two-problems]") {
  const LabResult l = grade_two_problems("two-problems-missing", false, true);  // no image: "banded" has nothing to run
  CHECK(l.could_not_grade);
  CHECK(l.could_not_grade_reason == "the case set has no conv2d case for lab08: its conv2d variants (banded) need one");
  CHECK(l.correctness.runs == 0);
}

TEST_CASE("grader: a listing that claims a problem its lab does not solve in the registry is refused, naming the "
          "variant",
          "[grader][two-problems][hostile]") {
  TempDir tmp("two-problems-claims");
  write_layer_cases(tmp.path() / "cases");
  const fs::path lister = fake_lab(tmp.path() / "bin", "lister", kTwoProblems);
  auto env = make_env(load_case_set(tmp.path() / "cases", "test"), tmp.path() / "work", lister);
  std::string why;
  // Lab 08 solves both problems: listed as it is.
  const LabVariants* ok = env->variants(lab08(), std::nullopt, &why);
  REQUIRE(ok != nullptr);
  CHECK(ok->problems() == std::vector<Problem>{Problem::conv_layer, Problem::conv2d});
  // Lab 06 solves conv layers only: "banded" cannot have it graded on images.
  const LabVariants* refused = env->variants({"06", "06-im2col", {"unroll_gemm.cu"}}, std::nullopt, &why);
  CHECK(refused == nullptr);
  CHECK(why == "lister --list: variant banded claims to solve conv2d, which no variant of lab 06 solves in the lab "
               "registry");
}

TEST_CASE("grader: a variant listed for compute capability 9.0 only is left out of the lab on an 8.0 GPU, said in a "
          "note, and counted on a 9.0 one",
          "[grader][two-problems]") {
  // "wg" plays lab 08 step 5 and is wrong everywhere: counted, it fails its runs and costs points.
  const std::string lab_args = kTwoProblems + " --fake-gpu-only wg=9.0 --fake wrong --fake-variant wg";
  const std::string ref_args = kTwoProblems + " --fake-gpu-only wg=9.0";
  auto grade_on = [&](const std::string& name, int compute_capability) {
    const TempDir tmp(name);
    write_conv2d_cases(tmp.path() / "cases");
    write_layer_cases(tmp.path() / "cases");
    std::string args = lab_args, ref = ref_args;
    for (std::string* a : {&args, &ref}) a->replace(a->find("tf32,banded"), 11, "tf32,banded,wg");
    for (std::string* a : {&args, &ref}) a->replace(a->find("conv_layer,conv2d"), 17, "conv_layer,conv2d,conv_layer");
    const fs::path reference = fake_lab(tmp.path() / "bin", "reference", ref);
    const fs::path lab = fake_lab(tmp.path() / "bin", "lab", args);
    GradeSettings settings = test_settings();
    settings.compute_capability = compute_capability;
    settings.device_name = compute_capability == 80 ? "an A100" : "an H200";
    auto env = make_env(load_case_set(tmp.path() / "cases", "test"), tmp.path() / "work", reference, settings,
                        two_problem_rubric(true));
    return grade_lab(lab08(), executable(lab), *env);
  };

  const LabResult a100 = grade_on("gpu-only-a100", 80);
  INFO(a100.headline() << " " << a100.could_not_grade_reason);
  REQUIRE_FALSE(a100.could_not_grade);
  CHECK(a100.correctness.by_variant.count("wg") == 0);
  CHECK(a100.correctness.runs == 4);  // tf32 on the two layers, banded on K = 9 and 10
  CHECK(a100.correctness.passed == 4);
  std::set<std::string> timed;
  for (const VariantTiming& v : a100.performance.variants) timed.insert(v.variant);
  CHECK(timed == std::set<std::string>{"tf32", "banded"});
  CHECK(a100.points() == Approx(a100.max_points()));
  CHECK_THAT(a100.notes, Catch::VectorContains(std::string(
                             "wg runs on GPUs of compute capability 9.0 only; this one (an A100) cannot run it: its runs "
                             "are skipped, not counted, and it is not timed")));

  const LabResult h200 = grade_on("gpu-only-h200", 90);
  INFO(h200.headline());
  CHECK(h200.correctness.by_variant.at("wg").runs == 2);
  CHECK(h200.correctness.by_variant.at("wg").passed == 0);
  CHECK(h200.correctness.runs == 6);
  CHECK(h200.points() < h200.max_points());
  for (const std::string& note : h200.notes) CHECK_THAT(note, !Catch::Contains("cannot run it"));
}

TEST_CASE("grader: a listing's compute_capability must read MAJOR.MINOR", "[grader][two-problems][hostile]") {
  nlohmann::json j = {{"format", "convlab-lab-list"}, {"version", 1}, {"lab", "lab08"}, {"title", "t"}};
  const nlohmann::json fp32 = {{"name", "fp32"}, {"unit_roundoff", 1.0 / 16777216}};
  j["variants"] = {{{"name", "wg"}, {"problem", "conv_layer"}, {"max_mask_width", 17}, {"tolerance", fp32},
                    {"compute_capability", "9.0"}}};
  CHECK(parse_lab_variants(j).variants.at(0).compute_capability == 90);
  for (const nlohmann::json& bad : {nlohmann::json("90"), nlohmann::json(9.0), nlohmann::json("9.0a"), nlohmann::json("x.0")}) {
    INFO(bad.dump());
    j["variants"][0]["compute_capability"] = bad;
    CHECK_THROWS_WITH(parse_lab_variants(j), Catch::Contains("compute_capability: expected \"MAJOR.MINOR\""));
  }
}

TEST_CASE("grader: a listing that names one variant twice, once per problem, is refused (runs and times are kept by "
          "name)",
          "[grader][two-problems][hostile]") {
  nlohmann::json j = {{"format", "convlab-lab-list"}, {"version", 1}, {"lab", "lab08"}, {"title", "t"}};
  const nlohmann::json fp32 = {{"name", "fp32"}, {"unit_roundoff", 1.0 / 16777216}};
  j["variants"] = {{{"name", "a"}, {"problem", "conv2d"}, {"mask_widths", {9}}, {"tolerance", fp32}},
                   {{"name", "b"}, {"problem", "conv_layer"}, {"max_mask_width", 17}, {"tolerance", fp32}}};
  CHECK(parse_lab_variants(j).problems() == std::vector<Problem>{Problem::conv2d, Problem::conv_layer});
  j["variants"][1]["name"] = "a";
  CHECK_THROWS_WITH(parse_lab_variants(j), "two variants are named 'a'");
}

TEST_CASE("grader test mode: grade plays a two-problem lab from CONVLAB_FAKE_REFERENCE_08, and the reports name each "
          "variant's case",
          "[grader][two-problems][cli]") {
  TempDir tmp("two-problems-cli");
  write_conv2d_cases(tmp.path() / "cases");
  write_layer_cases(tmp.path() / "cases");
  write_test_file(tmp.path() / "submission" / "08-tensor-cores" / "fake.args", kTwoProblems + "\n");
  // The default rubric, smaller: lab 08's own conv2d case (2048², K = 13) becomes 20×24, K = 13.
  std::ifstream rubric_file(default_rubric_path());
  nlohmann::json rubric = nlohmann::json::parse(rubric_file);
  rubric["labs"]["08"]["conv2d_case"]["height"] = 20;
  rubric["labs"]["08"]["conv2d_case"]["width"] = 24;
  rubric["performance"]["conv_layer_case"] = {{"batch", 1}, {"channels", 2}, {"filters", 3}, {"height", 8},
                                              {"width", 8},  {"mask_width", 3}, {"seed", 7}};
  write_test_file(tmp.path() / "rubric.json", rubric.dump());
  const fs::path report = tmp.path() / "grade.json";
  const std::vector<std::string> args = {CONVLAB_GRADER_TEST_MODE_EXE, "grade", "--submission",
                                         (tmp.path() / "submission").string(), "--labs", "08", "--datasets",
                                         (tmp.path() / "cases").string(), "--rubric", (tmp.path() / "rubric.json").string(),
                                         "--no-sandbox", "--quiet", "--json", report.string()};
  auto lab_of = [&](const ProcessResult& r) {
    INFO(r.output);
    REQUIRE(r.exit_code == kGraded);
    std::ifstream in(report);
    return nlohmann::json::parse(in).at("submission").at("labs").at(0);
  };
  {
    // Without it, the reference lists one conv2d variant "v1", which the submission does not run.
    const nlohmann::json lab = lab_of(run_process(args, 300s));
    CHECK(lab.at("points").get<double>() < lab.at("max_points").get<double>());
  }
  setenv("CONVLAB_FAKE_REFERENCE_08", kTwoProblems.c_str(), 1);
  const ProcessResult r = run_process(args, 300s);
  unsetenv("CONVLAB_FAKE_REFERENCE_08");
  const nlohmann::json lab = lab_of(r);
  INFO(lab.dump(2));
  CHECK(lab.at("points").get<double>() == Approx(lab.at("max_points").get<double>()));
  const nlohmann::json& perf = lab.at("performance");
  const std::string image = "conv2d/perf_20x24_k13", layer = "conv_layer/perf_b1_c2_m3_8x8_k3_s1_p0_d1";
  CHECK(perf.at("cases") == nlohmann::json::array({image, layer}));
  CHECK(perf.at("case") == image + " and " + layer);
  std::map<std::string, std::string> case_of;
  for (const nlohmann::json& v : perf.at("variants")) case_of[v.at("variant")] = v.at("case");
  CHECK(case_of == std::map<std::string, std::string>{{"banded", image}, {"tf32", layer}});
  CHECK(lab.at("predicted").at("case").is_null());
}
