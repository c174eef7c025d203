// Step 1's split rule (nhwc_split_k, lab08_config.hpp) against the times it was fitted to and
// checked on: results/bench/nvidia-h200/lab08_step1_splits.csv, step 1's kernel alone at every
// split count of 31 layers of few tiles on an NVIDIA H200 (132 SMs), two rounds each.
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

ConvLayerShape layer(int b, int c, int m, int h, int w, int k, int s, int p) {
  ConvLayerShape x;
  x.batch = b, x.channels = c, x.filters = m, x.height = h, x.width = w;
  x.mask_width = k, x.stride = s, x.padding = p, x.dilation = 1;
  return x;
}

int step1_split(const ConvLayerShape& l, int sms) {
  return lab08::nhwc_split_k(l, lab08::block_m(lab08::Precision::tf32, l.filters), sms);
}

/// One surveyed layer: its shape, and the fastest of its rounds at each split, for the kernel with
/// the loader as committed after the survey.
struct SurveyedLayer {
  ConvLayerShape shape;
  int least_busy_pick = 0;
  std::map<int, double> ms;  // split → fastest round
};

/// The survey's layers of one set ("fit", "repeat" or "check"), in the CSV's order.
std::vector<SurveyedLayer> survey(const std::string& set) {
  std::ifstream in(fs::path(CONVLAB_SOURCE_DIR) / "results" / "bench" / "nvidia-h200" / "lab08_step1_splits.csv");
  REQUIRE(in);
  std::string line;
  std::getline(in, line);
  REQUIRE(line ==
          "set,layer,batch,channels,filters,height,width,mask_width,stride,padding,tiles,slices,least_busy_pick,split,"
          "round,loader_before_ms,loader_after_ms");
  std::vector<SurveyedLayer> layers;
  std::map<std::string, size_t> index;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    REQUIRE(f.size() == 17);
    if (f[0] != set) continue;
    auto [it, added] = index.try_emplace(f[1], layers.size());
    if (added) {
      SurveyedLayer s;
      s.shape = layer(std::stoi(f[2]), std::stoi(f[3]), std::stoi(f[4]), std::stoi(f[5]), std::stoi(f[6]),
                      std::stoi(f[7]), std::stoi(f[8]), std::stoi(f[9]));
      s.least_busy_pick = std::stoi(f[12]);
      layers.push_back(s);
    }
    auto& ms = layers[it->second].ms;
    const int split = std::stoi(f[13]);
    const double t = std::stod(f[16]);
    ms[split] = ms.count(split) ? std::min(ms[split], t) : t;
  }
  return layers;
}

double fastest(const std::map<int, double>& ms) {
  double best = ms.begin()->second;
  for (const auto& [split, t] : ms) best = std::min(best, t);
  return best;
}

}  // namespace

TEST_CASE("lab08 step 1's split: a layer whose tiles fill every block slot is not split", "[analysis][lab08]") {
  // 132 images of 8 × 16: 132 column tiles × 2 row tiles = 264 = 2 blocks on each of 132 SMs
  CHECK(step1_split(layer(132, 128, 256, 8, 16, 3, 1, 1), 132) == 1);
  CHECK(step1_split(layer(8, 128, 128, 128, 128, 3, 1, 1), 132) == 1);  // 1024 tiles
}

TEST_CASE("lab08 step 1's split: one block an SM of 18 slices is chosen over two an SM of 9 each", "[analysis][lab08]") {
  // B8 C256→384 13×13: 11 column tiles × 3 row tiles = 33 tiles of 72 slices. 4 splits are 132
  // blocks, one an SM; 8 fill all 264 slots with the same 18 slices an SM, and ran 1.24× slower.
  const ConvLayerShape l = layer(8, 256, 384, 13, 13, 3, 1, 1);
  CHECK(step1_split(l, 132) == 4);
  CHECK(lab08::step1_split_time(33, 72, 4, 132) < lab08::step1_split_time(33, 72, 8, 132));
}

TEST_CASE("lab08 step 1's split: a last round of fewer blocks than slots counts as a whole round", "[analysis][lab08]") {
  // 98 tiles (B32 C256→256 14×14): 4 splits are 392 blocks, 264 and then 128; 5 splits are 490,
  // two full rounds of shorter blocks, and ran faster with the loader as committed.
  CHECK(lab08::step1_split_time(98, 72, 5, 132) < lab08::step1_split_time(98, 72, 4, 132));
  CHECK(step1_split(layer(32, 256, 256, 14, 14, 3, 1, 1), 132) == 5);
}

TEST_CASE("lab08 step 1's split keeps at least 8 slices in every part, on any GPU", "[analysis][lab08]") {
  for (const ConvLayerShape& l : {layer(1, 16, 64, 8, 8, 3, 1, 1), layer(2, 64, 256, 7, 7, 3, 1, 1),
                                  layer(4, 512, 512, 14, 14, 3, 1, 1), layer(1, 2048, 2048, 7, 7, 3, 1, 1)}) {
    for (const int sms : {16, 46, 80, 108, 114, 132, 144}) {
      const long long slices = (lab08::nhwc_reduction(l) + lab08::kNhwcSliceDepth - 1) / lab08::kNhwcSliceDepth;
      const int s = step1_split(l, sms);
      INFO(l.describe() << " on " << sms << " SMs: " << slices << " slices, split " << s);
      CHECK(s >= 1);
      CHECK((s == 1 || slices / s >= 8));
    }
  }
}

TEST_CASE("lab08 step 1's split rule picks, on every layer the H200 survey checked it on, a split within 11 % of the "
          "fastest measured one, and 2 % in the geometric mean",
          "[analysis][lab08]") {
  for (const std::string set : {"fit", "repeat", "check"}) {
    const std::vector<SurveyedLayer> layers = survey(set);
    REQUIRE(layers.size() >= 16);
    double log_sum = 0, least_busy_log_sum = 0;
    int split_layers = 0;
    for (const SurveyedLayer& l : layers) {
      if (l.ms.size() < 2) continue;  // tiles that fill the slots: one split measured
      const int s = step1_split(l.shape, 132);
      INFO(set << ": " << l.shape.describe() << ", split " << s);
      REQUIRE(l.ms.count(s) == 1);
      const double ratio = l.ms.at(s) / fastest(l.ms);
      CHECK(ratio <= 1.11);
      log_sum += std::log(ratio);
      if (l.ms.count(l.least_busy_pick)) least_busy_log_sum += std::log(l.ms.at(l.least_busy_pick) / fastest(l.ms));
      ++split_layers;
    }
    REQUIRE(split_layers >= 13);
    INFO(set << ": geometric mean over " << split_layers << " layers");
    CHECK(std::exp(log_sum / split_layers) <= 1.02);
    // the rule it replaced, least_busy_split, on the same layers (where its pick was measured)
    CHECK(std::exp(least_busy_log_sum / split_layers) > 1.08);
  }
}
