// Hostile input to the writers: results folders are input (a copied folder must not run
// anything), output paths are checked before long work, the atomic writer cannot be steered
// by a planted file and says which step failed, nothing is replaced without a word, and numeric
// options are read strictly with their limits named. Each test asserts the exact message.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "convlab/limits.hpp"
#include "convlab/atomic_file.hpp"
#include "tune/heatmap_files.hpp"
#include "tune/measurement.hpp"
#include "convlab/autotune/tuning_file.hpp"
#include "convlab/error_map.hpp"
#include "convlab/dataset.hpp"
#include "convlab/gnuplot_text.hpp"
#include "grader_test_support.hpp"
#include "system/child_environment.hpp"
#include "system/subprocess.hpp"
#include "system/tool_paths.hpp"

using namespace convlab::grader;
using convlab::grader::testing::TempDir;
using convlab::grader::testing::write_test_file;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

ProcessResult grader(std::vector<std::string> args) {
  args.insert(args.begin(), CONVLAB_GRADER_EXE);
  return run_process(args, 120s);
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// errno of creating a new file in `dir`, 0 if that worked (the file is removed again).
int create_errno(const fs::path& dir) {
  const fs::path probe = dir / "convlab-probe";
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return errno;
  ::close(fd);
  ::unlink(probe.c_str());
  return 0;
}

/// A folder this process cannot create files in: a fresh one made read-only, or, for root (whom
/// permissions do not stop), /sys (sysfs takes no new files from anyone). Empty if neither.
fs::path read_only_folder(const TempDir& tmp) {
  const fs::path ro = tmp.path() / "read-only";
  fs::create_directories(ro);
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  if (create_errno(ro) != 0) return ro;
  if (create_errno("/sys") != 0) return "/sys";
  return {};
}

/// The last line of a process's output (its error message).
std::string last_line(const std::string& output) {
  std::string s = output;
  while (!s.empty() && s.back() == '\n') s.pop_back();
  const auto nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

/// The files of `dir` whose name starts with '.' (temporaries).
std::vector<std::string> hidden_files(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string()[0] == '.') out.push_back(e.path().filename().string());
  }
  return out;
}

const fs::path kSource = CONVLAB_SOURCE_DIR;

}  // namespace

// --- Finding 2: no generated script embeds data unescaped ---------------------------------------

TEST_CASE("gnuplot text: a string becomes a single-quoted literal with quotes doubled and line breaks as spaces",
          "[hostile][gnuplot]") {
  CHECK(convlab::gnuplot_string("NVIDIA H200") == "'NVIDIA H200'");
  CHECK(convlab::gnuplot_string("it's") == "'it''s'");
  CHECK(convlab::gnuplot_string("a\"\nsystem(\"touch x\")\r\n`id` @m\t") == "'a\" system(\"touch x\")  `id` @m '");
  CHECK(convlab::gnuplot_data_field("lab01\tboth\nrestrict") == "lab01 both restrict");
}

TEST_CASE("bench --plot-only: a device name that would run a command is drawn as text and runs nothing",
          "[hostile][bench]") {
  TempDir tmp("hostile-bench-plot");
  const fs::path dir = tmp.path() / "results";
  const fs::path planted = tmp.path() / "PWNED";
  const std::string name = fmt::format("GPU\"\nsystem(\"touch {0}\")\n`touch {0}`", planted.string());
  const nlohmann::json bench = testing::sweep_bench_json(name);
  write_test_file(dir / "bench.json", bench.dump(1));
  const ProcessResult r = grader({"bench", "--plot-only", dir.string()});
  INFO(r.output);
  CHECK(!fs::exists(planted));
  const std::string gp = read(dir / "bench.gp");
  CHECK_THAT(gp, Catch::Contains("title \"Lab 01 (both_restrict), \" . " + convlab::gnuplot_string(name) + " . \", 64x64"));
  if (find_gnuplot()) CHECK(r.exit_code == kGraded);
}

