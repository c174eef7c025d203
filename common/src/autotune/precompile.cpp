#include "convlab/autotune/precompile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <future>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>

#include "convlab/autotune/compile_pool.hpp"
#include "convlab/autotune/search_space.hpp"

namespace convlab::lab07 {
namespace fs = std::filesystem;

std::vector<KernelVariant> launcher_jit_instantiations(const std::vector<int>& widths,
                                                       const std::vector<int>& not_written) {
  const std::set<int> unwritten(not_written.begin(), not_written.end());
  std::vector<KernelVariant> out;
  std::set<std::string> names;
  for (const int k : widths) {
    const TileConfig* best = default_config(k);
    if (best == nullptr) throw std::invalid_argument(fmt::format("lab 07 does not take mask width {}", k));
    for (const KernelVariant& v : lab_instantiations(*best, {})) {
      const std::array<int, 3> steps = steps_of(v.config);
      const bool runs = std::none_of(steps.begin(), steps.end(), [&](int s) { return unwritten.count(s) > 0; });
      if (runs && !compiled_in(v.config) && names.insert(kernel_name(v)).second) out.push_back(v);
    }
  }
  return out;
}

std::vector<KernelVariant> graded_instantiations(const std::vector<GradedShape>& shapes,
                                                 const std::vector<int>& not_written) {
  const std::set<int> unwritten(not_written.begin(), not_written.end());
  std::vector<KernelVariant> out;
  std::set<std::string> names;
  for (const GradedShape& shape : shapes) {
    const TileConfig* best = default_config(shape.mask_width);
    if (best == nullptr) continue;
    // The launcher's roles: "" is register_tiled's own choice, the others force a path on it.
    for (const char* role : {"", "loaded", "shfl", "constant", "shared"}) {
      const TileConfig c = *role != '\0' ? force_path(*best, role) : *best;
      const std::array<int, 3> steps = steps_of(c);
      if (compiled_in(c) || std::any_of(steps.begin(), steps.end(), [&](int s) { return unwritten.count(s) > 0; })) {
        continue;
      }
      const int vw = c.vector_width();
      const KernelVariant v{c, vw > 1 && shape.width % vw == 0, false};  // jit.hpp: vector_path_ok
      if (names.insert(kernel_name(v)).second) out.push_back(v);
    }
  }
  return out;
}

std::vector<GradedShape> parse_graded_shapes(const std::string& text) {
  std::vector<GradedShape> out;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const auto colon = item.find(':');
    const auto digits = [](const std::string& s) {
      return !s.empty() && s.size() <= 6 &&
             std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
    };
    if (colon == std::string::npos || !digits(item.substr(0, colon)) || !digits(item.substr(colon + 1))) {
      throw std::invalid_argument(fmt::format("'{}' is not MASK:WIDTH (e.g. 5:2048)", item));
    }
    out.push_back({std::stoi(item.substr(0, colon)), std::stoi(item.substr(colon + 1))});
  }
  return out;
}

std::vector<ComputeCapability> real_architectures(const std::string& cmake_list) {
  std::vector<ComputeCapability> out;
  std::istringstream in(cmake_list);
  for (std::string item; std::getline(in, item, ';');) {
    if (item.empty() || item == "native" || item == "all" || item == "all-major") continue;
    std::string digits = item.substr(0, item.find('-'));               // "90-real" -> "90"
    while (!digits.empty() && std::isalpha(static_cast<unsigned char>(digits.back()))) digits.pop_back();  // "90a"
    const bool number = digits.size() >= 2 && digits.size() <= 3 &&
                        std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (!number) throw std::invalid_argument(fmt::format("'{}' is not a CUDA architecture (e.g. 90, 80-real)", item));
    const int n = std::stoi(digits);
    const ComputeCapability cc{n / 10, n % 10};
    if (std::find(out.begin(), out.end(), cc) == out.end()) out.push_back(cc);
  }
  return out;
}

PrecompileReport precompile(const KernelSource& source, const std::vector<KernelVariant>& variants,
                            const std::vector<ComputeCapability>& targets, const fs::path& out, int threads) {
  const auto t0 = std::chrono::steady_clock::now();
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot make {}: {}", out.string(), ec.message()));

  PrecompileReport report;
  std::vector<std::unique_ptr<CompilePool>> pools;
  struct Pending {
    const KernelVariant* v;
    ComputeCapability cc;
    std::shared_future<CompileResult> result;
  };
  std::vector<Pending> pending;
  for (const ComputeCapability& cc : targets) {
    pools.push_back(std::make_unique<CompilePool>(threads, source.text, cc.first, cc.second, out));
    // The longest compilations (the widest masks) first, so that no thread is left with one.
    for (auto it = variants.rbegin(); it != variants.rend(); ++it) pending.push_back({&*it, cc, pools.back()->submit(*it)});
  }
  std::set<std::string> kept;
  for (const Pending& p : pending) {
    const CompileResult& r = p.result.get();
    if (r.cubin) {
      ++report.compiled;
      report.reused += r.cubin->from_cache ? 1 : 0;
      kept.insert(r.cubin->cache_name);
      continue;
    }
    const std::string first = r.error.substr(0, r.error.find('\n'));
    report.failures.push_back(fmt::format("sm_{}{} {}: {}", p.cc.first, p.cc.second, kernel_name(*p.v), first));
  }
  // What an older kernel left (its source text is in every key) would only take space.
  std::vector<fs::path> stale;
  for (fs::directory_iterator it(out, ec), end; !ec && it != end; it.increment(ec)) {
    if (!kept.count(it->path().stem().string())) stale.push_back(it->path());
  }
  for (const fs::path& p : stale) fs::remove_all(p, ec);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace convlab::lab07
