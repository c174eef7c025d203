// A seeded fuzzer over every loader and the staging step: the public cases, the
// rubric, a tuning file and a bench.json, mutated (npy headers, dicts, shapes, dtypes,
// truncation, JSON types, ranges, names, values nested near and past the depth limit, a folder
// or a FIFO for a file) and fed to the loaders.
// Each input may be refused, but only with the loaders' own named error (convlab::LoadError and
// the errors derived from it); anything else (json::type_error, std::length_error, a bad_alloc,
// filesystem_error) fails the test, and so does staging outside its work folder.
//
// CONVLAB_FUZZ_SEED and CONVLAB_FUZZ_INPUTS change the seed (21) and the count (5000). The
// minute it must finish in is checked in the plain build only: the asan preset's
// instrumentation makes it several times slower.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>

#include "convlab/autotune/tuning_file.hpp"
#include "convlab/dataset.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/npy.hpp"
#include "session/case_set.hpp"
#include "session/rubric.hpp"
#include "grader_test_support.hpp"
#include "reports/bench_file.hpp"
#include "reports/bench_report.hpp"
#include "test_paths.hpp"

using namespace convlab;
using namespace convlab::grader;
namespace fs = std::filesystem;
using convlab::grader::testing::write_test_file;
using nlohmann::json;

namespace {

using Files = std::map<std::string, std::string>;  // file name -> bytes

struct Source {
  std::string problem;
  Files files;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class Mutator {
 public:
  explicit Mutator(std::uint64_t seed) : rng_(seed) {}

  std::size_t below(std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }
  bool chance(int one_in) { return below(static_cast<std::size_t>(one_in)) == 0; }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }

  // A JSON value of any type, most of them at an edge of some range, some nested deep.
  json value() {
    switch (below(26)) {
      case 0: return nullptr;
      case 1: return true;
      case 2: return "text";
      case 3: return -1;
      case 4: return 0;
      case 5: return 1;
      case 6: return 2147483647;
      case 7: return 2147483648LL;
      case 8: return 4294967296LL + 37;
      case 9: return std::numeric_limits<std::int64_t>::max();
      case 10: return std::numeric_limits<std::uint64_t>::max();
      case 11: return std::numeric_limits<std::int64_t>::min();
      case 12: return 1.5;
      case 13: return 1e300;
      case 14: return json::array();
      case 15: return json::object();
      case 16: return "../../x";
      case 17: return 17;
      case 18: return 18;
      case 19: return 268435456;
      case 20: return 65536;
      case 21: return 65537;
      case 22: return -2147483648LL;
      case 24:
      case 25: return nested();
      default: return static_cast<std::int64_t>(below(40)) - 3;
    }
  }

  // Arrays and objects inside each other around a leaf, at a depth near the limit the loaders
  // take (kMaxJsonDepth, 64) or far past it: the error message of a value nested that deep once
  // overflowed the stack as it printed the value.
  json nested() {
    static const std::vector<int> depths = {2, 8, 62, 63, 64, 65, 66, 200, 1000};
    json j = below(2) ? json("leaf") : json(below(100));
    for (int d = pick(depths); d > 0; --d) j = below(2) ? json::array({std::move(j)}) : json{{"k", std::move(j)}};
    return j;
  }

  std::string name() {
    static const std::vector<std::string> names = {
        "../../x", "/tmp/x", "/", ".", "..", "", "a/b", "a\\b", std::string(200, 'n'), "ok_name", "dup", "é",
        "a b", "-", ".hidden", "k3_7x7", std::string("nul\0byte", 8), "x\ny"};
    return pick(names);
  }

  // One mutation of a JSON document, anywhere in its tree.
  void mutate_json(json& doc) {
    std::vector<json*> nodes;
    collect(doc, nodes);
    json* node = nodes[below(nodes.size())];
    switch (below(4)) {
      case 0:
        if (node->is_object() && !node->empty()) {
          auto it = node->begin();
          std::advance(it, static_cast<long>(below(node->size())));
          const std::string key = it.key();
          node->erase(key);
          return;
        }
        [[fallthrough]];
      case 1:
        if (node->is_array() && !node->empty()) {
          node->erase(below(node->size()));
          return;
        }
        [[fallthrough]];
      default:
        *node = value();
    }
  }