TEST_CASE("bench --plot-only: a field of the wrong type is refused with file, field and reason, and nothing is drawn",
          "[hostile][bench]") {
  TempDir tmp("hostile-bench-field");
  const fs::path dir = tmp.path();
  nlohmann::json bench = {{"format", "convlab-bench"}, {"version", 1},
                          {"ceilings", {{"copy_bytes_per_s", 3e12}, {"fma_flops_per_s", 6e13}}},
                          {"sweep", {{"size", 64}, {"rows", {{{"mask_width", 3}, {"block_x", "32"}, {"block_y", 8}}}}}}};
  write_test_file(dir / "bench.json", bench.dump());
  ProcessResult r = grader({"bench", "--plot-only", dir.string()});
  CHECK(r.exit_code == kUsageError);
  CHECK(last_line(r.output) == fmt::format("grader bench --plot-only: {}: field \"sweep.rows[0].block_x\": must be an "
                                           "integer, got \"32\"",
                                           (dir / "bench.json").string()));
  bench["sweep"]["rows"][0]["block_x"] = 32;
  bench["sweep"]["size"] = 99999999999LL;
  write_test_file(dir / "bench.json", bench.dump());
  r = grader({"bench", "--plot-only", dir.string()});
  CHECK(r.exit_code == kUsageError);
  CHECK(last_line(r.output) == fmt::format("grader bench --plot-only: {}: field \"sweep.size\": is 99999999999, "
                                           "outside 1..{}",
                                           (dir / "bench.json").string(), convlab::kMaxExtent));
  CHECK_FALSE(fs::exists(dir / "bench.gp"));
}

TEST_CASE("tune --plot-only: a heatmaps.gp found in the folder is never run, and the script is written anew",
          "[hostile][tune]") {
  TempDir tmp("hostile-tune-plot");
  const fs::path dir = tmp.path() / "report";
  const fs::path planted = tmp.path() / "PWNED";
  fs::create_directories(dir);
  fs::copy_file(kSource / "results/tune/nvidia-h200/heatmap_k03.dat", dir / "heatmap_k03.dat");
  write_test_file(dir / "heatmaps.gp", fmt::format("system(\"touch {}\")\n", planted.string()));
  const ProcessResult r = grader({"tune", "--plot-only", dir.string()});
  INFO(r.output);
  CHECK(!fs::exists(planted));
  CHECK(read(dir / "heatmaps.gp") == convlab::lab07::heatmap_gnuplot_script({3}, "NVIDIA H200", false));
  if (find_gnuplot()) {
    CHECK(r.exit_code == kGraded);
    CHECK(fs::exists(dir / "heatmap_k03.png"));
  }
}

TEST_CASE("tune --plot-only: a device line with quotes and backquotes reaches the script escaped", "[hostile][tune]") {
  TempDir tmp("hostile-tune-device");
  std::string data = read(kSource / "results/tune/nvidia-h200/heatmap_k05.dat");
  const std::string device = "H'`touch x`\"";
  const auto at = data.find("# device: NVIDIA H200\n");
  REQUIRE(at != std::string::npos);
  data.replace(at, 22, "# device: " + device + "\n");
  write_test_file(tmp.path() / "heatmap_k05.dat", data);
  const convlab::lab07::HeatmapFolder f = convlab::lab07::read_heatmap_folder(tmp.path());
  CHECK(f.device == device);
  CHECK(f.mask_widths == std::vector<int>{5});
  CHECK_FALSE(f.quick);
  CHECK_THAT(convlab::lab07::heatmap_gnuplot_script(f.mask_widths, f.device, f.quick),
             Catch::Contains("title \"5x5 convolution on \" . 'H''`touch x`\"' . \" (32x4 threads"));
}

