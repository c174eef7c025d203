// Lab 08's model: what its steps issue on the tensor cores and how far their arithmetic may
// stray, from the same configuration the kernels read (convlab/lab08_config.hpp).
#include "convlab/analysis_tensor_cores.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace convlab::analysis {
namespace {

constexpr double kMmaFlops = 2.0 * lab08::kMmaM * lab08::kMmaN * lab08::kMmaK;
constexpr double kTf32Units = 8192.0;  // 2^-11 in units of 2^-24

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
  return 12.0 + static_cast<double>(n) / lab08::kMmaK + 2.0;
}

TensorCoreAnalysis analyze_lab08(const ConvLayerShape& layer, int sms) {
  layer.validate();
  if (sms < 1) throw std::invalid_argument(fmt::format("analysis: lab 08 on {} SMs: at least 1", sms));
  TensorCoreAnalysis a;
  a.layer = layer;
  a.plan = GemmPlan{lab08::block_m(layer.filters), lab08::kBlockN, lab08::split_k(layer, sms), lab08::kSliceDepth};
  // The loader and the tile walk are lab 06 step 3's with this plan.
  const Im2colAnalysis im2col = analyze_im2col(layer, a.plan);
  const Im2colStep& tiled = im2col.step("register_tiled");
  a.effective_splits = im2col.effective_splits;
  a.n = static_cast<long long>(layer.terms_per_output());
  a.useful_fmas = tiled.useful_fmas;
  a.issued_fmas = tiled.fmas;
  a.async_copies = tiled.async_copies;
  a.async_copies_read = tiled.async_copies_read;
  a.global_stores = tiled.global_stores;
  a.compulsory_bytes = kBytesPerFloat * static_cast<double>(layer.input_elements() + layer.weight_elements() +
                                                             layer.output_elements());
  const long long mmas_1x = a.issued_fmas / (lab08::kMmaM * lab08::kMmaN * lab08::kMmaK);  // whole tiles: exact
  const double n = static_cast<double>(a.n);

  TensorCoreStep one;
  one.name = "tf32";
  one.products = 1;
  one.mmas = mmas_1x;
  one.error_bound_units = tf32x1_error_units(a.n);
  one.allowed_units = std::max(n, 3.0) * kTf32Units;

  TensorCoreStep three;
  three.name = "tf32x3";
  three.products = 3;
  three.on_cuda_cores = a.n < lab08::kMinTensorCoreTerms;
  three.mmas = three.on_cuda_cores ? 0 : 3 * mmas_1x;
  three.error_bound_units = three.on_cuda_cores ? n : tf32x3_error_units(a.n);
  three.allowed_units = n;

  for (TensorCoreStep* s : {&one, &three}) {
    s->mma_flops = kMmaFlops * static_cast<double>(s->mmas);
    s->fp32_ratio = s->error_bound_units / n;
  }
  a.steps = {one, three};
  return a;
}

TensorCoreBounds tensor_core_bounds(const TensorCoreAnalysis& a, const TensorCoreStep& step, const TensorCoreCeilings& c) {
  auto over = [](double work, double rate) { return rate > 0 ? work / rate : 0.0; };
  TensorCoreBounds b;
  const double useful_flops = 2.0 * static_cast<double>(a.useful_fmas);
  b.memory_s = over(a.compulsory_bytes, c.copy_bytes_per_s);
  b.fma_s = over(useful_flops, c.fma_flops_per_s);
  b.mma_s = step.on_cuda_cores ? b.fma_s : over(step.mma_flops, c.tf32_mma_flops_per_s);
  return b;
}

}  // namespace convlab::analysis
