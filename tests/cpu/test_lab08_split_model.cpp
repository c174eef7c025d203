// Lab 08's split-K rules (fitted_split, lab08_config.hpp) at their edges, and against the times
// they were fitted to and checked on: results/bench/nvidia-h200/lab08_step1_splits.csv (step 1's
// kernel), lab08_step1_tma_splits.csv (step 1's kernel on the TMA feed) and lab08_wgmma_splits.csv
// (steps 2, 5 and 6), each kernel alone at every split count of
// layers of few tiles on an NVIDIA H200 (132 SMs), two rounds each.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "convlab/lab08_config.hpp"

using namespace convlab;
namespace fs = std::filesystem;

namespace {

constexpr int kH200Sms = 132;

ConvLayerShape layer(int b, int c, int m, int h, int w, int k, int s, int p) {
  ConvLayerShape x;
  x.batch = b, x.channels = c, x.filters = m, x.height = h, x.width = w;
  x.mask_width = k, x.stride = s, x.padding = p, x.dilation = 1;
  return x;
}

int step1_split(const ConvLayerShape& l, int sms = kH200Sms) {
  return lab08::nhwc_split_k(l, lab08::block_m(lab08::Precision::tf32, l.filters), sms);
}
int step2_split(const ConvLayerShape& l, int sms = kH200Sms) { return lab08::split_k(l, 64, sms); }
int wgmma_split(const ConvLayerShape& l, int sms = kH200Sms) { return lab08::wgmma_plan(l, sms).splits; }

/// Step 1's modelled time of `tiles` tiles of `slices` slices in `splits` splits on an H200.
double step1_time(long long tiles, long long slices, long long splits) {
  return lab08::modelled_split_time(lab08::kStep1SplitCosts, tiles, slices, splits, kH200Sms, lab08::kMinBlocks);
}

/// One surveyed layer of one kernel: its shape, the rule's pick before the model, and the
/// fastest of its rounds at each split it was timed at.
struct Surveyed {
  ConvLayerShape shape;
  int rule_before = 0;
  std::map<int, double> ms;  // split → fastest round
};

/// The rows of `file` (beside this project's H200 results) of survey set `set` whose `filter`
/// column (if any) equals `filter_value`, by layer, in the file's order; the time is column
/// `time_column`, and a row whose time is empty (a split the step's accuracy budget refuses) is left out.
std::vector<Surveyed> survey(const std::string& file, const std::string& set, const std::string& time_column,
                             const std::string& filter = "", const std::string& filter_value = "") {
  std::ifstream in(fs::path(CONVLAB_SOURCE_DIR) / "results" / "bench" / "nvidia-h200" / file);
  REQUIRE(in);
  const auto split_line = [](const std::string& line) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    if (!line.empty() && line.back() == ',') f.emplace_back();
    return f;
  };
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split_line(line);
  const auto column = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    REQUIRE(it != header.end());
    return static_cast<size_t>(it - header.begin());
  };
  const size_t c_set = column("set"), c_layer = column("layer"), c_split = column("split"), c_ms = column(time_column);
  const size_t c_pick = std::find(header.begin(), header.end(), "least_busy_pick") != header.end()
                            ? column("least_busy_pick")
                            : column("rule_before_pick");
  const size_t c_filter = filter.empty() ? 0 : column(filter);
  std::vector<Surveyed> layers;
  std::map<std::string, size_t> index;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = split_line(line);
    REQUIRE(f.size() == header.size());
    if (f[c_set] != set || (!filter.empty() && f[c_filter] != filter_value)) continue;
    auto [it, added] = index.try_emplace(f[c_layer], layers.size());
    if (added) {
      Surveyed s;
      s.shape = layer(std::stoi(f[column("batch")]), std::stoi(f[column("channels")]), std::stoi(f[column("filters")]),
                      std::stoi(f[column("height")]), std::stoi(f[column("width")]), std::stoi(f[column("mask_width")]),
                      std::stoi(f[column("stride")]), std::stoi(f[column("padding")]));
      s.rule_before = std::stoi(f[c_pick]);
      layers.push_back(s);
    }
    if (f[c_ms].empty()) continue;
    auto& ms = layers[it->second].ms;
    const int split = std::stoi(f[c_split]);
    const double t = std::stod(f[c_ms]);
    ms[split] = ms.count(split) ? std::min(ms[split], t) : t;
  }
  return layers;
}

double fastest(const std::map<int, double>& ms) {
  double best = ms.begin()->second;
  for (const auto& [split, t] : ms) best = std::min(best, t);
  return best;
}