TEST_CASE("tune --plot-only: a data line that is not a heat-map cell is refused with file, line and reason",
          "[hostile][tune]") {
  TempDir tmp("hostile-tune-bad");
  std::string data = read(kSource / "results/tune/nvidia-h200/heatmap_k03.dat");
  data += "0 0 1 1 6.4 \"6\"\nsystem(\"id\")\n";
  write_test_file(tmp.path() / "heatmap_k03.dat", data);
  const int line = static_cast<int>(std::count(data.begin(), data.end(), '\n'));
  const ProcessResult r = grader({"tune", "--plot-only", tmp.path().string()});
  CHECK(r.exit_code == kUsageError);
  CHECK(last_line(r.output) ==
        fmt::format("grader tune: {}: line {}: expected a cell \"ix iy outputs_x outputs_y utilization|NaN \\\"label\\\"\"",
                    (tmp.path() / "heatmap_k03.dat").string(), line));
  CHECK_FALSE(fs::exists(tmp.path() / "heatmaps.gp"));
}

TEST_CASE("tune --plot-only: a folder without heat-map data is refused and nothing is run", "[hostile][tune]") {
  TempDir tmp("hostile-tune-empty");
  write_test_file(tmp.path() / "heatmaps.gp", "system(\"id\")\n");
  const ProcessResult r = grader({"tune", "--plot-only", tmp.path().string()});
  CHECK(r.exit_code == kUsageError);
  CHECK(last_line(r.output) ==
        fmt::format("grader tune: {}: no heatmap_kNN.dat (run `grader tune` first)", tmp.path().string()));
  CHECK(read(tmp.path() / "heatmaps.gp") == "system(\"id\")\n");
}

// --- Finding 6: the atomic writer --------------------------------------------------------------

TEST_CASE("atomic writer: symlinks planted at the old temporary names and at the target are never written through",
          "[hostile][atomic]") {
  TempDir tmp("hostile-atomic-symlink");
  const fs::path dir = tmp.path() / "out";
  const fs::path victim = tmp.path() / "victim.txt";
  fs::create_directories(dir);
  write_test_file(victim, "precious\n");
  // The names the old writer used (".NAME.tmp.PID", "NAME.tmp"), for this and nearby pids.
  for (int pid = getpid() - 2; pid <= getpid() + 2; ++pid) {
    fs::create_symlink(victim, dir / fmt::format(".report.json.tmp.{}", pid));
  }
  fs::create_symlink(victim, dir / "report.json.tmp");
  fs::create_symlink(victim, dir / "report.json");
  convlab::write_file_atomically(dir / "report.json", "{\"ok\": true}\n");
  CHECK(read(victim) == "precious\n");
  CHECK(fs::is_regular_file(fs::symlink_status(dir / "report.json")));
  CHECK(read(dir / "report.json") == "{\"ok\": true}\n");
  CHECK(hidden_files(dir).size() == 5);  // the planted links only: no temporary left behind
}

TEST_CASE("atomic writer: a failed rename reports the real error and leaves no temporary", "[hostile][atomic]") {
  TempDir tmp("hostile-atomic-rename");
  const fs::path target = tmp.path() / "report.json";
  fs::create_directories(target / "inside");  // a folder where the file should go
  try {
    convlab::write_file_atomically(target, "data");
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) ==
          fmt::format("cannot write {}: cannot rename the temporary over it: {}", target.string(), std::strerror(EISDIR)));
  }
  CHECK(hidden_files(tmp.path()).empty());
}

TEST_CASE("atomic writer: a folder that takes no new file is named with the system's reason", "[hostile][atomic]") {
  TempDir tmp("hostile-atomic-readonly");
  const fs::path ro = read_only_folder(tmp);
  if (ro.empty()) {
    WARN("no read-only folder on this machine; skipped");
    return;
  }
  const fs::path target = ro / "report.json";
  const std::string why = std::strerror(create_errno(ro));
  try {
    convlab::write_file_atomically(target, "data");
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) ==
          fmt::format("cannot write {}: cannot create a file in {}: {}", target.string(), ro.string(), why));
  }
  CHECK_THROWS_WITH(convlab::check_writable(target),
                    fmt::format("cannot write {}: cannot create a file in {}: {}", target.string(), ro.string(), why));
  CHECK_THROWS_WITH(convlab::write_file_atomically("/nonexistent-convlab/report.json", "x"),
                    "cannot write /nonexistent-convlab/report.json: no folder /nonexistent-convlab");
}

