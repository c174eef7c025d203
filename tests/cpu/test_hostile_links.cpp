// Hostile input, links and loops: every folder a command is given keeps what the command reads
// and writes inside it (convlab/contained_paths.hpp). Before, `grader docs --check` printed a
// linked file from outside the repository, gnuplot drew through a planted link, datagen wrote
// through a linked sub-folder, a submission's link made the grader copy an outside file into
// the build, and one loop of links ended a whole batch with a raw `filesystem error`.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "build/lab_folders.hpp"
#include "build/lab_compile.hpp"
#include "commands/commands.hpp"
#include "convlab/contained_paths.hpp"
#include "convlab/dataset.hpp"
#include "grader_test_support.hpp"
#include "run/reasons.hpp"
#include "schedule/class_folder.hpp"
#include "system/subprocess.hpp"
#include "system/tool_paths.hpp"

using namespace convlab;
using namespace convlab::grader;
using namespace convlab::grader::testing;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

ProcessResult run(const char* exe, std::vector<std::string> args) {
  args.insert(args.begin(), exe);
  return run_process(args, 120s);
}
ProcessResult grader_cli(std::vector<std::string> args) { return run(CONVLAB_GRADER_EXE, std::move(args)); }
ProcessResult test_mode(std::vector<std::string> args) { return run(CONVLAB_GRADER_TEST_MODE_EXE, std::move(args)); }

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A file outside every folder a test gives a command, with bytes no command writes.
fs::path secret_file(const fs::path& dir) {
  const fs::path p = dir / "outside" / "secret.txt";
  write_test_file(p, "TOP SECRET: the hidden answers\n");
  return p;
}

/// `a` and `b`: two links that point at each other.
void make_loop(const fs::path& a, const fs::path& b) {
  fs::create_symlink(b.filename(), a);
  fs::create_symlink(a.filename(), b);
}

}  // namespace

// --- The rule itself ---------------------------------------------------------------------------

TEST_CASE("contained paths: a link is followed inside its folder and refused, by name, when it leads out",
          "[hostile][links]") {
  TempDir tmp("links-rule");
  const fs::path root = tmp.path() / "root";
  const fs::path secret = secret_file(tmp.path());
  write_test_file(root / "real" / "a.txt", "a");
  fs::create_symlink("real", root / "inside-dir");
  fs::create_symlink("real/a.txt", root / "inside-file");
  fs::create_symlink(secret, root / "out-file");
  fs::create_symlink(secret.parent_path(), root / "out-dir");
  fs::create_symlink("nothing-here", root / "dangling");

  CHECK(resolve_inside(root, root / "inside-dir" / "a.txt") == fs::canonical(root / "real" / "a.txt"));
  CHECK(resolve_inside(root, root / "inside-file") == fs::canonical(root / "real" / "a.txt"));
  // Not written yet: kept as given below the resolved part.
  CHECK(resolve_inside(root, root / "inside-dir" / "new" / "b.txt") == fs::canonical(root / "real") / "new" / "b.txt");

  CHECK_THROWS_WITH(resolve_inside(root, root / "out-file"),
                    Catch::Contains((root / "out-file").string()) && Catch::Contains("outside " + root.string()));
  CHECK_THROWS_WITH(resolve_inside(root, root / "out-dir" / "secret.txt"), Catch::Contains((root / "out-dir").string()));
  CHECK_THROWS_WITH(resolve_inside(root, root / "dangling"), Catch::Contains("which does not exist"));
  CHECK_THROWS_WITH(resolve_inside(root, tmp.path() / "elsewhere"), Catch::Contains("is not inside"));
  CHECK_THROWS_AS(resolve_inside(root, root / "out-file"), PathError);
}