/// Checks a rule's picks on a survey's layers: each within `worst` of the fastest split measured,
/// their geometric mean within `mean`. Layers timed at one split only (no choice) are skipped.
/// Returns the rule before's geometric mean on the same layers, where its pick was timed.
template <typename Rule>
double check_picks(const std::vector<Surveyed>& layers, Rule rule, double worst, double mean, const std::string& what) {
  double log_sum = 0, before_log_sum = 0;
  int n = 0, before_n = 0;
  for (const Surveyed& l : layers) {
    if (l.ms.size() < 2) continue;
    const int s = rule(l.shape);
    INFO(what << ": " << l.shape.describe() << ", split " << s);
    REQUIRE(l.ms.count(s) == 1);
    const double ratio = l.ms.at(s) / fastest(l.ms);
    CHECK(ratio <= worst);
    log_sum += std::log(ratio);
    ++n;
    if (l.ms.count(l.rule_before)) before_log_sum += std::log(l.ms.at(l.rule_before) / fastest(l.ms)), ++before_n;
  }
  REQUIRE(n >= 10);
  INFO(what << ": geometric mean over " << n << " layers");
  CHECK(std::exp(log_sum / n) <= mean);
  return std::exp(before_log_sum / before_n);
}

}  // namespace

TEST_CASE("lab08 split-K: a layer whose tiles fill every block slot is not split, by any step", "[analysis][lab08]") {
  // 132 images of 8 × 16: 132 column tiles × 2 row tiles of 128 = 264 = 2 blocks on each of 132 SMs
  CHECK(step1_split(layer(132, 128, 256, 8, 16, 3, 1, 1)) == 1);
  CHECK(step1_split(layer(8, 128, 128, 128, 128, 3, 1, 1)) == 1);  // 1024 tiles
  CHECK(step2_split(layer(32, 64, 64, 56, 56, 3, 1, 1)) == 1);      // 784 tiles
  CHECK(wgmma_split(layer(198, 256, 64, 16, 16, 1, 1, 0)) == 1);    // one warpgroup: 396 tiles on 396 slots
  CHECK(wgmma_split(layer(16, 3, 64, 224, 224, 7, 2, 3)) == 1);
}

TEST_CASE("lab08 split-K keeps at least 8 slices in every part, by any step, on any GPU", "[analysis][lab08]") {
  for (const ConvLayerShape& l : {layer(1, 16, 64, 8, 8, 3, 1, 1), layer(2, 64, 256, 7, 7, 3, 1, 1),
                                  layer(4, 512, 512, 14, 14, 3, 1, 1), layer(1, 2048, 2048, 7, 7, 3, 1, 1),
                                  layer(4, 128, 96, 10, 10, 3, 1, 1)}) {
    for (const int sms : {16, 46, 80, 108, 114, 132, 144}) {
      const long long step1_slices =
          (lab08::nhwc_reduction(l) + lab08::kNhwcSliceDepth - 1) / lab08::kNhwcSliceDepth;
      const long long step2_slices = lab08::split_work(l, 64, lab08::kBlockN).slices;
      const lab08::WgmmaPlan p = lab08::wgmma_plan(l, sms);
      const long long wgmma_slices = (static_cast<long long>(l.terms_per_output()) + p.depth - 1) / p.depth;
      INFO(l.describe() << " on " << sms << " SMs");
      for (const auto& [s, slices] : {std::pair{step1_split(l, sms), step1_slices},
                                      std::pair{step2_split(l, sms), step2_slices}, std::pair{p.splits, wgmma_slices}}) {
        INFO("split " << s << " of " << slices << " slices");
        CHECK(s >= 1);
        CHECK((s == 1 || slices / s >= 8));
      }
    }
  }
}

TEST_CASE("lab08 step 1's split: one block an SM of 18 slices is chosen over two an SM of 9 each", "[analysis][lab08]") {
  // B8 C256→384 13×13: 11 column tiles × 3 row tiles = 33 tiles of 72 slices. 4 splits are 132
  // blocks, one an SM; 8 fill all 264 slots with the same 18 slices an SM, and ran 1.24× slower.
  CHECK(step1_split(layer(8, 256, 384, 13, 13, 3, 1, 1)) == 4);
  CHECK(step1_time(33, 72, 4) < step1_time(33, 72, 8));
}

TEST_CASE("lab08 step 1's split: a last round of fewer blocks than slots counts as a whole round", "[analysis][lab08]") {
  // 98 tiles (B32 C256→256 14×14): 4 splits are 392 blocks, 264 and then 128; 5 splits are 490,
  // two full rounds of shorter blocks, and ran faster.
  CHECK(step1_time(98, 72, 5) < step1_time(98, 72, 4));
  CHECK(step1_split(layer(32, 256, 256, 14, 14, 3, 1, 1)) == 5);
}