TEST_CASE("atomic writer: every byte of a large file arrives and an existing file is replaced whole",
          "[hostile][atomic]") {
  TempDir tmp("hostile-atomic-large");
  const fs::path target = tmp.path() / "big.bin";
  write_test_file(target, "old contents that are longer than nothing");
  std::string big(5 << 20, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 2654435761u >> 24);
  convlab::write_file_atomically(target, big);
  CHECK(read(target) == big);
  CHECK(hidden_files(tmp.path()).empty());
}

TEST_CASE("one writer: the tuning file, the tune report and error maps never write through a planted symlink",
          "[hostile][atomic]") {
  TempDir tmp("hostile-one-writer");
  const fs::path victim = tmp.path() / "victim.txt";
  write_test_file(victim, "precious\n");
  // The names the tuner's own writers used for their temporaries, and the targets themselves.
  fs::create_symlink(victim, tmp.path() / "lab07.json.tmp");
  fs::create_symlink(victim, tmp.path() / "table.md.tmp");
  fs::create_symlink(victim, tmp.path() / "map.png");
  convlab::lab07::TuningTable t;
  t.device = "NVIDIA H200";
  t.compute_capability = "9.0";
  convlab::lab07::write_tuning_file(tmp.path() / "lab07.json", t);
  convlab::lab07::write_text_file(tmp.path() / "table.md", "# table\n");
  convlab::RgbImage image;
  image.width = 2;
  image.height = 1;
  image.pixels.assign(6, 255);
  convlab::write_png(tmp.path() / "map.png", image);
  CHECK(read(victim) == "precious\n");
  CHECK(read(tmp.path() / "table.md") == "# table\n");
  CHECK(convlab::lab07::read_tuning_file(tmp.path() / "lab07.json").device == "NVIDIA H200");
  CHECK(fs::is_regular_file(fs::symlink_status(tmp.path() / "map.png")));
  CHECK(read(tmp.path() / "map.png").rfind("\x89PNG", 0) == 0);
}

// --- Output paths checked before long work ------------------------------------------------------

TEST_CASE("grade --json, --gradescope and batch --csv into a read-only folder fail up front, naming the path",
          "[hostile][outputs]") {
  TempDir tmp("hostile-grade-outputs");
  const fs::path ro = read_only_folder(tmp);
  if (ro.empty()) {
    WARN("no read-only folder on this machine; skipped");
    return;
  }
  const std::string why = std::strerror(create_errno(ro));
  for (const char* flag : {"--json", "--gradescope"}) {
    const fs::path out = ro / "report.json";
    const ProcessResult r = grader({"grade", flag, out.string()});
    CHECK(r.exit_code == kUsageError);
    CHECK(last_line(r.output) == fmt::format("grader: error: {}: cannot write {}: cannot create a file in {}: {}", flag,
                                             out.string(), ro.string(), why));
  }
  fs::create_directories(tmp.path() / "class/alice");
  const fs::path csv = ro / "class.csv";
  const ProcessResult r = grader({"batch", (tmp.path() / "class").string(), "--csv", csv.string()});
  CHECK(r.exit_code == kUsageError);
  CHECK(last_line(r.output) == fmt::format("grader: error: --csv: cannot write {}: cannot create a file in {}: {}",
                                           csv.string(), ro.string(), why));
}

