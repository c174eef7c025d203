// Lab 08's model: what its steps issue on the tensor cores and how far their arithmetic may
// stray, from the same configuration the kernels read (convlab/lab08_config.hpp).
#include "convlab/analysis_tensor_cores.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <vector>

namespace convlab::analysis {
namespace {

constexpr double kMmaFlops = 2.0 * lab08::kMmaM * lab08::kMmaN * lab08::kMmaK;
constexpr double kTf32Units = 8192.0;  // 2^-11 in units of 2^-24
constexpr long long kWarpgroupThreads = lab08::kWarpgroupThreads;
// Lane steps step1_distinct_input_chunks takes at most (about a second): the bench layers and
// the grader's cases take far fewer; a layer of 2^31 inputs would take billions.
constexpr long long kMaxDistinctWalk = 1LL << 28;

// The tile walk and the loader of one step with this plan: lab 06 step 3's.
void walk_tiles(const ConvLayerShape& layer, const GemmPlan& plan, TensorCoreStep& st) {
  st.plan = plan;
  const Im2colAnalysis im2col = analyze_im2col(layer, st.plan);
  const Im2colStep& tiled = im2col.step("register_tiled");
  st.effective_splits = im2col.effective_splits;
  st.issued_fmas = tiled.fmas;
  st.async_copies = tiled.async_copies;
  st.async_copies_read = tiled.async_copies_read;
  st.global_stores = tiled.global_stores;
}

// Step 2's plan: block_m rows, split_k.
GemmPlan mma_sync_plan(const ConvLayerShape& layer, int sms, lab08::Precision p) {
  const int bm = lab08::block_m(p, layer.filters);
  return GemmPlan{bm, lab08::kBlockN, lab08::split_k(layer, bm, sms), lab08::kSliceDepth};
}

// Taps (p along one axis) of outputs 0..out-1 that land inside an input of `size`: the separable
// half of "inside X" (a tap is inside when both its row and its column are).
long long taps_inside(int out, int size, int k, int stride, int padding, int dilation) {
  long long inside = 0;
  for (int o = 0; o < out; ++o) {
    for (int p = 0; p < k; ++p) {
      const int i = o * stride - padding + p * dilation;
      inside += i >= 0 && i < size;
    }
  }
  return inside;
}

// Step 1's input chunks as Nsight Compute counts their bytes: each distinct chunk of one warp's
// copy once. A warp's copy reads kChunkFloats channels of 32 / (BK/4) consecutive columns at BK/4
// chunks each; where a slice spans two taps (Cp not a multiple of BK), column n at tap q + 1 and
// column n + 1 at tap q are one pixel, and ncu counts that chunk once where the threads read it
// twice. Walks every warp's copy of every slice of every column tile (nhwc::ChunkLoader's who-copies-
// what); the same for every row tile. A layer whose walk would take more than kMaxDistinctWalk lane
// steps is not walked: std::nullopt.
std::optional<long long> step1_distinct_input_chunks(const ConvLayerShape& layer, long long n_tiles, long long k_tiles) {
  constexpr int kChunks = lab08::kNhwcSliceDepth / lab08::kChunkFloats;  // a tile row's chunks
  constexpr int kRowStep = lab08::kThreads / kChunks;                     // rows between a thread's copies
  static_assert(32 % kChunks == 0, "a warp copies whole tile rows");
  if (n_tiles * k_tiles * lab08::kThreads * (lab08::kBlockN / kRowStep) > kMaxDistinctWalk) return std::nullopt;
  const int cp = lab08::padded_channels(layer.channels), kk = layer.mask_width * layer.mask_width;
  const int ho = layer.out_height(), wo = layer.out_width();
  const long long n = static_cast<long long>(layer.batch) * ho * wo;
  std::vector<long long> address;
  address.reserve(32);
  long long chunks = 0;
  for (long long tile = 0; tile < n_tiles; ++tile) {
    for (long long kt = 0; kt < k_tiles; ++kt) {
      for (int warp = 0; warp < lab08::kThreads / 32; ++warp) {
        for (int i = 0; i < lab08::kBlockN / kRowStep; ++i) {  // the warp's i-th copy
          address.clear();
          for (int lane = 0; lane < 32; ++lane) {
            const int t = 32 * warp + lane, j = t % kChunks;
            const long long col = tile * lab08::kBlockN + t / kChunks + i * kRowStep;
            const long long k = kt * lab08::kNhwcSliceDepth + lab08::kChunkFloats * j;
            const long long tap = k / cp, c = k % cp;
            if (col >= n || tap >= kk) continue;
            const long long b = col / (static_cast<long long>(ho) * wo), hw = col % (static_cast<long long>(ho) * wo);
            const long long ih = hw / wo * layer.stride - layer.padding + tap / layer.mask_width * layer.dilation;
            const long long iw = hw % wo * layer.stride - layer.padding + tap % layer.mask_width * layer.dilation;
            if (ih < 0 || ih >= layer.height || iw < 0 || iw >= layer.width) continue;
            address.push_back(((b * layer.height + ih) * layer.width + iw) * cp + c);
          }
          std::sort(address.begin(), address.end());
          chunks += std::unique(address.begin(), address.end()) - address.begin();
        }
      }
    }
  }
  return chunks;
}

// Step 1: its reordering passes, then its kernel's tiles over the reduction k' = tap·Cp + c
// (lab08_config.hpp, "Step 1's feed"): every block tile multiplies every slice, one 16-byte
// cp.async per chunk of 4 k' of each of its BM + BN tile rows.
void walk_step1(const ConvLayerShape& layer, int sms, TensorCoreStep& st) {
  const int bm = lab08::block_m(lab08::Precision::tf32, layer.filters), bn = lab08::kBlockN;
  const int bk = lab08::kNhwcSliceDepth;
  st.plan = GemmPlan{bm, bn, lab08::nhwc_split_k(layer, bm, sms), bk};
  const long long cp = lab08::padded_channels(layer.channels);
  const long long kp = lab08::nhwc_reduction(layer);
  const long long n = static_cast<long long>(layer.batch) * layer.out_height() * layer.out_width();
  const long long m_tiles = (layer.filters + bm - 1) / bm, n_tiles = (n + bn - 1) / bn;
  const long long k_tiles = (kp + bk - 1) / bk;
  const long long per_split = (k_tiles + st.plan.splits - 1) / st.plan.splits;
  st.effective_splits = static_cast<int>((k_tiles + per_split - 1) / per_split);
  st.issued_fmas = m_tiles * bm * n_tiles * bn * k_tiles * bk;
  st.copy_bytes = 4 * lab08::kChunkFloats;
  st.async_copies = m_tiles * n_tiles * k_tiles * (bm + bn) * (bk / lab08::kChunkFloats);
  // A: each filter's Kp/4 chunks, once per column tile; B: each column's chunks of taps inside X,
  // once per row tile
  const long long inside = taps_inside(layer.out_height(), layer.height, layer.mask_width, layer.stride, layer.padding,
                                       layer.dilation) *
                           taps_inside(layer.out_width(), layer.width, layer.mask_width, layer.stride, layer.padding,
                                       layer.dilation);
  const long long weight_chunks = n_tiles * layer.filters * (kp / lab08::kChunkFloats);
  st.async_copies_read = weight_chunks + m_tiles * layer.batch * inside * (cp / lab08::kChunkFloats);
  // a slice inside one tap: no warp reads one pixel's chunk twice
  if (cp % bk == 0) {
    st.async_copies_distinct = st.async_copies_read;
  } else {
    const std::optional<long long> input = step1_distinct_input_chunks(layer, n_tiles, k_tiles);
    st.async_copies_distinct = input ? weight_chunks + m_tiles * *input : -1;
  }
  if (lab08::step1_tma_fits(layer)) {
    st.tma_feed = true;
    st.tma_copies = 2 * m_tiles * n_tiles * k_tiles;  // W's box and X's im2col box, a slice a block
    st.tma_bytes = m_tiles * n_tiles * k_tiles * lab08::kTmaStageBytes;
    const long long tma_split = lab08::tma_split_k(layer, sms);
    const long long tma_per_split = (k_tiles + tma_split - 1) / tma_split;
    st.tma_splits = static_cast<int>((k_tiles + tma_per_split - 1) / tma_per_split);
  }
  st.reordered_floats = static_cast<long long>(layer.batch) * layer.height * layer.width * cp +
                        static_cast<long long>(layer.filters) * kp;
  st.global_stores = static_cast<long long>(layer.output_elements()) * st.effective_splits;
}

}  // namespace

const TensorCoreStep& TensorCoreAnalysis::step(const std::string& name) const {
  for (const TensorCoreStep& s : steps) {
    if (s.name == name) return s;
  }
  throw std::out_of_range("lab 08 has no step " + name);
}

double tf32x1_error_units(long long n) {
  const double per_product = 2.0 * kTf32Units + 4.0;  // (1 + 2^-11)^2 − 1 = 2·2^-11 + 2^-22
  return per_product + 2.0 * static_cast<double>(n);
}

double tf32x3_error_units(long long n) {
  // 20 units per product from the split (docs/design.md), 2 per chained MMA of a slice (3 per
  // k-step, 2 k-steps: 12 over all slices), one per slice's float32 addition
  const long long slices = (n + lab08::kSliceDepth - 1) / lab08::kSliceDepth;
  return 20.0 + 12.0 + static_cast<double>(slices);
}

TensorCoreAnalysis analyze_lab08(const ConvLayerShape& layer, int sms) {
  layer.validate();
  if (sms < 1) throw std::invalid_argument(fmt::format("analysis: lab 08 on {} SMs: at least 1", sms));
  TensorCoreAnalysis a;
  a.layer = layer;
  a.n = static_cast<long long>(layer.terms_per_output());
  a.useful_fmas = static_cast<long long>(layer.output_elements()) * a.n;
  a.compulsory_bytes = kBytesPerFloat * static_cast<double>(layer.input_elements() + layer.weight_elements() +
                                                             layer.output_elements());
  constexpr long long kFmasPerMma = lab08::kMmaM * lab08::kMmaN * lab08::kMmaK;  // whole tiles: exact
  const double n = static_cast<double>(a.n);

  TensorCoreStep one;
  one.name = "tf32";
  one.products = 1;
  walk_step1(layer, sms, one);
  one.mmas = one.issued_fmas / kFmasPerMma;
  one.error_bound_units = tf32x1_error_units(a.n);
  one.allowed_units = std::max(n, 3.0) * kTf32Units;

  TensorCoreStep three;
  three.name = "tf32x3";
  three.products = 3;
  three.on_cuda_cores = a.n < lab08::kMinTensorCoreTerms;
  if (three.on_cuda_cores) {
    three.issued_fmas = a.useful_fmas;  // one thread per output, float32 FMAs
    three.global_stores = static_cast<long long>(layer.output_elements());
  } else {
    walk_tiles(layer, mma_sync_plan(layer, sms, lab08::Precision::tf32x3), three);
    three.mmas = 3 * (three.issued_fmas / kFmasPerMma);
  }
  three.error_bound_units = three.on_cuda_cores ? n : tf32x3_error_units(a.n);
  three.allowed_units = n;

  for (TensorCoreStep* s : {&one, &three}) {
    s->instructions = s->mmas;
    s->mma_flops = kMmaFlops * static_cast<double>(s->mmas);
  }

  // Step 5: step 2's products on wgmma.m64nNk8, a warpgroup's 64 × N × 8 per instruction (N = 128,
  // or 64 for the narrow tile of a layer of few tiles), chained over a block's whole share of the
  // reduction where that keeps the FP32 rule; else the launcher runs step 2's kernel (the CUDA
  // cores below 35 terms). lab08::wgmma_plan decides, for the launcher and here.
  TensorCoreStep wg;
  const lab08::WgmmaPlan plan = lab08::wgmma_plan(layer, sms);
  if (!plan.chain_fits) {
    wg = three;
    wg.runs_step2 = true;
  } else {
    wg.products = 3;
    wg.instruction = TensorInstruction::wgmma;
    wg.warpgroups = plan.warpgroups;
    wg.group_tap = plan.group_tap;
    wg.narrow_tile = plan.narrow;
    walk_tiles(layer, GemmPlan{lab08::wgmma_block_m(plan.warpgroups), plan.n, plan.splits, plan.depth}, wg);
    // whole tiles: every slice of every block tile, all warpgroups, 3 products per k8-step
    const long long fmas_per_wgmma = static_cast<long long>(lab08::kWgmmaM) * plan.n * lab08::kWgmmaK;
    wg.instructions = 3 * (wg.issued_fmas / fmas_per_wgmma);
    wg.mmas = kWarpgroupThreads / 32 * wg.instructions;  // ncu: once per warp of the warpgroup
    wg.mma_flops = 2.0 * static_cast<double>(fmas_per_wgmma) * static_cast<double>(wg.instructions);
    wg.error_bound_units = static_cast<double>(lab08::wgmma_chain_error_units(a.n, plan.splits, plan.depth));
  }
  wg.name = "tf32x3_wgmma";
  wg.allowed_units = n;

  // Step 6: step 5's blocks and plan with step 4's arithmetic, per k8-step a TF32 wgmma (m64nNk8)
  // and a BF16 one of twice the depth (m64nNk16) for both small products: 2 instructions where
  // step 5 issues 3, as many multiply-adds on the tensor cores. Where its budget would break the
  // FP32 rule the launcher runs step 5.
  TensorCoreStep mixed = wg;
  if (!plan.mixed_fits) {
    mixed.runs_step5 = true;
  } else {
    mixed.products = 1;
    mixed.bf16_products = 2;
    const long long k8_steps = wg.instructions / 3;  // of every warpgroup of every block
    mixed.instructions = 2 * k8_steps;
    mixed.mmas = kWarpgroupThreads / 32 * mixed.instructions;
    mixed.error_bound_units = static_cast<double>(lab08::wgmma_mixed_chain_error_units(a.n, plan.splits, plan.depth));
  }
  mixed.name = "tf32_bf16_wgmma";

  // Step 7: step 1's passes, tiles, split and copies, its multiply-adds on wgmma.m64n128k8 with
  // both operands in shared memory: one instruction a warpgroup per k8-step of its 64 rows.
  TensorCoreStep seven = one;
  seven.name = "tf32_wgmma";
  seven.instruction = TensorInstruction::wgmma;
  seven.warpgroups = lab08::tf32_wgmma_warpgroups(layer.filters);
  seven.a_in_shared = true;
  const long long fmas_per_wgmma = static_cast<long long>(lab08::kWgmmaM) * lab08::kBlockN * lab08::kWgmmaK;
  seven.instructions = seven.issued_fmas / fmas_per_wgmma;  // whole tiles: exact
  seven.mmas = kWarpgroupThreads / 32 * seven.instructions;
  seven.mma_flops = 2.0 * static_cast<double>(fmas_per_wgmma) * static_cast<double>(seven.instructions);
  seven.error_bound_units =
      static_cast<double>(lab08::tf32_wgmma_error_units(lab08::nhwc_reduction(layer), seven.plan.splits));

  for (TensorCoreStep* s : {&one, &three, &wg, &mixed, &seven}) s->fp32_ratio = s->error_bound_units / n;
  a.steps = {one, three, wg, mixed, seven};
  return a;
}

TensorCoreBounds tensor_core_bounds(const TensorCoreAnalysis& a, const TensorCoreStep& step, const TensorCoreCeilings& c) {
  auto over = [](double work, double rate) { return rate > 0 ? work / rate : 0.0; };
  TensorCoreBounds b;
  const double useful_flops = 2.0 * static_cast<double>(a.useful_fmas);
  b.memory_s = over(a.compulsory_bytes, c.copy_bytes_per_s);
  b.fma_s = over(useful_flops, c.fma_flops_per_s);
  if (step.on_cuda_cores) {
    b.mma_s = b.fma_s;
  } else if (step.instruction == TensorInstruction::mma_sync) {
    b.mma_s = over(step.mma_flops, c.tf32_mma_flops_per_s);
  }  // wgmma: its peak is not among the measured ceilings
  return b;
}

}  // namespace convlab::analysis
