// `grader grade` and `grader batch` from the outside: bad options are usage errors (exit 2)
// found before anything slow, and a machine without a GPU says so (exit 3).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "commands/commands.hpp"
#include "grader_test_support.hpp"
#include "convlab/device_info.hpp"
#include "system/subprocess.hpp"

using namespace convlab::grader;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

ProcessResult grader(std::vector<std::string> args) {
  args.insert(args.begin(), CONVLAB_GRADER_EXE);
  return run_process(args, 60s);
}

}  // namespace

TEST_CASE("grader cli: bad options are usage errors", "[grader][cli]") {
  ProcessResult r = grader({"grade", "--labs", "99"});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output, Catch::Contains("there is no lab 99"));

  r = grader({"grade", "--rubric", "/nonexistent/rubric.json"});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output, Catch::Contains("rubric /nonexistent/rubric.json: cannot open: No such file or directory"));

  r = grader({"grade", "--submission", "/nonexistent/student"});
  CHECK(r.exit_code == kUsageError);

  r = grader({"grade", "--solutions", "--submission", "/tmp"});
  CHECK(r.exit_code == kUsageError);

  r = grader({"grade", "--datasets", "/nonexistent/cases"});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output, Catch::Contains("--datasets /nonexistent/cases: no such folder"));

  r = grader({"grade", "--json", "/nonexistent/dir/report.json"});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output, Catch::Contains("the folder /nonexistent/dir: no such folder"));

  r = grader({"batch", "/nonexistent/class"});
  CHECK(r.exit_code == kUsageError);

  // tune --arch: each of these was once read by stoi into a wrong target or an exception's text.
  for (const char* arch : {"sm_9x", "90a", "-5", "99999", "9", "0090", ""}) {
    INFO("--arch '" << arch << "'");
    r = grader({"tune", "--compile-only", "--arch", arch});
    CHECK(r.exit_code == kUsageError);
    CHECK_THAT(r.output, Catch::Contains("--arch"));
    CHECK_THAT(r.output, !Catch::Contains("stoi"));
  }

  // Numbers once accepted silently, or met with a raw exception.
  r = grader({"analyze", "--lab", "lab03", "--height", "32", "--width", "32", "--mask", "19"});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output, Catch::Contains("--mask 19: lab03 takes mask widths"));
  r = grader({"analyze", "--lab", "lab03", "--height", "32", "--width", "32", "--mask", "17"});
  CHECK(r.exit_code == 0);  // the largest it takes
  const fs::path out = fs::temp_directory_path() / "convlab-cli-datagen";
  fs::remove_all(out);
  r = grader({"datagen", "--problem", "conv_layer", "--masks", "99", "--seed", "1", "--out", out.string()});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output, Catch::Contains("--masks"));
  CHECK_THAT(r.output, Catch::Contains("conv_layer"));
  r = grader({"datagen", "--max-side", "65536", "--seed", "1", "--out", out.string()});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output, Catch::Contains("--max-side"));
  CHECK_THAT(r.output, !Catch::Contains("bad_alloc"));
  CHECK_FALSE(fs::exists(out / "conv_layer"));  // nothing was written by the refused runs
}

TEST_CASE("grader cli: without a GPU, grading says so and exits with 'could not grade'", "[grader][cli]") {
  if (convlab::query_device()) return;  // this machine has a GPU: the GPU tests grade for real
  const ProcessResult r = grader({"grade"});
  CHECK(r.exit_code == kCouldNotGrade);
  CHECK_THAT(r.output, Catch::Contains("cannot grade"));
  CHECK_THAT(r.output, Catch::Contains("Nothing was graded"));
}