TEST_CASE("bench --out and tune --out/--tuning that cannot be written fail up front, naming the folder",
          "[hostile][outputs]") {
  TempDir tmp("hostile-bench-outputs");
  const fs::path ro = read_only_folder(tmp);
  if (ro.empty()) {
    WARN("no read-only folder on this machine; skipped");
    return;
  }
  const std::string why = std::strerror(create_errno(ro));
  // A file where the folder should be: create_directories fails the same way for everyone.
  write_test_file(tmp.path() / "file", "x");
  const fs::path not_a_folder = tmp.path() / "file" / "results";
  ProcessResult r = grader({"bench", "--out", not_a_folder.string()});
  CHECK(r.exit_code == kUsageError);
  CHECK(last_line(r.output) ==
        fmt::format("grader bench: --out: cannot write into {}: {}", not_a_folder.string(), std::strerror(ENOTDIR)));
  r = grader({"bench", "--out", ro.string()});
  CHECK(r.exit_code == kUsageError);
  CHECK(last_line(r.output) == fmt::format("grader bench: --out: cannot write into {}: {}", ro.string(), why));
  r = grader({"tune", "--out", ro.string()});
  CHECK(r.exit_code == kUsageError);
  CHECK(last_line(r.output) == fmt::format("grader tune: cannot write into {}: {}", ro.string(), why));
  const fs::path tuning = ro / "lab07.json";
  r = grader({"tune", "--tuning", tuning.string()});
  CHECK(r.exit_code == kUsageError);
  CHECK(last_line(r.output) == fmt::format("grader tune: cannot write into {}: {}", ro.string(), why));
}

// --- Finding 7: nothing lost --------------------------------------------------------------------

TEST_CASE("datagen --out into a folder holding cases refuses without --force and writes nothing",
          "[hostile][datagen]") {
  TempDir tmp("hostile-datagen-refuse");
  const fs::path out = tmp.path() / "set";
  ProcessResult r = grader({"datagen", "--seed", "1", "--count", "2", "--max-side", "8", "--out", out.string()});
  REQUIRE(r.exit_code == kGraded);
  const auto cases = convlab::find_cases(out);
  REQUIRE(cases.size() == 2);
  const std::string before = read(cases.front() / "input.npy");
  r = grader({"datagen", "--seed", "2", "--count", "2", "--max-side", "8", "--out", out.string()});
  CHECK(r.exit_code == kUsageError);
  CHECK(last_line(r.output) ==
        fmt::format("grader datagen: {} already holds 2 cases (e.g. {}); writing would replace them. Give --force to "
                    "write into it, or choose another --out",
                    out.string(), cases.front().string()));
  CHECK(read(cases.front() / "input.npy") == before);
}

TEST_CASE("datagen --force --no-expected over a case leaves no stale expected.npy beside the new inputs",
          "[hostile][datagen]") {
  TempDir tmp("hostile-datagen-stale");
  const fs::path out = tmp.path() / "set";
  const fs::path c = out / "conv2d" / "k3_8x8";
  REQUIRE(grader({"datagen", "--seed", "1", "--shape", "8x8", "--masks", "3", "--out", out.string()}).exit_code == 0);
  REQUIRE(fs::exists(c / "expected.npy"));
  const std::string before = read(c / "input.npy");
  const ProcessResult r = grader(
      {"datagen", "--seed", "2", "--shape", "8x8", "--masks", "3", "--no-expected", "--force", "--out", out.string()});
  CHECK(r.exit_code == kGraded);
  CHECK(read(c / "input.npy") != before);
  CHECK_FALSE(fs::exists(c / "expected.npy"));
}

TEST_CASE("docs keeps a hand edit inside a block: without --force it shows the diff and writes nothing",
          "[hostile][docs]") {
  TempDir tmp("hostile-docs-edit");
  const fs::path root = tmp.path();
  write_test_file(root / "CMakePresets.json", "{}\n");
  fs::create_directories(root / "slides");
  write_test_file(root / "notes.md", "what the generator writes\n");
  const std::string readme = "# readme\n\n<!-- convlab:include notes.md -->\n\nmy hand edit\n\n<!-- convlab:end -->\n";
  write_test_file(root / "README.md", readme);
  ProcessResult r = grader({"docs", "--root", root.string()});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("-my hand edit"));
  CHECK_THAT(r.output, Catch::Contains("+what the generator writes"));
  CHECK(last_line(r.output) ==
        "grader docs: 1 of 1 generated blocks differ from what the code generates now (above: - the file, + the code); "
        "nothing was written. If the differences are the code's, run `grader docs --force`; a hand edit inside a "
        "block would be lost: move it out of the block first");
  CHECK(read(root / "README.md") == readme);
  r = grader({"docs", "--force", "--root", root.string()});
  CHECK(r.exit_code == kGraded);
  CHECK(read(root / "README.md") ==
        "# readme\n\n<!-- convlab:include notes.md -->\n\nwhat the generator writes\n\n<!-- convlab:end -->\n");
}

