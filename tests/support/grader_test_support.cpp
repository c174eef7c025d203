#include "grader_test_support.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstdint>
#include <fstream>

#include "convlab/datagen.hpp"
#include "fake_lab_args.hpp"

namespace convlab::grader::testing {
namespace fs = std::filesystem;

TempDir::TempDir(const std::string& name)
    : path_(fs::temp_directory_path() / fmt::format("convlab-test-{}-{}", name, getpid())) {
  fs::remove_all(path_);
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

nlohmann::json sweep_bench_json(const std::string& device_name) {
  return {{"format", "convlab-bench"},
          {"version", 1},
          {"device", {{"name", device_name}}},
          {"ceilings", {{"copy_bytes_per_s", 3e12}, {"fma_flops_per_s", 6e13}}},
          {"sweep",
           {{"size", 64},
            {"ncu", {{"unavailable", "not run"}}},
            {"rows", {{{"mask_width", 3}, {"block_x", 32}, {"block_y", 8}, {"ms", 0.5}}}}}}};
}

CaseSet small_case_set(const fs::path& root) {
  const Conv2dSpec specs[] = {{"k1_1x1", {1, 1, 1}, 101, ""},
                              {"k3_7x9", {7, 9, 3}, 102, ""},
                              {"k5_16x16", {16, 16, 5}, 103, ""},
                              {"k2_5x5", {5, 5, 2}, 104, ""}};
  for (const Conv2dSpec& s : specs) write_case(root / "conv2d" / s.name, generate_case(s));
  return load_case_set(root, "test cases");
}

Rubric test_rubric() {
  Rubric r = load_rubric(default_rubric_path());
  r.conv2d_case = {20, 24, 3};
  return r;
}

fs::path fake_lab(const fs::path& dir, const std::string& name, const std::string& fake_args) {
  fs::create_directories(dir);
  const fs::path exe = dir / name;
  // One self-contained file, like a real lab executable (a sandboxed run sees nothing else):
  // the fake's binary with its arguments appended (fake_lab.cpp reads them back).
  fs::copy_file(CONVLAB_FAKE_LAB, exe, fs::copy_options::overwrite_existing);
  std::ofstream out(exe, std::ios::binary | std::ios::app);
  const std::uint32_t size = static_cast<std::uint32_t>(fake_args.size());
  out << convlab::testing::kFakeArgsMagic << fake_args;
  out.write(reinterpret_cast<const char*>(&size), sizeof size);
  out.close();
  chmod(exe.c_str(), 0755);
  return exe;
}

GradeSettings test_settings() {
  GradeSettings s;
  s.case_timeout_s = 2;
  s.process_grace_s = 1;
  return s;
}

std::unique_ptr<GradingEnvironment> make_env(CaseSet cases, const fs::path& work, std::optional<fs::path> reference,
                                             GradeSettings settings, Rubric rubric, std::shared_ptr<HostTurns> host) {
  auto ref = [reference](const LabInfo&) { return reference; };
  return std::make_unique<GradingEnvironment>(std::move(cases), std::move(rubric), std::move(settings), work, ref, ref,
                                              std::move(host));
}

LabInfo lab01() { return {"01", "01-naive", {"naive.cu"}}; }

LabExecutable executable(const fs::path& exe) {
  LabExecutable e;
  e.exe = exe;
  return e;
}

void write_test_file(const fs::path& path, const std::string& bytes) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

GradedFake grade_fake_lab(const TempDir& tmp, const std::string& args, GradeSettings settings,
                          const std::string& reference_args) {
  const fs::path reference = fake_lab(tmp.path() / "bin", "reference", reference_args);
  const fs::path lab = fake_lab(tmp.path() / "bin", "lab", args);
  auto env = make_env(small_case_set(tmp.path() / "cases"), tmp.path() / "work", reference, settings);
  GradedFake g;
  g.lab = grade_lab(lab01(), executable(lab), *env);
  return g;
}

}  // namespace convlab::grader::testing