TEST_CASE("grader cli: an option the chosen mode would ignore is refused, naming both", "[grader][cli][hostile]") {
  // Each was once accepted and silently ignored, letting a user believe it had been applied.
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"bench", "--plot-only", "/tmp", "--sizes", "1024"}, "--sizes excludes --plot-only"},
      {{"bench", "--plot-only", "/tmp", "--quick"}, "--quick excludes --plot-only"},
      {{"tune", "--plot-only", "/tmp", "--masks", "3"}, "--masks excludes --plot-only"},
      {{"tune", "--arch", "90"}, "--arch requires --compile-only"},
      {{"tune", "--bench", "--warm-cache"}, "--bench excludes --warm-cache"},
      {{"datagen", "--public", "--seed", "3", "--out", "/tmp/x"}, "--public excludes --seed"},
      {{"datagen", "--public", "--no-expected", "--out", "/tmp/x"}, "--public excludes --no-expected"},
      {{"datagen", "--bench-layers", "--count", "3", "--out", "/tmp/x"}, "--count excludes --bench-layers"},
      {{"datagen", "--bench-layers", "--public"}, "--public excludes --bench-layers"},
      {{"datagen", "--seed", "1", "--shape", "8x8", "--max-side", "9", "--out", "/tmp/x"}, "--max-side excludes --shape"},
      {{"docs", "--check", "--force"}, "--check excludes --force"},
      {{"docs", "--stage", "/tmp/x", "--force"}, "--stage excludes --force"},
      {{"analyze", "--strategy", "untiled", "--height", "64", "--width", "64", "--mask", "3", "--sms", "8"},
       "--sms is for --lab lab06"},
      {{"analyze", "--lab", "lab03", "--height", "64", "--width", "64", "--mask", "3", "--sms", "8"},
       "--sms is for --lab lab06"},
      {{"analyze", "--layer", "1,8,8,16,16,3", "--block-index", "1,1"}, "--block-index is for the kernels of labs 01-05"},
      {{"analyze", "--lab", "lab06", "--layer", "1,8,8,16,16,3", "--ceilings", "/tmp/bench.json"},
       "--ceilings is for --lab lab08"},
      {{"analyze", "--lab", "lab07", "--height", "64", "--width", "64", "--mask", "3", "--block-index", "1,0"},
       "--block-index is for the kernels of labs 01-05"},
  };
  for (const auto& [args, message] : cases) {
    const ProcessResult r = grader(args);
    INFO(args.front() << " " << args[1] << ": " << r.output);
    CHECK(r.exit_code == kUsageError);
    CHECK_THAT(r.output, Catch::Contains(message));
  }
}

TEST_CASE("grader cli: analyze --lab lab08 prints both steps' MMAs and error bounds, and with a bench run's ceilings "
          "their time bounds",
          "[grader][cli][lab08]") {
  ProcessResult r = grader({"analyze", "--lab", "lab08", "--layer", "8,128,128,128,128,3,1,1,1"});
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("tf32x3 — 3 TF32 products per product"));
  CHECK_THAT(r.output, Catch::Contains("(FP32-accurate)"));
  CHECK_THAT(r.output, Catch::Contains("--ceilings BENCH_JSON"));

  testing::TempDir dir("convlab-cli-lab08");
  const fs::path bench = dir.path() / "bench.json";
  testing::write_test_file(bench, R"({"ceilings": {"copy_bytes_per_s": 3e12, "fma_flops_per_s": 6e13, "tf32_mma_flops_per_s": 3e14}})");
  r = grader({"analyze", "--lab", "lab08", "--layer", "8,128,128,128,128,3,1,1,1", "--ceilings", bench.string()});
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("TF32 mma.sync 300 TFLOP/s"));
  CHECK_THAT(r.output, Catch::Contains("roofline"));

  // A run from before lab 08 measured no TF32 ceiling: said, not read as zero.
  testing::write_test_file(bench, R"({"ceilings": {"copy_bytes_per_s": 3e12, "fma_flops_per_s": 6e13}})");
  r = grader({"analyze", "--lab", "lab08", "--layer", "8,128,128,128,128,3", "--ceilings", bench.string()});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output, Catch::Contains("lack a positive copy, FMA or TF32 mma.sync rate"));
}