TEST_CASE("contained paths: a loop of links is a named error wherever it lies", "[hostile][links]") {
  TempDir tmp("links-loop");
  const fs::path root = tmp.path() / "root";
  fs::create_directories(root / "sub");
  make_loop(root / "sub" / "l1", root / "sub" / "l2");
  CHECK_THROWS_WITH(resolve_inside(root, root / "sub" / "l1" / "x"),
                    Catch::Contains((root / "sub" / "l1").string() + ": a loop of symbolic links"));
  CHECK_THROWS_WITH(files_inside(root), Catch::Contains("a loop of symbolic links"));
  make_loop(tmp.path() / "g1", tmp.path() / "g2");
  CHECK_THROWS_WITH(given_folder(tmp.path() / "g1", "--datasets"),
                    Catch::Equals(fmt::format("--datasets {}: a loop of symbolic links", (tmp.path() / "g1").string())));
}

TEST_CASE("contained paths: a walk lists a linked file inside under its own name and enters no linked folder",
          "[hostile][links]") {
  TempDir tmp("links-walk");
  const fs::path root = tmp.path() / "root";
  write_test_file(root / "a.cu", "a");
  write_test_file(root / "sub" / "b.cuh", "b");
  fs::create_symlink("a.cu", root / "alias.cu");
  fs::create_symlink("sub", root / "sub-again");
  CHECK(files_inside(root) == std::vector<fs::path>{"a.cu", "alias.cu", fs::path("sub") / "b.cuh"});
  fs::create_symlink(secret_file(tmp.path()), root / "sub" / "leak.h");
  CHECK_THROWS_WITH(files_inside(root), Catch::Contains((root / "sub" / "leak.h").string()));
}

// --- Submissions -------------------------------------------------------------------------------

TEST_CASE("submission: a lab file linked out of the submission scores as such, and the outside file never reaches "
          "the build",
          "[hostile][links][grader]") {
  TempDir tmp("links-submission");
  const fs::path secret = secret_file(tmp.path());
  const std::vector<LabInfo> all = discover_labs(fs::path(CONVLAB_SOURCE_DIR) / "labs");
  const std::vector<LabInfo> graded = select_labs(all, "01");
  const fs::path student = tmp.path() / "student";
  fs::create_directories(student / "01-naive");
  fs::copy(fs::path(CONVLAB_SOURCE_DIR) / "labs" / "01-naive" / "naive.cu", student / "01-naive" / "naive.cu");
  fs::create_symlink(secret, student / "01-naive" / "answers.h");

  // Refused when the lab is read, before any compile (nothing here needs nvcc): the lab loses its
  // points, by name, and none of its files is read.
  const StagedLab staged = stage_lab(student, graded[0]);
  REQUIRE(staged.unbuildable);
  CHECK_FALSE(staged.unbuildable->exe);
  CHECK(staged.unbuildable->build_reasons == std::vector<std::string>{reason::kLinkOutside});
  CHECK_THAT(staged.unbuildable->build_message, Catch::Contains((student / "01-naive" / "answers.h").string()) &&
                                                    Catch::Contains("outside"));
  CHECK(staged.files.empty());

  // The lab's folder itself linked out of the submission, and a loop: named the same way.
  fs::remove_all(student / "01-naive");
  fs::create_symlink(secret.parent_path(), student / "01-naive");
  CHECK(stage_lab(student, graded[0]).unbuildable->build_reasons == std::vector<std::string>{reason::kLinkOutside});
  fs::remove(student / "01-naive");
  fs::create_directories(student / "01-naive");
  make_loop(student / "01-naive" / "naive.cu", student / "01-naive" / "other.cu");
  const StagedLab looped = stage_lab(student, graded[0]);
  REQUIRE(looped.unbuildable);
  CHECK(looped.unbuildable->build_reasons == std::vector<std::string>{reason::kLinkOutside});
  CHECK_THAT(looped.unbuildable->build_message, Catch::Contains("a loop of symbolic links"));
}

