// The grader's reports: the versioned JSON, Gradescope's results.json schema, the batch CSV,
// the terminal table, and atomic writes.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "convlab/analysis_banded.hpp"
#include "convlab/analysis_tensor_cores.hpp"
#include "convlab/atomic_file.hpp"
#include "reports/batch_report.hpp"
#include "performance/ncu_profile.hpp"
#include "performance/prediction.hpp"
#include "reports/grade_report.hpp"
#include "grader_test_support.hpp"

using namespace convlab::grader;
using convlab::write_file_atomically;
using namespace convlab::grader::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

RunInfo run_info() {
  RunInfo r;
  r.convlab_version = "0.1.0";
  r.device = "a test GPU";
  r.datasets = "test cases";
  r.rubric = "rubric.json";
  r.rubric_name = "test";
  return r;
}

// A submission with one good lab and one with wrong values, graded with fakes.
SubmissionResult graded_submission(const TempDir& tmp) {
  const fs::path reference = fake_lab(tmp.path() / "bin", "reference", "");
  const fs::path wrong = fake_lab(tmp.path() / "bin", "wrong", "--fake wrong --fake-case k3_7x9");
  auto env = make_env(small_case_set(tmp.path() / "cases"), tmp.path() / "work", reference);
  const LabInfo lab02{"02", "02-constant-mask", {"constant_mask.cu"}};
  return grade_submission("student, \"A\"", "submission", tmp.path(), {lab01(), lab02},
                          {executable(reference), executable(wrong)}, *env);
}

}  // namespace

TEST_CASE("reports: the JSON report is versioned and complete", "[grader][reports]") {
  TempDir tmp("report-json");
  const SubmissionResult s = graded_submission(tmp);
  const json j = grade_json(s, run_info());
  CHECK(j.at("format") == "convlab-grade");
  CHECK(j.at("version") == kGradeJsonVersion);
  CHECK(j.at("run").at("device") == "a test GPU");
  const json& sub = j.at("submission");
  CHECK(sub.at("score").get<double>() == Approx(s.score()));
  REQUIRE(sub.at("labs").size() == 2);
  const json& bad = sub.at("labs").at(1);
  CHECK(bad.at("lab") == "lab02");
  CHECK(bad.at("reasons") == json::array({"out of tolerance"}));
  const json& failure = bad.at("correctness").at("failures").at(0);
  CHECK(failure.at("case") == "conv2d/k3_7x9");
  CHECK(failure.at("reasons") == json::array({"out of tolerance"}));
  CHECK(failure.contains("first_mismatches"));
  const json& good = sub.at("labs").at(0);
  CHECK(good.at("performance").at("variants").at(0).at("ratio").get<double>() == Approx(1.0));
  CHECK(good.at("predicted").at("label") == "predicted (analysis)");
  CHECK_FALSE(good.contains("measured"));  // no --profile: no measured column at all
}

TEST_CASE("reports: Gradescope's results.json schema", "[grader][reports]") {
  TempDir tmp("report-gradescope");
  const SubmissionResult s = graded_submission(tmp);
  const json g = gradescope_json(s, run_info());
  REQUIRE(g.at("tests").is_array());
  CHECK(g.at("tests").size() == 4);  // correctness and performance per lab
  double sum = 0;
  for (const json& t : g.at("tests")) {
    INFO(t.dump());
    CHECK(t.at("name").is_string());
    CHECK(t.at("score").is_number());
    CHECK(t.at("max_score").is_number());
    CHECK(t.at("output").is_string());
    const std::string status = t.at("status");
    CHECK((status == "passed" || status == "failed"));
    CHECK((status == "passed") == (t.at("score").get<double>() >= t.at("max_score").get<double>()));
    sum += t.at("score").get<double>();
  }
  CHECK(g.at("score").get<double>() == Approx(sum));
  CHECK(g.at("tests").at(2).at("name") == "lab02 correctness");
  CHECK_THAT(g.at("tests").at(2).at("output").get<std::string>(), Catch::Contains("conv2d/k3_7x9"));
}