  // A case.json: fields of the shape, the name, the problem, or any node.
  std::string mutate_case_json(const std::string& text) {
    json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {  // cut short by an earlier mutation: damage its bytes further
      std::string b = text;
      if (!b.empty()) b[below(b.size())] = static_cast<char>(below(256));
      return b;
    }
    const int n = 1 + static_cast<int>(below(3));
    for (int i = 0; i < n; ++i) {
      if (!j.is_object()) {  // the whole document replaced by an earlier mutation
        mutate_json(j);
        continue;
      }
      switch (below(6)) {
        case 0: j["name"] = name(); break;
        case 1: j["problem"] = j["problem"] == "conv2d" ? "conv_layer" : "conv2d"; break;
        case 2: {
          static const std::vector<std::string> keys = {"height", "width", "mask_width", "batch", "channels",
                                                        "filters", "stride", "padding", "dilation"};
          if (j.contains("shape") && j["shape"].is_object()) j["shape"][pick(keys)] = value();
          break;
        }
        case 3: j[pick(std::vector<std::string>{"format", "version", "seed", "description", "shape"})] = value(); break;
        default: mutate_json(j);
      }
    }
    std::string out = j.dump(below(2) ? 2 : -1);
    if (chance(8)) out = out.substr(0, below(out.size()));
    return out;
  }

  // A .npy: its header (version, length, dict: descr, fortran_order, shape) or its bytes.
  std::string mutate_npy(std::string b) {
    switch (below(8)) {
      case 0:
        if (b.size() > 7) b[6] = static_cast<char>(pick(std::vector<int>{0, 1, 2, 3, 4, 255}));
        return b;
      case 1:
        if (b.size() > 9) {
          b[8] = static_cast<char>(below(256));
          b[9] = static_cast<char>(below(256));
        }
        return b;
      case 2: return replace_in_dict(b, "'descr': '<f4'", "'descr': '" + pick(std::vector<std::string>{"<f8", ">f4", "<i4", "|u1", "<f2", "", "x"}) + "'");
      case 3: return replace_in_dict(b, "False", pick(std::vector<std::string>{"True", "maybe", "", "0"}));
      case 4: return replace_shape(b);
      case 5: return b.substr(0, below(b.size()));
      case 6: return b + std::string(1 + below(64), '\x7f');
      default:
        for (int i = 0; i < 1 + static_cast<int>(below(8)); ++i) {
          if (!b.empty()) b[below(std::min<std::size_t>(b.size(), 140))] = static_cast<char>(below(256));
        }
        return b;
    }
  }

 private:
  static void collect(json& j, std::vector<json*>& out) {
    out.push_back(&j);
    if (j.is_structured()) {
      for (auto& child : j) collect(child, out);
    }
  }

  // Replaces text inside the header, keeping the header's length field right (so that the
  // dict, not the framing, is what is tested).
  std::string replace_in_dict(const std::string& b, const std::string& from, const std::string& to) {
    if (b.size() < 10 || b[6] != 1) return b;
    const std::size_t len = static_cast<unsigned char>(b[8]) | (static_cast<unsigned char>(b[9]) << 8);
    std::string dict = b.substr(10, len);
    std::string data = b.size() > 10 + len ? b.substr(10 + len) : std::string();
    std::size_t at = dict.find(from);
    if (at == std::string::npos) at = dict.find(from == "'descr': '<f4'" ? "'descr': '<f8'" : from);
    if (at == std::string::npos) return b;
    dict.replace(at, from.size(), to);
    if (dict.size() > 65535) return b;
    std::string out = b.substr(0, 8);
    out += static_cast<char>(dict.size() & 0xFF);
    out += static_cast<char>(dict.size() >> 8);
    return out + dict + data;
  }

  std::string replace_shape(const std::string& b) {
    if (b.size() < 10) return b;
    const std::size_t len = static_cast<unsigned char>(b[8]) | (static_cast<unsigned char>(b[9]) << 8);
    const std::string dict = b.substr(10, std::min(len, b.size() - 10));
    const std::size_t open = dict.find("'shape': (");
    const std::size_t close = dict.find(')', open);
    if (open == std::string::npos || close == std::string::npos) return b;
    static const std::vector<std::string> dims = {"0", "1", "2", "3", "7", "2147483647", "2147483648", "4294967296",
                                                  "9223372036854775808", "18446744073709551616",
                                                  "99999999999999999999999", "-1", "a", "", "3L", " 5 "};
    std::string shape = "(";
    const std::size_t rank = below(11);
    for (std::size_t i = 0; i < rank; ++i) shape += pick(dims) + (i + 1 < rank || rank == 1 ? ", " : "");
    shape += ")";
    const std::string old_shape = dict.substr(open + 9, close - open - 8);
    return replace_in_dict(b, old_shape, shape);
  }