TEST_CASE("submission: a link between its own files is staged as the file it leads to", "[hostile][links][grader]") {
  TempDir tmp("links-submission-inside");
  const fs::path src = tmp.path() / "lab", dest = tmp.path() / "staged";
  write_test_file(src / "common.cuh", "// shared\n");
  fs::create_symlink("common.cuh", src / "alias.cuh");
  const LabInfo lab{"99", "lab", {"common.cuh"}};
  write_lab_files(stage_lab(tmp.path(), lab).files, dest);
  CHECK(read(dest / "alias.cuh") == "// shared\n");
  CHECK_FALSE(fs::is_symlink(dest / "alias.cuh"));  // a copy: the build sees no link
}

// --- Class folders -----------------------------------------------------------------------------

TEST_CASE("class folder: a loop or a link out costs that entry only, named in its row", "[hostile][links][grader]") {
  TempDir tmp("links-class");
  const fs::path cls = tmp.path() / "class";
  for (const char* student : {"ann", "bob"}) write_test_file(cls / student / "01-naive" / "fake.args", "--fake-time-ms 1\n");
  make_loop(cls / "loop1", cls / "loop2");
  fs::create_directories(tmp.path() / "elsewhere" / "01-naive");
  fs::create_symlink(tmp.path() / "elsewhere", cls / "zed");
  fs::create_symlink("ann", cls / "ann-again");  // inside: graded as the folder it leads to

  const std::vector<ClassSubmission> entries = read_class_folder(cls, "batch");
  std::vector<std::string> names, refused;
  for (const ClassSubmission& s : entries) {
    names.push_back(s.name);
    if (!s.refused.empty()) refused.push_back(s.name);
  }
  CHECK(names == std::vector<std::string>{"ann", "ann-again", "bob", "loop1", "loop2", "zed"});
  CHECK(refused == std::vector<std::string>{"loop1", "loop2", "zed"});

  const fs::path report = tmp.path() / "batch.json";
  const ProcessResult p = test_mode({"batch", cls.string(), "--labs", "01", "--quiet", "--json", report.string()});
  INFO(p.output);
  CHECK_THAT(p.output, !Catch::Contains("filesystem error"));
  REQUIRE(fs::exists(report));
  const nlohmann::json j = nlohmann::json::parse(read(report));
  std::map<std::string, nlohmann::json> rows;
  for (const auto& s : j.at("students")) rows[s.at("name").get<std::string>()] = s;
  // Graded (the test double's time, on a loaded machine, may cost speed points: not asserted).
  for (const char* graded : {"ann", "ann-again", "bob"}) {
    INFO(graded);
    CHECK(rows.at(graded).value("could_not_grade", nlohmann::json::array()).empty());
    CHECK(rows.at(graded).at("score").get<double>() > 0);
  }
  CHECK_THAT(rows.at("loop1").at("could_not_grade")[0].get<std::string>(), Catch::Contains("a loop of symbolic links"));
  CHECK_THAT(rows.at("zed").at("could_not_grade")[0].get<std::string>(), Catch::Contains("outside " + cls.string()));
}

TEST_CASE("grade: a loop of links given as --submission, --datasets or --json's folder is a usage error that says so",
          "[hostile][links][grader]") {
  TempDir tmp("links-grade-options");
  make_loop(tmp.path() / "la", tmp.path() / "lb");
  const std::string loop = (tmp.path() / "la").string();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"grade", "--submission", loop, "--labs", "01"},
        std::vector<std::string>{"grade", "--solutions", "--labs", "01", "--datasets", loop},
        std::vector<std::string>{"grade", "--solutions", "--labs", "01", "--json", loop + "/report.json"},
        std::vector<std::string>{"batch", loop, "--labs", "01"}}) {
    const ProcessResult p = test_mode(args);
    INFO(args[1] << " " << args.back() << ": " << p.output);
    CHECK(p.exit_code == kUsageError);
    CHECK_THAT(p.output, Catch::Contains(loop + ": a loop of symbolic links"));
    CHECK_THAT(p.output, !Catch::Contains("filesystem error"));
  }
}

