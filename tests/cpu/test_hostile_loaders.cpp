// Hostile input to the loaders: one test per way a file once got past them, each with the exact
// message the grader gives: case names and staging, a conv layer that overflowed int, a .npy
// that exhausted memory, raw or wrong messages of the loaders.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>

#include "convlab/datagen.hpp"
#include "convlab/dataset.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/npy.hpp"
#include "convlab/autotune/tuning_file.hpp"
#include "session/case_set.hpp"
#include "correctness/judge.hpp"
#include "session/rubric.hpp"
#include "grader_test_support.hpp"
#include "reports/bench_file.hpp"

using namespace convlab;
using namespace convlab::grader;
using namespace convlab::grader::testing;
namespace fs = std::filesystem;

namespace {

// A conv2d case folder whose case.json is `json` (the arrays of a 5x4 K=3 case).
fs::path conv2d_case(const fs::path& dir, const std::string& json) {
  write_case(dir, generate_case(Conv2dSpec{"k3_5x4", {5, 4, 3}, 1, ""}));
  write_test_file(dir / "case.json", json);
  return dir;
}

std::string conv2d_json(const std::string& name, const std::string& shape = R"("height": 5, "width": 4, "mask_width": 3)",
                        const std::string& extra = "") {
  return R"({"format": "convlab-case", "version": 1, "problem": "conv2d", "name": ")" + name + R"(", )" + extra +
         R"("shape": {)" + shape + "}}";
}

std::string layer_json(const std::string& shape) {
  return R"({"format": "convlab-case", "version": 1, "problem": "conv_layer", "name": "layer", "shape": {)" + shape +
         "}}";
}

// A .npy of version 1.0 with the given dict and `data_bytes` zero bytes of data.
std::string npy_bytes(const std::string& dict, std::size_t data_bytes) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string b = "\x93NUMPY";
  b += '\x01';
  b += '\x00';
  b += static_cast<char>(header.size() & 0xFF);
  b += static_cast<char>(header.size() >> 8);
  return b + header + std::string(data_bytes, '\0');
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

// ---- Finding 1: case names, and staging deletes only what it created ----

TEST_CASE("hostile: a case.json whose name is a path is refused, naming the file and the field", "[hostile][cases]") {
  TempDir tmp("hostile-name");
  const fs::path dir = conv2d_case(tmp.path() / "c", conv2d_json("../../../../x"));
  CHECK(message_of([&] { read_case_info(dir); }) ==
        (dir / "case.json").string() +
            ": field \"name\": \"../../../../x\" is not a case name: it holds '/'; a case name is one path component "
            "of letters, digits, '.', '_' and '-'");
  write_test_file(dir / "case.json", conv2d_json(".."));
  CHECK(message_of([&] { read_case_info(dir); }) ==
        (dir / "case.json").string() + ": field \"name\": \"..\" is not a case name: it is \"..\", a folder reference");
  write_test_file(dir / "case.json", conv2d_json(""));
  CHECK(message_of([&] { read_case_info(dir); }) ==
        (dir / "case.json").string() + ": field \"name\": \"\" is not a case name: it is empty");
  write_test_file(dir / "case.json", conv2d_json("ok-name_1.5"));
  CHECK(read_case_info(dir).name == "ok-name_1.5");
}

TEST_CASE("hostile: two cases of one name in a set are refused, naming both", "[hostile][cases]") {
  TempDir tmp("hostile-dup");
  const fs::path a = conv2d_case(tmp.path() / "a", conv2d_json("same"));
  const fs::path b = conv2d_case(tmp.path() / "b", conv2d_json("same"));
  CHECK(message_of([&] { load_case_set(tmp.path(), "test"); }) ==
        (b / "case.json").string() + ": field \"name\": \"same\" is also the name of the case in " + a.string());
}

TEST_CASE("hostile: staging deletes nothing outside its work folder, nor a folder it did not create",
          "[hostile][cases]") {
  TempDir tmp("hostile-stage");
  const fs::path dir = conv2d_case(tmp.path() / "case", conv2d_json("good"));
  GradingCase c{read_case_info(dir), dir};
  const fs::path victim = tmp.path() / "victim";
  fs::create_directories(victim);
  write_test_file(victim / "keep.txt", "mine");
  const fs::path work = tmp.path() / "work";

  // A name that got past read_case_info some other way still never reaches remove_all.
  c.info.name = "../../victim";
  CHECK(message_of([&] { stage_inputs(c, work); }) ==
        (dir / "case.json").string() +
            ": field \"name\": \"../../victim\" is not a case name: it holds '/'; a case name is one path component "
            "of letters, digits, '.', '_' and '-'; not staged");
  CHECK(fs::exists(victim / "keep.txt"));

  // A folder already there (a second case of one name) is kept, not replaced.
  c.info.name = "good";
  const fs::path first = stage_inputs(c, work);
  write_test_file(first / "marker", "first");
  CHECK(message_of([&] { stage_inputs(c, work); }) ==
        (dir / "case.json").string() + ": " + first.string() +
            " is staged already (two cases named \"good\"?); not staged again");
  CHECK(fs::exists(first / "marker"));
}

// ---- Finding 3: a conv layer that overflowed int ----

TEST_CASE("hostile: a conv layer whose dilated mask overflows int is refused with the limit named", "[hostile][shapes]") {
  ConvLayerShape s;
  s.height = 9;
  s.width = 9;
  s.mask_width = 17;
  s.dilation = 1 << 28;
  CHECK(message_of([&] { s.validate(); }) == "conv layer: dilation 268435456 is above the limit of 65536");
  s.dilation = 65536;  // within the limit: the extent 1,048,577 is computed in 64 bits
  CHECK(message_of([&] { s.validate(); }) ==
        "conv layer: the dilated 17x17 mask (extent 1048577) does not fit the padded 9x9 input");
  ConvLayerShape big;
  big.batch = 65536;
  big.channels = 65536;
  big.height = 1;
  big.width = 1;
  CHECK(message_of([&] { big.validate(); }) ==
        "conv layer: the input 65536x65536x1x1 holds more than 2147483647 elements, the limit");

  TempDir tmp("hostile-dilation");
  const fs::path dir = tmp.path() / "layer";
  fs::create_directories(dir);
  write_test_file(dir / "case.json",
             layer_json(R"("batch": 1, "channels": 1, "filters": 1, "height": 9, "width": 9, "mask_width": 17, )"
                        R"("dilation": 268435456)"));
  CHECK(message_of([&] { read_case_info(dir); }) ==
        (dir / "case.json").string() +
            ": field \"shape.dilation\" is 268435456, above the limit of 65536 (docs/design.md, Limits)");
}

TEST_CASE("hostile: a conv2d height of 2^32+37 is refused, not read as 37", "[hostile][shapes]") {
  TempDir tmp("hostile-height");
  const fs::path dir =
      conv2d_case(tmp.path() / "c", conv2d_json("c", R"("height": 4294967333, "width": 4, "mask_width": 3)"));
  CHECK(message_of([&] { read_case_info(dir); }) ==
        (dir / "case.json").string() +
            ": field \"shape.height\" is 4294967333, above the limit of 65536 (docs/design.md, Limits)");
  Conv2dShape s{65536, 65536, 3};
  CHECK(message_of([&] { s.validate(); }) ==
        "conv2d: the image 65536x65536 holds more than 2147483647 elements, the limit");
}

// ---- Finding 4: a .npy that claims more than it holds ----

TEST_CASE("hostile: a 128-byte .npy claiming 4 GB is refused by the file's size, before anything is allocated",
          "[hostile][npy]") {
  TempDir tmp("hostile-npy-claim");
  const fs::path f = tmp.path() / "claim.npy";
  write_test_file(f, npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1073741824,), }", 0));
  REQUIRE(fs::file_size(f) == 128);
  const auto start = std::chrono::steady_clock::now();
  CHECK(message_of([&] { read_npy_f32(f); }) ==
        f.string() + ": truncated: shape (1073741824,) needs 4294967296 data bytes, the file has 0");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
}