TEST_CASE("reports: the batch CSV quotes what needs quoting", "[grader][reports]") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a, b") == "\"a, b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  TempDir tmp("report-csv");
  const SubmissionResult s = graded_submission(tmp);
  const std::string csv = batch_csv({s}, {lab01(), {"02", "02-constant-mask", {}}});
  std::istringstream in(csv);
  std::string header, row, extra;
  std::getline(in, header);
  std::getline(in, row);
  CHECK_FALSE(std::getline(in, extra));
  CHECK_THAT(header, Catch::StartsWith("student,score,max_score,status,lab01_points,"));
  CHECK_THAT(row, Catch::StartsWith("\"student, \"\"A\"\"\","));
  CHECK_THAT(row, Catch::Contains("out of tolerance"));
  const json b = batch_json({s}, run_info());
  CHECK(b.at("format") == "convlab-batch");
  CHECK(b.at("students").at(0).at("status") == "graded");
  CHECK(b.at("summary").at("students") == 1);
}

TEST_CASE("reports: the terminal table names every lab, its points and first problem", "[grader][reports]") {
  TempDir tmp("report-text");
  const SubmissionResult s = graded_submission(tmp);
  const std::string text = grade_text(s, run_info());
  CHECK_THAT(text, Catch::Contains("lab01"));
  CHECK_THAT(text, Catch::Contains("lab02"));
  CHECK_THAT(text, Catch::Contains("out of tolerance"));
  CHECK_THAT(text, Catch::Contains("FAIL conv2d/k3_7x9"));
  CHECK_THAT(text, Catch::Contains("predicted (analysis)"));
  CHECK_THAT(text, Catch::Contains("total"));
}

TEST_CASE("reports: labs 06 and 07 show the model beside each variant's ncu profile, divergence labelled",
          "[grader][reports]") {
  PredictionContext ctx;
  ctx.conv2d = {64, 64, 5};
  ctx.layer = {1, 3, 40, 9, 9, 3, 1, 1, 1};
  LabResult l07;
  l07.lab = LabInfo{"07", "07-register-tiling", {"register_tiling.cu"}};
  l07.prediction = predict_lab("07", ctx);
  l07.prediction->case_id = "conv2d/perf";
  REQUIRE(l07.prediction->unavailable.empty());
  REQUIRE(l07.prediction->variants.size() == 4);  // register_tiled, shfl_filter, constant_filter, shared_input
  const VariantPrediction* tuned = l07.prediction->for_variant("register_tiled");
  REQUIRE(tuned != nullptr);
  ProfileResult prof;
  prof.variant = "register_tiled";
  prof.kernels = {"register_tiled"};
  for (const std::string& m : summed_metrics()) prof.metrics[m] = {0.0, ""};
  prof.metrics[kMetricGlobalLoadBytes] = {tuned->global_load_bytes, ""};
  prof.metrics[kMetricWarpInsts] = {100.0, ""};
  prof.metrics[kMetricThreadInsts] = {1600.0, ""};        // 16 of 32 threads per instruction
  prof.metrics[kMetricThreadInstsPredOn] = {800.0, ""};   // 8 of them predicated on
  prof.threads_per_warp_instruction = {{16.0, ""}};
  l07.profile.push_back(prof);

  LabResult l06;
  l06.lab = LabInfo{"06", "06-im2col", {"unroll_gemm.cu"}};
  ctx.sm_count = 0;
  CHECK_THAT(predict_lab("06", ctx).unavailable, Catch::Contains("SM count"));
  ctx.sm_count = 132;
  l06.prediction = predict_lab("06", ctx);
  REQUIRE(l06.prediction->variants.size() == 3);
  CHECK(l06.prediction->for_variant("register_tiled")->async_copies > 0);
  CHECK(l06.prediction->for_variant("tf32_tensor_core") == nullptr);  // not modelled: no line, no guess

  SubmissionResult s;
  s.name = "solutions/";
  s.kind = "solutions";
  s.labs = {l06, l07};
  const std::string text = grade_text(s, run_info());
  CHECK_THAT(text, Catch::Contains("predicted (analysis) for register_tiled: global loads"));
  CHECK_THAT(text, Catch::Contains("tuned configuration k5_4x6_b64x2_global_shfl_unrolled"));
  CHECK_THAT(text, Catch::Contains("warp execution efficiency 50.0% (predicated-on 25.0%)"));
  CHECK_THAT(text, Catch::Contains("divergence, which to compare: "));
  CHECK_THAT(text, Catch::Contains("replication factor of X_unroll"));
  const json j = submission_json(s);
  CHECK(j["labs"][1]["predicted"]["variants"].size() == 4);
  CHECK(j["labs"][1]["predicted"]["variants"][0]["global_load_bytes"] == tuned->global_load_bytes);
  CHECK(j["labs"][1]["measured"][0]["metrics"]["warp_execution_efficiency"]["value"] == 0.5);
  CHECK(j["labs"][1]["measured"][0]["metrics"]["warp_execution_efficiency_pred_on"]["value"] == 0.25);
  CHECK(j["labs"][0]["predicted"]["variants"][2]["variant"] == "register_tiled");

  // A profile that failed: every view of divergence says why, never a number.
  const ProfileResult failed = unavailable_profile("register_tiled", "ncu exited with 1");
  CHECK_FALSE(warp_execution_efficiency(failed, true).value);
  CHECK_THAT(warp_execution_efficiency(failed, false).unavailable, Catch::Contains("ncu exited with 1"));
}