// --- Datasets ----------------------------------------------------------------------------------

TEST_CASE("datasets: a case file linked out of the set, or a loop in it, stops the loading, naming the link",
          "[hostile][links][datasets]") {
  TempDir tmp("links-datasets");
  const fs::path set = tmp.path() / "cases";
  small_case_set(set);
  const std::vector<fs::path> cases = find_cases(set);
  REQUIRE(cases.size() >= 2);
  // A link inside the set is fine.
  fs::create_symlink(cases[0].filename(), cases[0].parent_path() / "alias");
  CHECK(find_cases(set).size() == cases.size() + 1);

  const fs::path victim = cases[1] / "input.npy";
  fs::copy_file(victim, tmp.path() / "input.npy");
  fs::remove(victim);
  fs::create_symlink(tmp.path() / "input.npy", victim);
  CHECK_THROWS_WITH(find_cases(set), Catch::Contains(victim.string()) && Catch::Contains("outside"));
  fs::remove(victim);
  fs::copy_file(tmp.path() / "input.npy", victim);

  make_loop(set / "l1", set / "l2");
  CHECK_THROWS_AS(find_cases(set), DatasetError);
  CHECK_THROWS_WITH(find_cases(set), Catch::Contains("a loop of symbolic links"));
}

// --- Commands given a results folder or the repository ----------------------------------------

TEST_CASE("docs: a document linked out of the repository is neither printed nor copied into it",
          "[hostile][links][docs]") {
  TempDir tmp("links-docs");
  const fs::path root = tmp.path() / "repo";
  write_test_file(root / "CMakePresets.json", "{}\n");
  fs::create_directories(root / "slides");
  // Outside: a file whose block differs from what the generator gives, so --check would print it.
  const fs::path outside = tmp.path() / "outside" / "deck.md";
  write_test_file(outside, "<!-- convlab:include missing.md -->\nTOP SECRET line\n<!-- convlab:end -->\n");
  fs::create_symlink(outside, root / "slides" / "deck.md");
  const std::string before = read(outside);
  for (const char* mode : {"--check", "--force"}) {
    const ProcessResult p = grader_cli({"docs", mode, "--root", root.string()});
    INFO(mode << ": " << p.output);
    CHECK(p.exit_code == kUsageError);
    CHECK_THAT(p.output, Catch::Contains((root / "slides" / "deck.md").string()) && Catch::Contains("outside"));
    CHECK_THAT(p.output, !Catch::Contains("TOP SECRET"));
  }
  CHECK(fs::is_symlink(root / "slides" / "deck.md"));
  CHECK(read(outside) == before);

  // An include marker that reaches out through a link is a malformed marker, named.
  fs::remove(root / "slides" / "deck.md");
  fs::create_symlink(outside.parent_path(), root / "notes");
  write_test_file(root / "README.md", "<!-- convlab:include notes/deck.md -->\n<!-- convlab:end -->\n");
  const ProcessResult p = grader_cli({"docs", "--check", "--root", root.string()});
  CHECK(p.exit_code == kUsageError);
  CHECK_THAT(p.output, Catch::Contains("README.md:1") && Catch::Contains("outside"));
  CHECK_THAT(p.output, !Catch::Contains("TOP SECRET"));
}