TEST_CASE("grader cli: analyze --lab lab08 on an image prints step 3's layout, MMAs and error bound, and refuses K < 9",
          "[grader][cli][lab08]") {
  ProcessResult r = grader({"analyze", "--lab", "lab08", "--height", "8192", "--width", "8192", "--mask", "17"});
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("2x4 output patches"));
  CHECK_THAT(r.output, Catch::Contains("= 80.3% of the products are the mask's"));  // 289·8/(64·9·5)
  CHECK_THAT(r.output, Catch::Contains("17/24 = 70.8% of each MMA"));              // the row band's, beside it
  CHECK_THAT(r.output, Catch::Contains("70778880 MMAs"));
  CHECK_THAT(r.output, Catch::Contains("the row band's would be 80216064"));
  CHECK_THAT(r.output, Catch::Contains("FP32-accurate"));
  r = grader({"analyze", "--lab", "lab08", "--height", "64", "--width", "64", "--mask", "7"});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output, Catch::Contains("masks of width 9 to 17, not 7"));
  r = grader({"analyze", "--lab", "lab08", "--height", "64", "--width", "64", "--mask", "9", "--sms", "10"});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output, Catch::Contains("no split-K"));
}

TEST_CASE("grader cli: analyze --lab lab08 at K = 13 times step 4's half k-step m16n8k4s at the bench run's rate, "
          "and says so when the run measured none",
          "[grader][cli][lab08]") {
  testing::TempDir dir("convlab-cli-lab08-k4");
  const fs::path bench = dir.path() / "bench.json";
  testing::write_test_file(bench, R"({"ceilings": {"copy_bytes_per_s": 3e12, "fma_flops_per_s": 6e13, )"
                                  R"("tf32_mma_flops_per_s": 3e14, "tf32_mma_k4_flops_per_s": 2e14}})");
  const std::vector<std::string> args = {"analyze", "--lab", "lab08", "--height", "8192", "--width", "8192",
                                         "--mask", "13", "--ceilings", bench.string()};
  ProcessResult r = grader(args);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("13/20 = 65.0% of the products are the mask's (13/24 = 54.2% with whole k-steps)"));
  CHECK_THAT(r.output, Catch::Contains("44040192 MMAs (m16n8k8, 3 per k-step; the row band's would be 61341696)"));
  CHECK_THAT(r.output, Catch::Contains("m16n8k4 200 TFLOP/s"));
  CHECK_THAT(r.output, !Catch::Contains("no m16n8k4 rate"));
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.end(), {"--format", "json"});
  r = grader(json_args);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.output);
  // Step 3 on patches: 44,040,192 m16n8k8 of 2048 flops at 300 TFLOP/s. Step 4 on the row band:
  // 27,262,976 whole MMAs at the m16n8k8 instruction rate and 13,631,488 half ones at m16n8k4's.
  CHECK(j.at("layout") == "patches");
  CHECK(j.at("bounds_ms").at("own").get<double>() == Approx(1e3 * 44040192.0 * 2048 / 3e14));
  CHECK(j.at("half_mmas").get<long long>() == 0);
  CHECK(j.at("row_band_half_mmas").get<long long>() == 20447232);
  CHECK(j.at("step4").at("half_mmas").get<long long>() == 13631488);
  CHECK(j.at("step4").at("bounds_ms").at("own").get<double>() ==
        Approx(1e3 * (27262976.0 * 2048 / 3e14 + 13631488.0 * 1024 / 2e14)));

  testing::write_test_file(bench, R"({"ceilings": {"copy_bytes_per_s": 3e12, "fma_flops_per_s": 6e13, "tf32_mma_flops_per_s": 3e14}})");
  r = grader(args);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("m16n8k4 not measured"));
  CHECK_THAT(r.output, Catch::Contains("no m16n8k4 rate in those ceilings"));
}

TEST_CASE("grader cli: a Slurm value that would break its #SBATCH line is refused", "[grader][cli][hostile]") {
  for (const auto& [option, value] : std::vector<std::pair<std::string, std::string>>{
           {"--partition", "gpu\n#SBATCH --wrap=id"},
           {"--partition", "gpu x"},
           {"--mem", "16Q"},
           {"--mem", "16G\nid"},
           {"--sbatch-option", "--account=cs149\nid"},
           {"--sbatch-option", "account"}}) {
    const ProcessResult r = grader({"slurm", "/tmp", "--out", "/tmp/convlab-never", "--dry-run", option, value});
    INFO(option << " " << value << ": " << r.output);
    CHECK(r.exit_code == kUsageError);
    CHECK_THAT(r.output, Catch::Contains(option + ": '"));
  }
}