TEST_CASE("docs --check on a folder that is not the repository fails instead of finding 0 blocks current",
          "[hostile][docs]") {
  TempDir tmp("hostile-docs-root");
  const ProcessResult r = grader({"docs", "--check", "--root", tmp.path().string()});
  CHECK(r.exit_code == kUsageError);
  CHECK(last_line(r.output) ==
        fmt::format("grader docs: not a convlab repository: {} (no slides/ folder and CMakePresets.json)",
                    fs::weakly_canonical(tmp.path()).string()));
}

// --- Finding 8: numbers read strictly, limits named ---------------------------------------------

TEST_CASE("analyze: a huge --tile, --block-index or --layer value names the limit instead of 'stoi'",
          "[hostile][cli]") {
  const std::vector<std::string> base{"analyze", "--strategy", "tiled1", "--height", "32", "--width", "32", "--mask", "5"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return grader(a);
  };
  ProcessResult r = with({"--tile", "99999999999"});
  CHECK(r.exit_code == kUsageError);
  CHECK(last_line(r.output) == "grader analyze: error: --tile '99999999999': 99999999999 is above the limit 1048576");
  r = with({"--tile", "16", "--block-index", "99999999999999999999999,0"});
  CHECK(r.exit_code == kUsageError);
  CHECK(last_line(r.output) == "grader analyze: error: --block-index '99999999999999999999999,0': "
                               "99999999999999999999999 is above the limit 1048576");
  r = grader({"analyze", "--layer", "1,1,1,99999999999,8,3"});
  CHECK(r.exit_code == kUsageError);
  CHECK(last_line(r.output) ==
        "grader analyze: error: --layer '1,1,1,99999999999,8,3': 99999999999 is above the limit 2147483647");
}

TEST_CASE("analyze: a tile as large as the limit gives a grid of 1x1 blocks, never a negative grid", "[hostile][cli]") {
  const ProcessResult r = grader({"analyze", "--strategy", "tiled1", "--height", "1048576", "--width", "1048576",
                                  "--mask", "5", "--tile", "1048576", "--block-index", "1,0"});
  CHECK(r.exit_code == kUsageError);
  CHECK(last_line(r.output) == "grader analyze: error: --block-index 1,0: the grid is 1x1 blocks");
}

TEST_CASE("analyze: an image side above the limit is refused with the limit named", "[hostile][cli]") {
  const ProcessResult r =
      grader({"analyze", "--strategy", "tiled1", "--height", "32", "--width", "2147483647", "--mask", "5", "--tile", "16"});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output, Catch::Contains("--width: Value 2147483647 not in range 1 to 1048576"));
}

TEST_CASE("analyze: a conv layer whose dilated mask overflows int is refused, not analysed with wrong numbers",
          "[hostile][cli]") {
  const ProcessResult r = grader({"analyze", "--layer", "1,1,1,8,8,17,1,0,268435456"});
  CHECK(r.exit_code == kUsageError);
  CHECK(last_line(r.output) == "grader analyze: error: --layer '1,1,1,8,8,17,1,0,268435456': the dilated 17x17 mask "
                               "(extent 4294967297) does not fit the padded 8x8 input");
}

TEST_CASE("grade and batch: --random-seed -1 is refused, not read as 2^64-1", "[hostile][cli]") {
  ProcessResult r = grader({"grade", "--random-seed", "-1"});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output, Catch::Contains("--random-seed: '-1' is not a whole number from 0 to 18446744073709551615"));
  r = grader({"batch", "/tmp", "--random-seed", "7x"});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output, Catch::Contains("--random-seed: '7x' is not a whole number from 0 to 18446744073709551615"));
}