TEST_CASE("bench --plot-only: a link planted at a picture's name is replaced, not drawn through, and a linked bench.json "
          "is refused",
          "[hostile][links][bench]") {
  TempDir tmp("links-bench");
  const fs::path dir = tmp.path() / "results";
  const fs::path victim = secret_file(tmp.path());
  const nlohmann::json bench = sweep_bench_json("GPU");
  write_test_file(dir / "bench.json", bench.dump(1));
  fs::create_symlink(victim, dir / "sweep.png");
  const std::string before = read(victim);
  ProcessResult p = grader_cli({"bench", "--plot-only", dir.string()});
  INFO(p.output);
  CHECK(read(victim) == before);
  if (find_gnuplot()) {
    CHECK(p.exit_code == kGraded);
    CHECK_FALSE(fs::is_symlink(dir / "sweep.png"));
    CHECK(read(dir / "sweep.png").rfind("\x89PNG", 0) == 0);
  }
  // gnuplot's private folder is gone.
  for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().filename().string().rfind(".gnuplot-", 0) != 0);

  fs::rename(dir / "bench.json", tmp.path() / "outside" / "bench.json");
  fs::create_symlink(tmp.path() / "outside" / "bench.json", dir / "bench.json");
  p = grader_cli({"bench", "--plot-only", dir.string()});
  CHECK(p.exit_code == kUsageError);
  CHECK_THAT(p.output, Catch::Contains((dir / "bench.json").string()) && Catch::Contains("outside"));
}

TEST_CASE("datagen: an --out whose sub-folder links elsewhere is refused, and what the link points at is untouched",
          "[hostile][links][datagen]") {
  TempDir tmp("links-datagen");
  const fs::path elsewhere = tmp.path() / "precious";
  REQUIRE(grader_cli({"datagen", "--seed", "1", "--shape", "8x8", "--masks", "3", "--out", elsewhere.string()}).exit_code ==
          kGraded);
  const fs::path kept = elsewhere / "conv2d" / "k3_8x8" / "input.npy";
  const std::string before = read(kept);
  const fs::path out = tmp.path() / "new-set";
  fs::create_directories(out);
  fs::create_symlink(elsewhere / "conv2d", out / "conv2d");
  for (const bool force : {false, true}) {
    std::vector<std::string> args{"datagen", "--seed", "2", "--shape", "8x8", "--masks", "3", "--out", out.string()};
    if (force) args.push_back("--force");
    const ProcessResult p = grader_cli(args);
    INFO(p.output);
    CHECK(p.exit_code == kUsageError);
    CHECK_THAT(p.output, Catch::Contains((out / "conv2d").string()) && Catch::Contains("outside"));
    CHECK(read(kept) == before);
  }
}

TEST_CASE("merge: a report linked out of the results folder is that student's missing result, not read",
          "[hostile][links][grader]") {
  TempDir tmp("links-merge");
  const fs::path cls = tmp.path() / "class";
  write_test_file(cls / "ann" / "01-naive" / "fake.args", "--fake-time-ms 1\n");
  write_test_file(cls / "bob" / "01-naive" / "fake.args", "--fake-time-ms 1\n");
  const fs::path results = tmp.path() / "results";
  fs::create_directories(results);
  for (const char* s : {"ann", "bob"}) {
    const ProcessResult g = test_mode({"grade", "--submission", (cls / s).string(), "--labs", "01", "--quiet", "--json",
                                       (results / (std::string(s) + ".json")).string()});
    REQUIRE(g.exit_code == kGraded);
  }
  fs::rename(results / "bob.json", tmp.path() / "bob.json");
  fs::create_symlink(tmp.path() / "bob.json", results / "bob.json");
  const ProcessResult p = test_mode({"merge", results.string(), "--labs", "01", "--json", (tmp.path() / "class.json").string()});
  INFO(p.output);
  const nlohmann::json j = nlohmann::json::parse(read(tmp.path() / "class.json"));
  std::map<std::string, nlohmann::json> rows;
  for (const auto& s : j.at("students")) rows[s.at("name").get<std::string>()] = s;
  CHECK(rows.at("ann").value("could_not_grade", nlohmann::json::array()).empty());
  CHECK(rows.at("ann").at("score").get<double>() > 0);
  CHECK_THAT(rows.at("bob").at("could_not_grade")[0].get<std::string>(), Catch::Contains("outside"));
}