TEST_CASE("lab08 steps 5 and 6's split: a kernel of one block an SM pays its blocks' fixed cost alone, so 98 wide tiles "
          "of 45 slices run unsplit",
          "[analysis][lab08][wgmma]") {
  // B16 C80→128 28×28: 80 channels (no whole groups of 32: the wide tile), 98 tiles of two
  // warpgroups, one block an SM. Measured: 1 split 0.0459 ms, 4 splits (3 rounds) 0.0510.
  const lab08::WgmmaPlan p = lab08::wgmma_plan(layer(16, 80, 128, 28, 28, 3, 1, 1), kH200Sms);
  CHECK_FALSE(p.narrow);
  CHECK(p.blocks_per_sm == 1);
  CHECK(p.splits == 1);
  // the same tiles at two blocks an SM (the narrow tile's) would take 4: their fixed cost is shared
  CHECK(lab08::fitted_split(lab08::kSplitCosts, 98, 45, kH200Sms, 2, [](long long) { return true; }) > 1);
}

TEST_CASE("lab08 steps 5 and 6 split only where the chain keeps step 5's FP32 rule", "[analysis][lab08][wgmma]") {
  for (const ConvLayerShape& l : {layer(32, 256, 256, 14, 14, 3, 1, 1), layer(4, 512, 512, 14, 14, 3, 1, 1),
                                  layer(1, 256, 64, 395, 128, 1, 1, 0), layer(2, 96, 128, 9, 9, 1, 1, 0)}) {
    const lab08::WgmmaPlan p = lab08::wgmma_plan(l, kH200Sms);
    INFO(l.describe() << ": split " << p.splits);
    const long long kdim = l.terms_per_output();
    if (p.splits > 1) CHECK(lab08::wgmma_chain_fits(kdim, p.splits, p.depth));
  }
}

TEST_CASE("lab08 step 1's split rule picks, on every layer of the H200 survey, a split within 11 % of the fastest "
          "measured one, and 2 % in the geometric mean",
          "[analysis][lab08]") {
  for (const std::string set : {"fit", "repeat", "check"}) {
    const std::vector<Surveyed> layers = survey("lab08_step1_splits.csv", set, "loader_after_ms");
    const double before = check_picks(layers, [](const ConvLayerShape& l) { return step1_split(l); }, 1.11, 1.02,
                                      "step 1, " + set);
    CHECK(before > 1.08);  // least_busy_split, the rule it replaced, on the same layers
  }
}

TEST_CASE("lab08 step 1's TMA split rule picks, on every layer of its H200 survey, a split within 10 % of the fastest "
          "measured one and 1.5 % in the geometric mean, closer than the cp.async kernel's rule",
          "[analysis][lab08]") {
  for (const std::string set : {"fit", "check"}) {
    const std::vector<Surveyed> layers = survey("lab08_step1_tma_splits.csv", set, "ms");
    for (const Surveyed& l : layers) CHECK(lab08::step1_tma_fits(l.shape));
    const double before = check_picks(
        layers, [](const ConvLayerShape& l) { return lab08::tma_split_k(l, kH200Sms); }, 1.10, 1.015, "TMA, " + set);
    CHECK(before > 1.015);  // kStep1SplitCosts, the cp.async kernel's rule, on the same layers
  }
  // the bench's 14×14 layer: 4 splits, where the cp.async kernel takes 5
  CHECK(lab08::tma_split_k(layer(32, 256, 256, 14, 14, 3, 1, 1), kH200Sms) == 4);
  CHECK(step1_split(layer(32, 256, 256, 14, 14, 3, 1, 1)) == 5);
}

TEST_CASE("lab08 steps 2, 5 and 6's split rules pick, on every layer of the H200 survey, a split within 6 % of the "
          "fastest measured one, and 1 % in the geometric mean",
          "[analysis][lab08][wgmma]") {
  for (const std::string set : {"fit", "repeat", "check", "wide"}) {
    const auto step2 = survey("lab08_wgmma_splits.csv", set, "ms", "step", "2");
    const auto step5 = survey("lab08_wgmma_splits.csv", set, "ms", "step", "5");
    const auto step6 = survey("lab08_wgmma_splits.csv", set, "ms", "step", "6");
    const double before2 = check_picks(step2, [](const ConvLayerShape& l) { return step2_split(l); }, 1.06, 1.01,
                                       "step 2, " + set);
    const double before5 = check_picks(step5, [](const ConvLayerShape& l) { return wgmma_split(l); }, 1.06, 1.01,
                                       "step 5, " + set);
    // step 6 where its own budget holds at the plan's split (else it runs step 5: the rows above)
    std::vector<Surveyed> step6_own;
    for (const Surveyed& l : step6) {
      if (l.ms.count(wgmma_split(l.shape))) step6_own.push_back(l);
    }
    const double before6 = check_picks(step6_own, [](const ConvLayerShape& l) { return wgmma_split(l); }, 1.06, 1.01,
                                       "step 6, " + set);
    INFO(set << ": the rules before, geometric means " << before2 << ", " << before5 << ", " << before6);
    CHECK(std::max({before2, before5, before6}) > 1.03);
  }
}