TEST_CASE("reports: lab 08 shows each step's MMAs from the model beside ncu's tensor-core MMA count, steps 5 to 7's "
          "wgmmas beside the gmma count, loads not modelled",
          "[grader][reports]") {
  PredictionContext ctx;
  ctx.conv2d = {2048, 2048, 13};
  ctx.layer = {4, 32, 64, 64, 64, 3, 1, 1, 1};
  ctx.sm_count = 0;
  CHECK_THAT(predict_lab("08", ctx).unavailable, Catch::Contains("SM count"));
  ctx.sm_count = 132;
  LabResult l08;
  l08.lab = LabInfo{"08", "08-tensor-cores", {"tensor_cores.cu", "banded_conv2d.cu"}};
  l08.prediction = predict_lab("08", ctx);
  REQUIRE(l08.prediction->unavailable.empty());
  CHECK(l08.prediction->case_id.empty());  // two cases: the config names both
  REQUIRE(l08.prediction->variants.size() == 7);
  const convlab::analysis::BandedAnalysis band = convlab::analysis::analyze_lab08_banded(2048, 2048, 13);
  const convlab::analysis::TensorCoreAnalysis layer = convlab::analysis::analyze_lab08(ctx.layer, 132);
  CHECK(l08.prediction->for_variant("tf32")->mmas == layer.step("tf32").mmas);
  CHECK(l08.prediction->for_variant("tf32x3")->mmas == layer.step("tf32x3").mmas);
  CHECK_FALSE(l08.prediction->for_variant("tf32x3")->wgmma);
  const VariantPrediction* wg = l08.prediction->for_variant("tf32x3_wgmma");
  REQUIRE(wg != nullptr);
  CHECK(wg->wgmma);
  CHECK(wg->mmas == layer.step("tf32x3_wgmma").mmas);
  CHECK(wg->mmas == 4 * layer.step("tf32x3_wgmma").instructions);
  const VariantPrediction* mixed = l08.prediction->for_variant("tf32_bf16_wgmma");
  REQUIRE(mixed != nullptr);
  CHECK(mixed->wgmma);
  CHECK(mixed->mmas == layer.step("tf32_bf16_wgmma").mmas);
  const VariantPrediction* seven = l08.prediction->for_variant("tf32_wgmma");
  REQUIRE(seven != nullptr);
  CHECK(seven->wgmma);
  CHECK(seven->mmas == layer.step("tf32_wgmma").mmas);
  CHECK(seven->mmas == 4 * layer.step("tf32_wgmma").instructions);
  CHECK(l08.prediction->for_variant("banded_tf32x3")->mmas == band.mmas);
  CHECK(l08.prediction->for_variant("banded_tf32_bf16")->mmas == band.mixed_mmas);
  CHECK(band.mixed_mmas * 3 == band.row_band_mmas * 2);
  ProfileResult prof;
  prof.variant = "banded_tf32_bf16";
  prof.case_id = "conv2d/perf";
  prof.kernels = {"band_fragments", "banded_conv2d"};
  for (const std::string& m : summed_metrics()) prof.metrics[m] = {0.0, ""};
  prof.metrics[kMetricTensorMmaInsts] = {static_cast<double>(band.mixed_mmas), ""};
  prof.threads_per_warp_instruction = {{32.0, ""}, {32.0, ""}};
  l08.profile.push_back(prof);
  ProfileResult wg_prof = prof;  // step 5 on Hopper: the gmma count asked for beside the others
  wg_prof.variant = "tf32x3_wgmma";
  wg_prof.case_id = "conv_layer/perf";
  wg_prof.kernels = {"wgmma_gemm"};
  wg_prof.metrics[kMetricTensorMmaInsts] = {0.0, ""};
  wg_prof.metrics[kMetricTensorWgmmaInsts] = {static_cast<double>(wg->mmas), ""};
  wg_prof.threads_per_warp_instruction = {{32.0, ""}};
  l08.profile.push_back(wg_prof);
  SubmissionResult s;
  s.name = "solutions/";
  s.kind = "solutions";
  s.labs = {l08};
  const std::string text = grade_text(s, run_info());
  CHECK_THAT(text, Catch::Contains(fmt::format("tensor-core MMA instructions {}", band.mixed_mmas)));
  CHECK_THAT(text, Catch::Contains(fmt::format("predicted (analysis) for banded_tf32_bf16: tensor-core MMA "
                                               "instructions {} (sm__inst_executed_pipe_tensor_op_hmma.sum)",
                                               band.mixed_mmas)));
  CHECK_THAT(text, Catch::Contains("steps 3-4 on 2048x2048 K=13"));
  CHECK_THAT(text, Catch::Contains(fmt::format("predicted (analysis) for tf32x3_wgmma: wgmma instructions {} per warp "
                                               "(sm__inst_executed_pipe_tensor_op_gmma.sum)",
                                               wg->mmas)));
  CHECK_THAT(text, Catch::Contains(fmt::format("wgmma instructions {} (per warp)", wg->mmas)));
  const json j = submission_json(s);
  const json& predicted = j["labs"][0]["predicted"]["variants"];
  const auto entry = [&](const std::string& variant) {
    for (const json& v : predicted) {
      if (v["variant"] == variant) return v;
    }
    FAIL("no prediction for " << variant);
    return json();
  };
  CHECK(entry("banded_tf32_bf16")["mmas"] == band.mixed_mmas);
  CHECK(entry("banded_tf32_bf16")["global_load_bytes"].is_null());  // not modelled: no number
  CHECK(entry("banded_tf32_bf16")["mmas_metric"] == kMetricTensorMmaInsts);
  CHECK(entry("tf32x3_wgmma")["mmas"] == wg->mmas);
  CHECK(entry("tf32x3_wgmma")["mmas_metric"] == kMetricTensorWgmmaInsts);
  CHECK(j["labs"][0]["measured"][0]["metrics"][kMetricTensorMmaInsts]["value"] == static_cast<double>(band.mixed_mmas));
}