TEST_CASE("datagen: --seed -1 and --masks 3x are refused, not read as 2^64-1 and 3", "[hostile][cli]") {
  TempDir tmp("hostile-datagen-cli");
  const fs::path out = tmp.path() / "set";
  ProcessResult r = grader({"datagen", "--seed", "-1", "--out", out.string()});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output, Catch::Contains("--seed: '-1' is not a whole number from 0 to 18446744073709551615"));
  r = grader({"datagen", "--seed", "18446744073709551616", "--out", out.string()});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output,
             Catch::Contains("--seed: '18446744073709551616' is not a whole number from 0 to 18446744073709551615"));
  r = grader({"datagen", "--seed", "1", "--masks", "3x", "--out", out.string()});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output, Catch::Contains("'3x' is not a mask width"));
  CHECK_FALSE(fs::exists(out / "conv2d"));
}

// --- bench --plot-only at the limits of a report ----------------------------------------------

namespace {

/// A bench.json of `methods` x `sizes` x `masks` conv2d rows, every one of them ran.
nlohmann::json wide_bench(int methods, int sizes, int masks) {
  nlohmann::json results = nlohmann::json::array();
  for (int m = 0; m < methods; ++m) {
    for (int s = 0; s < sizes; ++s) {
      for (int k = 0; k < masks; ++k) {
        results.push_back({{"method", fmt::format("{} method{}", m == 0 ? "lab07 register_tiled" : "peer", m)},
                           {"kind", m % 2 ? "peer" : "lab"},
                           {"height", 64 + s},
                           {"width", 64},
                           {"mask_width", 1 + 2 * k},
                           {"ms", 0.5 + 0.001 * m},
                           {"gb_per_s", 100.0},
                           {"tflop_per_s", 1.0},
                           {"roofline_fraction", 0.5}});
      }
    }
  }
  return {{"format", "convlab-bench"},
          {"version", 1},
          {"device", {{"name", "GPU"}}},
          {"ceilings", {{"copy_bytes_per_s", 3e12}, {"fma_flops_per_s", 6e13}}},
          {"conv2d", {{"results", results}}}};
}

}  // namespace

TEST_CASE("bench --plot-only: the largest report a file may hold (12,288 rows) is drawn in seconds, not minutes",
          "[hostile][bench]") {
  TempDir tmp("hostile-bench-rows");
  const fs::path dir = tmp.path() / "results";
  write_test_file(dir / "bench.json", wide_bench(64, 64, 3).dump());
  // The tables and data files, not the drawing.
  const ScopedChildEnvironment no_gnuplot(std::map<std::string, std::string>{{"GNUPLOT", "/nonexistent/gnuplot"}});
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = grader({"bench", "--plot-only", dir.string()});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(r.output);
  CHECK(r.exit_code == kGraded);
  CHECK(seconds < 20);  // each cell scanned every row before: 10,000 rows took 6.5 minutes
  CHECK(read(dir / "bench.md").find("| 5 | peer method63 |") != std::string::npos);
}

TEST_CASE("bench --plot-only: a 65th method or image size is refused by row, before anything is drawn",
          "[hostile][bench]") {
  TempDir tmp("hostile-bench-wide");
  const fs::path dir = tmp.path() / "results";
  write_test_file(dir / "bench.json", wide_bench(65, 1, 1).dump());
  ProcessResult r = grader({"bench", "--plot-only", dir.string()});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output, Catch::Contains("field \"conv2d.results[64]\": a method past the 64 distinct methods"));
  write_test_file(dir / "bench.json", wide_bench(1, 65, 1).dump());
  r = grader({"bench", "--plot-only", dir.string()});
  CHECK(r.exit_code == kUsageError);
  CHECK_THAT(r.output, Catch::Contains("field \"conv2d.results[64]\": an image size past the 64 distinct sizes"));
  CHECK_FALSE(fs::exists(dir / "bench.md"));
}