TEST_CASE("hostile: a .npy of shape (2**32, 2**32) is refused, not loaded as empty", "[hostile][npy]") {
  TempDir tmp("hostile-npy-wrap");
  const fs::path f = tmp.path() / "wrap.npy";
  write_test_file(f, npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", 0));
  CHECK(message_of([&] { read_npy_f32(f); }) ==
        f.string() +
            ": shape (4294967296, 4294967296) holds the dimension 4294967296, above the limit of 2147483647 elements");
  write_test_file(f, npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (65536, 65536), }", 0));
  CHECK(message_of([&] { read_npy_f32(f); }) ==
        f.string() + ": shape (65536, 65536) holds more than 2147483647 elements, the limit");
  // Digits no stoull could hold: still the loader's own error, naming the file.
  write_test_file(f, npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }", 0));
  CHECK(message_of([&] { read_npy_f32(f); }) ==
        f.string() +
            ": shape (99999999999999999999999,) holds the dimension 99999999999999999999999, above the limit of "
            "2147483647 elements");
}

TEST_CASE("hostile: a child's output larger than expected is refused by its size before it is read",
          "[hostile][npy]") {
  TempDir tmp("hostile-output");
  const fs::path out = tmp.path() / "out.npy";
  write_npy(out, Tensor<float>({1000, 1000}));  // 128-byte header + 4,000,000 bytes
  Expectation e;
  e.expected = Tensor<double>({2, 2});
  e.abs_sum = Tensor<double>({2, 2});
  e.terms = 1;
  const Judgement j = judge_output(out, e, Tolerance::fp32());
  CHECK_FALSE(j.pass);
  // 2×2 float32 = 16 bytes, + 16 + the 65,536-byte longest header.
  CHECK(j.message == "unreadable output: " + out.string() + ": is 4000128 bytes, above the limit of 65568 bytes");
}

// ---- Finding 8, the loaders: file, field and reason; no raw json or filebuf messages ----

TEST_CASE("hostile: a case.json field of the wrong JSON type names the file and the field", "[hostile][loaders]") {
  TempDir tmp("hostile-types");
  const fs::path dir = conv2d_case(tmp.path() / "c", conv2d_json("c", R"("height": 5, "width": 4, "mask_width": 3)",
                                                                  R"("description": 5, )"));
  CHECK(message_of([&] { read_case_info(dir); }) ==
        (dir / "case.json").string() + ": field \"description\" must be a string, got 5");
  write_test_file(dir / "case.json", R"({"format": 7, "version": 1})");
  CHECK(message_of([&] { read_case_info(dir); }) ==
        (dir / "case.json").string() + ": field \"format\" must be a string, got 7");
  write_test_file(dir / "case.json", conv2d_json("c", R"("height": 5, "width": 4, "mask_width": 3)", R"("seed": -1, )"));
  CHECK(message_of([&] { read_case_info(dir); }) ==
        (dir / "case.json").string() + ": field \"seed\" must be a non-negative integer, got -1");
  write_test_file(dir / "case.json", conv2d_json("c", R"("height": 5.5, "width": 4, "mask_width": 3)"));
  CHECK(message_of([&] { read_case_info(dir); }) ==
        (dir / "case.json").string() + ": field \"shape.height\" must be an integer, got 5.5");
}

TEST_CASE("hostile: a folder or a FIFO in place of a file is refused by name, not read or waited on",
          "[hostile][loaders]") {
  TempDir tmp("hostile-not-file");
  const fs::path dir = tmp.path() / "c";
  fs::create_directories(dir / "case.json");
  CHECK(message_of([&] { read_case_info(dir); }) == (dir / "case.json").string() + ": is a folder, not a file");
  CHECK(message_of([&] { read_npy_f32(dir / "case.json"); }) == (dir / "case.json").string() + ": is a folder, not a file");

  const fs::path fifo_dir = tmp.path() / "f";
  fs::create_directories(fifo_dir);
  REQUIRE(mkfifo((fifo_dir / "case.json").c_str(), 0600) == 0);
  CHECK(message_of([&] { read_case_info(fifo_dir); }) == (fifo_dir / "case.json").string() + ": is a FIFO, not a file");
  CHECK(message_of([&] { load_rubric(fifo_dir / "case.json"); }) ==
        "rubric " + (fifo_dir / "case.json").string() + ": is a FIFO, not a file");
  CHECK(message_of([&] { lab07::read_tuning_file(fifo_dir / "case.json"); }) ==
        (fifo_dir / "case.json").string() + ": is a FIFO, not a file");
  CHECK(message_of([&] { read_bench_file(fifo_dir / "case.json"); }) ==
        (fifo_dir / "case.json").string() + ": is a FIFO, not a file");
  CHECK(message_of([&] { read_file(fifo_dir / "case.json", 10); }) ==
        (fifo_dir / "case.json").string() + ": is a FIFO, not a file");
}

TEST_CASE("hostile: a file above a loader's size limit is refused by its size", "[hostile][loaders]") {
  TempDir tmp("hostile-size");
  write_test_file(tmp.path() / "big.json", std::string(11, ' '));
  CHECK(message_of([&] { read_file(tmp.path() / "big.json", 10); }) ==
        (tmp.path() / "big.json").string() + ": is 11 bytes, above the limit of 10 bytes");
}

TEST_CASE("hostile: one unreadable folder of a dataset root is reported and passed over", "[hostile][loaders]") {
  TempDir tmp("hostile-unreadable");
  conv2d_case(tmp.path() / "a" / "one", conv2d_json("one"));
  conv2d_case(tmp.path() / "z" / "two", conv2d_json("two"));
  const fs::path locked = tmp.path() / "locked";
  fs::create_directories(locked / "three");
  REQUIRE(chmod(locked.c_str(), 0) == 0);
  std::vector<std::string> skipped;
  const auto cases = find_cases(tmp.path(), &skipped);
  chmod(locked.c_str(), 0700);
  CHECK(cases == std::vector<fs::path>{tmp.path() / "a" / "one", tmp.path() / "z" / "two"});
  if (geteuid() == 0) {
    WARN("running as root, which reads any folder: the skip itself is not exercised here");
  } else {
    CHECK(skipped == std::vector<std::string>{locked.string() + ": skipped: Permission denied"});
  }
}

TEST_CASE("hostile: a tuning file's mask width of 2^32+5 is refused, not read as 5", "[hostile][loaders]") {
  TempDir tmp("hostile-tuning");
  const fs::path f = tmp.path() / "t.json";
  write_test_file(f, R"({"format": "convlab-lab07-tuning", "version": 1, "device": "x", "best": [{"mask_width": 4294967301,
    "outputs_x": 1, "outputs_y": 1, "block_x": 32, "block_y": 1, "input": "global", "filter": "constant"}]})");
  CHECK(message_of([&] { lab07::read_tuning_file(f); }) ==
        f.string() + ": best[0]: \"mask_width\" is 4294967301, outside -1000000..1000000");
  write_test_file(f, R"({"format": 5, "version": 1})");
  CHECK(message_of([&] { lab07::read_tuning_file(f); }) ==
        f.string() + ": \"format\" is not \"convlab-lab07-tuning\"");
}

TEST_CASE("hostile: a bench.json field of the wrong type or range names the file and the field", "[hostile][loaders]") {
  TempDir tmp("hostile-bench");
  const fs::path f = tmp.path() / "bench.json";
  write_test_file(f, R"({"format": "convlab-bench", "version": 1, "device": {"name": "x", "sms": "many"}})");
  CHECK(message_of([&] { read_bench_file(f); }) == f.string() + ": field \"device.sms\": must be an integer, got \"many\"");
  write_test_file(f, R"({"format": "convlab-bench", "version": 1, "ceilings": {}, "conv2d": {"results": [
    {"method": "m", "height": 4294967333, "width": 4, "mask_width": 3}]}})");
  CHECK(message_of([&] { read_bench_file(f); }) ==
        f.string() + ": field \"conv2d.results[0].height\": is 4294967333, outside 1..65536");
  write_test_file(f, R"({"format": "convlab-bench", "version": 1, "conv2d": {"results": 3}})");
  CHECK(message_of([&] { read_bench_file(f); }) == f.string() + ": field \"conv2d.results\": must be an array, got 3");
}