TEST_CASE("reports: files are written atomically", "[grader][reports]") {
  TempDir tmp("report-atomic");
  const fs::path file = tmp.path() / "results.json";
  write_file_atomically(file, "first");
  write_file_atomically(file, "second");
  std::ifstream in(file);
  std::string content;
  std::getline(in, content);
  CHECK(content == "second");
  int entries = 0;
  for (const auto& e : fs::directory_iterator(tmp.path())) entries += e.is_regular_file() ? 1 : 0;
  CHECK(entries == 1);  // no temporary left behind
  CHECK_THROWS_WITH(write_file_atomically(tmp.path() / "no" / "such" / "dir.json", "x"), Catch::Contains("no folder"));
}

TEST_CASE("reports: a scratch file (not fsync'ed) is still written whole, replaced atomically, and never through a "
          "planted link",
          "[grader][reports]") {
  TempDir tmp("report-scratch");
  const fs::path file = tmp.path() / "samples.npy";
  write_file_atomically(file, "first", convlab::Durability::scratch);
  write_file_atomically(file, std::string(1 << 20, 'x'), convlab::Durability::scratch);
  CHECK(fs::file_size(file) == (1u << 20));
  int entries = 0;
  for (const auto& e : fs::directory_iterator(tmp.path())) entries += e.is_regular_file() ? 1 : 0;
  CHECK(entries == 1);  // no temporary left behind
  // A link planted where the file goes is replaced, and what it points at is untouched.
  const fs::path target = tmp.path() / "elsewhere";
  { std::ofstream(target) << "keep"; }
  const fs::path planted = tmp.path() / "report.json";
  fs::create_symlink(target, planted);
  write_file_atomically(planted, "{}", convlab::Durability::scratch);
  CHECK_FALSE(fs::is_symlink(planted));
  std::ifstream kept(target);
  std::string text;
  std::getline(kept, text);
  CHECK(text == "keep");
  CHECK_THROWS_WITH(write_file_atomically(tmp.path() / "no" / "dir.json", "x", convlab::Durability::scratch),
                    Catch::Contains("no folder"));
}