  std::mt19937_64 rng_;
};

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v ? std::strtoull(v, nullptr, 10) : fallback;
}

}  // namespace

TEST_CASE("fuzz: mutated cases, rubrics, tuning files and bench.json meet only the loaders' own errors",
          "[fuzz][loaders]") {
  const std::uint64_t seed = env_or("CONVLAB_FUZZ_SEED", 21);
  const std::uint64_t inputs = env_or("CONVLAB_FUZZ_INPUTS", 5000);
  INFO("seed " << seed);

  std::vector<Source> sources;
  for (const fs::path& dir : find_cases(convlab::testing::kDatasets)) {
    Source s{dir.parent_path().filename().string(), {}};
    for (const auto& e : fs::directory_iterator(dir)) s.files[e.path().filename().string()] = slurp(e.path());
    sources.push_back(std::move(s));
  }
  REQUIRE(sources.size() >= 30);
  const fs::path source_dir = convlab::testing::kDatasets.parent_path();
  const std::string rubric = slurp(source_dir / "grader" / "rubric.json");
  const std::string tuning = slurp(source_dir / "results" / "tune" / "nvidia-h200" / "lab07-nvidia-h200.json");
  // A committed bench.json, cut down so that the report's quadratic lookups stay fast.
  json bench = json::parse(slurp(source_dir / "results" / "bench" / "nvidia-h100-80gb-hbm3" / "bench.json"));
  auto trim = [](json& a, std::size_t n) {
    if (a.is_array() && a.size() > n) a.erase(a.begin() + static_cast<long>(n), a.end());
  };
  trim(bench["conv2d"]["results"], 40);
  if (bench["sweep"].contains("rows")) trim(bench["sweep"]["rows"], 8);
  if (bench["layers"].contains("layers")) trim(bench["layers"]["layers"], 2);
  REQUIRE_NOTHROW(check_bench_json(bench, "committed bench.json"));
  const std::string bench_text = bench.dump();

  // Thousands of small files: in memory (/dev/shm) where there is one, so that the disk's
  // latency on a busy machine does not decide the time.
  struct Scratch {
    fs::path root;
    fs::path path() const { return root; }
    ~Scratch() {
      std::error_code ec;
      fs::remove_all(root, ec);
    }
  } tmp{(fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path()) /
        fmt::format("convlab-fuzz-loaders-{}", getpid())};
  fs::remove_all(tmp.root);
  fs::create_directories(tmp.root);
  const fs::path outside = tmp.path() / "outside";
  fs::create_directories(outside);
  write_test_file(outside / "keep", "staging must never delete this");

  Mutator m(seed);
  std::vector<std::string> failures;
  std::map<std::string, int> refused;  // loader -> inputs it refused (each with its named error)
  std::uint64_t accepted_cases = 0;
  auto guarded = [&](const std::string& what, const std::string& input, const std::function<void()>& f) {
    try {
      f();
      return true;
    } catch (const LoadError&) {
      ++refused[what];
    } catch (const std::exception& e) {
      if (failures.size() < 20) failures.push_back(fmt::format("{} on {}: {}", what, input, e.what()));
    }
    return false;
  };

  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t i = 0; i < inputs; ++i) {
    const fs::path root = tmp.path() / fmt::format("in{}", i % 4);
    fs::remove_all(root);
    const std::string input = fmt::format("input {} (seed {})", i, seed);
    const std::size_t kind = m.below(20);
    if (kind == 0) {  // the rubric
      json j = json::parse(rubric);
      for (int k = 0; k < 1 + static_cast<int>(m.below(3)); ++k) m.mutate_json(j);
      fs::create_directories(root);
      write_test_file(root / "rubric.json", m.chance(10) ? j.dump().substr(0, m.below(j.dump().size())) : j.dump());
      guarded("load_rubric", input, [&] { (void)load_rubric(root / "rubric.json"); });
      continue;
    }
    if (kind == 1) {  // a tuning file
      json j = json::parse(tuning);
      for (int k = 0; k < 1 + static_cast<int>(m.below(3)); ++k) m.mutate_json(j);
      fs::create_directories(root);
      write_test_file(root / "tuning.json", j.dump());
      guarded("read_tuning_file", input, [&] {
        const lab07::TuningTable t = lab07::read_tuning_file(root / "tuning.json");
        for (int k = 2; k <= 7; ++k) (void)lab07::config_for_role(&t, k, "");
      });
      continue;
    }
    if (kind == 2) {  // bench.json, and the report drawn from it once it is accepted
      json j = json::parse(bench_text);
      for (int k = 0; k < 1 + static_cast<int>(m.below(3)); ++k) m.mutate_json(j);
      fs::create_directories(root);
      write_test_file(root / "bench.json", j.dump());
      guarded("read_bench_file", input, [&] {
        const json b = read_bench_file(root / "bench.json");
        // Past the check, the report must not meet a field it cannot use.
        try {
          (void)bench_markdown(b);
          if (b.contains("conv2d") && b["conv2d"].contains("results")) (void)bench_summary_markdown(b);
        } catch (const std::exception& e) {
          throw std::logic_error(fmt::format("bench_markdown after the check: {}", e.what()));
        }
      });
      continue;
    }

    // A case: 1 to 3 mutations of its case.json and arrays.
    const Source& src = m.pick(sources);
    Files files = src.files;
    const int n = 1 + static_cast<int>(m.below(3));
    for (int k = 0; k < n; ++k) {
      const std::size_t which = m.below(files.size());
      auto it = files.begin();
      std::advance(it, static_cast<long>(which));
      if (it->first == "case.json") {
        it->second = m.mutate_case_json(it->second);
      } else {
        it->second = m.mutate_npy(it->second);
      }
    }
    const fs::path dir = root / src.problem / "case";
    fs::create_directories(dir);
    for (const auto& [file, bytes] : files) write_test_file(dir / file, bytes);
    if (m.chance(40)) {  // a folder or a FIFO where a file should be
      const std::string victim = std::next(files.begin(), static_cast<long>(m.below(files.size())))->first;
      fs::remove(dir / victim);
      if (m.chance(2)) {
        fs::create_directories(dir / victim);
      } else {
        REQUIRE(mkfifo((dir / victim).c_str(), 0600) == 0);
      }
    }
    if (m.chance(10)) {  // a second case of the same name
      fs::create_directories(root / src.problem / "twin");
      for (const auto& [file, bytes] : src.files) write_test_file(root / src.problem / "twin" / file, bytes);
    }

    std::optional<CaseInfo> info;
    guarded("read_case_info", input, [&] { info = read_case_info(dir); });
    guarded("load_conv2d_case", input, [&] { (void)load_conv2d_case(dir, true); });
    guarded("load_conv_layer_case", input, [&] { (void)load_conv_layer_case(dir, true); });
    for (const auto& [file, bytes] : files) {
      if (file.size() < 4 || file.substr(file.size() - 4) != ".npy") continue;
      guarded("read_npy_f32", input, [&] { (void)read_npy_f32(dir / file); });
      guarded("read_npy_f64", input, [&] { (void)read_npy_f64(dir / file); });
    }
    guarded("load_case_set", input, [&] { (void)load_case_set(root, "fuzz"); });
    if (!info) continue;
    ++accepted_cases;
    const fs::path work = root / "work";
    guarded("stage_inputs", input, [&] {
      const GradingCase c{*info, dir};
      const fs::path staged = stage_inputs(c, work);
      const fs::path rel = fs::weakly_canonical(staged).lexically_relative(fs::weakly_canonical(work));
      if (rel.empty() || *rel.begin() == "..") throw std::logic_error("staged outside the work folder: " + staged.string());
      // The grader's reference on what it staged (the case that crashed the grader's process).
      const GradingCase staged_case{read_case_info(staged), staged};
      const std::size_t terms = info->problem == Problem::conv2d ? info->conv2d.terms_per_output()
                                                                  : info->layer.terms_per_output();
      if (staged_case.outputs() * terms < 4'000'000) {
        ExpectationCache cache;
        (void)cache.get(staged_case);
      }
    });
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::string summary;
  for (const auto& [what, count] : refused) summary += fmt::format("{} refused {}; ", what, count);
  WARN(fmt::format("{} inputs in {:.1f} s; {} case.json accepted; {}", inputs, seconds, accepted_cases, summary));
  for (const std::string& f : failures) UNSCOPED_INFO(f);
  CHECK(failures.empty());
  CHECK(fs::exists(outside / "keep"));
  CHECK(inputs >= 5000);
  // Every loader met both kinds of input: some refused, some (the case loaders) accepted.
  CHECK(refused["read_npy_f32"] > 100);
  CHECK(refused["read_case_info"] > 100);
  CHECK(refused["read_bench_file"] > 10);
  CHECK(refused["read_tuning_file"] > 10);
  CHECK(refused["load_rubric"] > 10);
  CHECK(accepted_cases > 100);
#ifndef CONVLAB_SANITIZED
  CHECK(seconds < 60);
#endif
}
