// conv_layer_bench — labs 06 and 08 against cuDNN and cuBLAS, in one run, on one GPU.
//
//   build/bin/conv_layer_bench                       # the four benchmark layers (docs/design.md, Targets)
//   build/bin/conv_layer_bench --layer 8,64,64,56,56,3,1,1,1 --repeats 50 --json out.json
//
// For every layer it times, with the protocol of the lab runner (device-resident data, warm-up,
// median of repeats, L2 flushed before each repeat):
//   * cuDNN: float32 with CUDNN_FMA_MATH (no TF32 tensor cores), the fastest algorithm that
//     cudnnFindConvolutionForwardAlgorithmEx measures (only when CMake found cuDNN);
//   * the three steps of lab 06 (solutions/06-im2col), and step 3 with each of its block tiles;
//   * cuBLAS SGEMM on the explicit unroll: step 1's unroll kernel over the whole batch, then
//     cublasSgemmStridedBatched (default math: FP32, no TF32); timed as unroll + SGEMM and as
//     SGEMM alone;
//   * the stretch steps: TF32 tensor cores, and the fused bias + ReLU epilogue against step 3
//     followed by a separate bias + ReLU kernel (the blog's kernel fusion);
//   * TF32, where a peer offers it: cuDNN with tensor-core math allowed (its fastest algorithm)
//     and cuBLAS with CUBLAS_TF32_TENSOR_OP_MATH on the unroll, beside lab 06's TF32 step; not
//     under NVIDIA_TF32_OVERRIDE=0, which turns TF32 off inside both libraries (library_tf32_off);
//   * lab 08 (solutions/08-tensor-cores): step 1 (1xTF32, checked as TF32), step 2 (3xTF32,
//     checked as float32), step 5 (step 2 on Hopper's wgmma, checked as float32; on a GPU other
//     than compute capability 9.0 its row says why it did not run) and step 6 (step 5 with the
//     small products in BF16, likewise), against cuDNN's fastest FP32 algorithm (Winograd included).
// Every output is checked against a float64 reference computed on the GPU (layer_reference.cuh) by
// the grader's rule, |out − ref| ≤ n·u·S (docs/design.md, Tolerance; u of the method's arithmetic),
// so a fast wrong answer cannot slip into the table.
// Performance counts 2·B·M·Ho·Wo·C·K² flops (the direct convolution's multiply-adds) for everyone.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "convlab/atomic_file.hpp"
#include "convlab/compare.hpp"
#include "convlab/cuda_check.cuh"
#include "convlab/library_check.hpp"
#include "convlab/device_buffer.cuh"
#include "convlab/device_info.hpp"
#include "convlab/event_timer.cuh"
#include "convlab/lab08_config.hpp"
#include "convlab/lab_api.cuh"
#include "device_fill.cuh"
#include "layer_reference.cuh"
#include "lab06_extras.cuh"

#ifdef CONVLAB_HAVE_CUDNN
#include "cudnn_conv.hpp"
#endif

namespace {

using convlab::ConvLayerArgs;
using convlab::ConvLayerShape;
using convlab::lab06::BenchLayer;
using convlab::lab06::bench_layers;
using convlab::lab06::conv_layer;
using convlab::DeviceBuffer;
using nlohmann::json;
using convlab::bench::fill_uniform;
using convlab::bench::scale_columns;
using convlab::bench::grid_for;

// ---- Small device kernels: the check, an unfused bias + ReLU ----------------------------------

// Counts outputs with |got - ref'| > n·u·S' + 1e-30 (convlab::allowed_error's rule), where ref' =
// ref (bias == nullptr) or max(ref + bias[m], 0), S' = S (+ |bias[m]|, one more term); `terms` is
// n already raised to the tolerance's least count. NaN counts as bad. Also the largest
// |got - ref'| / allowed (as float bits: non-negative floats order like ints).
__global__ void count_bad(const float* got, const double* ref, const double* abs_sum, const float* bias, int M,
                          int HoWo, std::size_t n, double terms, double u, unsigned long long* bad,
                          unsigned* worst_bits) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    double r = ref[i];
    double s = abs_sum[i];
    double t = terms;
    if (bias) {
      const int m = static_cast<int>((i / HoWo) % M);
      r = fmax(r + bias[m], 0.0);
      s += fabs(bias[m]);
      t += 1;
    }
    const double allowed = t * u * s + 1e-30;
    const double err = fabs(static_cast<double>(got[i]) - r);
    if (!(err <= allowed)) atomicAdd(bad, 1ull);
    const float ratio = static_cast<float>(err / allowed);
    if (ratio == ratio) atomicMax(worst_bits, __float_as_uint(ratio));
  }
}

__global__ void bias_relu_pass(float* Y, const float* bias, int M, int HoWo, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    Y[i] = fmaxf(Y[i] + bias[(i / HoWo) % M], 0.0f);
  }
}

// ---- The benchmark ---------------------------------------------------------------------------

struct Layer {
  std::string name;
  ConvLayerShape shape;
};

std::vector<Layer> default_layers() {
  std::vector<Layer> out;
  for (const BenchLayer& l : bench_layers()) out.push_back({l.name, l.shape});  // convlab/lab06_config.hpp
  return out;
}

struct Measurement {
  std::string method;
  std::string detail;           // algorithm or plan
  double ms = 0;
  double tflops = 0;
  bool held = false;            // timed behind a LaunchHold (convlab::TimingStats::held)
  bool checked = false;
  unsigned long long bad = 0;
  double worst = 0;             // worst error / allowed
  std::string error;            // why it did not run
};

/// Why the libraries' TF32 rows cannot run, if they cannot. NVIDIA_TF32_OVERRIDE=0 turns TF32
/// off inside cuDNN and cuBLAS whatever math mode a handle asks for, so those rows would time
/// float32 math under a TF32 label (on an H200, cuDNN's "TF32" pick on B8 C128→128 128×128 took
/// 0.725 ms under it, its FP32 Winograd's time, and 0.259 ms without it). The float32 rows need no
/// such setting: they ask for FMA math (cuDNN) and the default math (cuBLAS) themselves. The labs'
/// TF32 is their own PTX, which the variable does not reach.
std::optional<std::string> library_tf32_off() {
  const char* v = std::getenv("NVIDIA_TF32_OVERRIDE");
  if (v == nullptr || std::strcmp(v, "0") != 0) return std::nullopt;
  return std::string("NVIDIA_TF32_OVERRIDE=0 turns TF32 off in cuDNN and cuBLAS, so this row would time float32 "
                     "math; unset it to time TF32");
}

struct Options {
  int warmup = 3;
  int repeats = 20;
  std::string json_path;
  std::vector<std::string> layers;
  bool all_plans = true;
  /// "uniform": every value in [-1, 1). "wide": the same, times 2^13 in every fourth input column
  /// (x % 4 == 2) and in each filter's left tap column, times 2^-10 elsewhere; values a transform
  /// (Winograd, FFT) cannot keep the FP32 rule on (docs/design.md, Tolerance;
  /// tests/cpu/test_winograd_rule.cpp), where a direct sum keeps it.
  std::string values = "uniform";
};

class LayerBench {
 public:
  LayerBench(const Layer& l, const Options& o, cublasHandle_t cublas)
      : layer_(l), opt_(o), cublas_(cublas), s_(l.shape),
        X_(s_.input_elements()), W_(s_.weight_elements()), Y_(s_.output_elements()),
        ref_(s_.output_elements()), abs_sum_(s_.output_elements()), bias_(static_cast<std::size_t>(s_.filters)),
        bad_(1), worst_(1) {
    s_.validate();
    fill_uniform(X_.data(), X_.size(), 0x1234);
    fill_uniform(W_.data(), W_.size(), 0x5678);
    fill_uniform(bias_.data(), bias_.size(), 0x9abc);
    if (o.values == "wide") {
      scale_columns(X_.data(), X_.size(), s_.width, 4, 2, 0x1p13f, 0x1p-10f);
      scale_columns(W_.data(), W_.size(), s_.mask_width, s_.mask_width, 0, 0x1p13f, 0x1p-10f);
    }
    flops_ = 2.0 * static_cast<double>(s_.output_elements()) * static_cast<double>(s_.terms_per_output());
    convlab::bench::layer_reference(s_, X_.data(), W_.data(), ref_.data(), abs_sum_.data());
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  [[nodiscard]] ConvLayerArgs args(float* y) const { return {X_.data(), W_.data(), y, s_}; }

  // Lab 08 step 5's configuration on this layer (lab08::wgmma_plan), as its launcher picks it:
  // block tile BM × N × DEPTH, the gather, the split.
  [[nodiscard]] std::string wgmma_detail() const {
    namespace l8 = convlab::lab08;
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const l8::WgmmaPlan p = l8::wgmma_plan(s_, sms);
    if (!p.chain_fits) return "3xTF32, step 2's kernel";
    return fmt::format("3xTF32 wgmma {}x{}x{}{}{}", l8::wgmma_block_m(p.warpgroups), p.n, p.depth,
                       p.group_tap ? " group-tap" : "", p.splits > 1 ? fmt::format(" split-K {}", p.splits) : "");
  }
  /// Step 6's detail: its tile and split (step 5's), or the step it falls back to.
  [[nodiscard]] std::string wgmma_mixed_detail() const {
    namespace l8 = convlab::lab08;
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const l8::WgmmaPlan p = l8::wgmma_plan(s_, sms);
    if (!p.mixed_fits) return "step 5's arithmetic: " + wgmma_detail();
    return fmt::format("TF32 + BF16 wgmma {}x{}x{}{}{}", l8::wgmma_block_m(p.warpgroups), p.n, p.depth,
                       p.group_tap ? " group-tap" : "", p.splits > 1 ? fmt::format(" split-K {}", p.splits) : "");
  }

  // Times `launch` (which writes Y) after one checked run. `tol`: the method's arithmetic, as the
  // grader's registrations name it; `with_bias`: the output is max(conv + bias, 0).
  Measurement measure(const std::string& method, const std::string& detail, const std::function<void()>& launch,
                      convlab::Tolerance tol = convlab::Tolerance::fp32(), bool with_bias = false) {
    Measurement m;
    m.method = method;
    m.detail = detail;
    try {
      Y_.fill_bytes(0xFF);  // NaN: an unwritten output fails the check
      launch();
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaDeviceSynchronize());
      CUDA_CHECK(cudaMemset(bad_.data(), 0, sizeof(unsigned long long)));
      CUDA_CHECK(cudaMemset(worst_.data(), 0, sizeof(unsigned)));
      const double terms = static_cast<double>(std::max<long long>(s_.terms_per_output(), tol.min_terms));
      count_bad<<<grid_for(Y_.size()), 256>>>(Y_.data(), ref_.data(), abs_sum_.data(),
                                             with_bias ? bias_.data() : nullptr, s_.filters,
                                             s_.out_height() * s_.out_width(), Y_.size(), terms, tol.unit_roundoff,
                                             bad_.data(), worst_.data());
      CUDA_CHECK(cudaGetLastError());
      unsigned long long bad = 0;
      unsigned worst = 0;
      CUDA_CHECK(cudaMemcpy(&bad, bad_.data(), sizeof bad, cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaMemcpy(&worst, worst_.data(), sizeof worst, cudaMemcpyDeviceToHost));
      float worst_f;
      std::memcpy(&worst_f, &worst, sizeof worst_f);
      m.checked = true;
      m.bad = bad;
      m.worst = worst_f;
      convlab::TimingOptions t;
      t.warmup = opt_.warmup;
      t.repeats = opt_.repeats;
      t.max_seconds = 3;
      const convlab::TimingStats st = convlab::time_kernel(launch, t);
      m.ms = st.median_ms;
      m.held = st.held;
      m.tflops = flops_ / (st.median_ms * 1e-3) / 1e12;
    } catch (const convlab::CudaError& e) {
      if (e.sticky()) throw;
      m.error = e.what();
    } catch (const std::exception& e) {
      m.error = e.what();
    }
    print(m);
    return m;
  }

  void print(const Measurement& m) const {
    if (!m.error.empty()) {
      fmt::print("  {:<34} {:<28} did not run: {}\n", m.method, m.detail, m.error);
    } else {
      fmt::print("  {:<34} {:<28} {:9.3f} ms {:7.2f} TFLOP/s  check: {} (worst {:.3f} of allowed)\n", m.method,
                 m.detail, m.ms, m.tflops, m.bad == 0 ? "ok" : fmt::format("{} BAD", m.bad), m.worst);
    }
    std::fflush(stdout);
  }

#ifdef CONVLAB_HAVE_CUDNN
  /// Switches `conv` to the usable candidate of its find() (those named in `algos`, or all) that
  /// runs fastest timed as every row is (held, L2 flushed), not the one cudnnFind ranks first:
  /// Find times its candidates itself, without the hold, and has ranked a slow one first (an FFT
  /// algorithm for TF32 on B32 C256→256 14×14, 0.168 ms held where another took 0.049; NVIDIA
  /// H200, results/bench/nvidia-h200/lab08.md). A candidate that fails to run is passed over.
  /// @returns false, changing nothing, when no candidate ran.
  bool select_fastest_held(convlab::bench::CudnnConv& conv, const std::vector<std::string>& algos = {}) {
    const auto candidates = conv.usable();
    convlab::TimingOptions t;
    t.warmup = opt_.warmup;
    t.repeats = opt_.repeats;
    t.max_seconds = 3;
    std::optional<std::size_t> best;
    double best_ms = 0;
    fmt::print("  held:");
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const auto& c = candidates[i];
      if (!algos.empty() && std::find(algos.begin(), algos.end(), c.algo) == algos.end()) continue;
      try {
        conv.select(i);
        const double ms =
            convlab::time_kernel([&] { conv.run(X_.data(), W_.data(), Y_.data()); }, t).median_ms;
        fmt::print(" {}[{}] {:.3f} ms", c.algo, c.math, ms);
        if (!best || ms < best_ms) best = i, best_ms = ms;
      } catch (const convlab::CudaError& e) {
        if (e.sticky()) throw;
        fmt::print(" {}[{}] failed ({})", c.algo, c.math, e.what());
      } catch (const std::exception& e) {
        fmt::print(" {}[{}] failed ({})", c.algo, c.math, e.what());
      }
    }
    fmt::print("\n");
    if (best) conv.select(*best);
    return best.has_value();
  }
#endif

  // A row that did not run, and why: printed as the others are.
  Measurement did_not_run(const std::string& method, const std::string& detail, const std::string& why) const {
    Measurement m{method, detail, 0, 0, false, false, 0, 0, why};
    print(m);
    return m;
  }

  std::vector<Measurement> run_all() {
    std::vector<Measurement> out;
    float* y = Y_.data();
    namespace lab = convlab::lab06;

#ifdef CONVLAB_HAVE_CUDNN
    try {
      cudnn_ = std::make_unique<convlab::bench::CudnnConv>(s_);
      const auto candidates = cudnn_->find(X_.data(), W_.data(), y);
      fmt::print("  cudnnFind (its own timings):");
      for (const auto& c : candidates) {
        fmt::print(" {}{}[{}] {:.3f} ms", c.usable ? "" : "(excluded) ", c.algo, c.math, c.find_ms);
      }
      fmt::print("\n");
      select_fastest_held(*cudnn_);
      out.push_back(measure("cuDNN (FP32 FMA math)", cudnn_->algo_name(), [&] { cudnn_->run(X_.data(), W_.data(), y); }));
      // For context: cuDNN's best algorithm of the GEMM family, the one this lab builds (FFT and
      // Winograd do fewer multiplications than the direct sum the flop count assumes).
      if (select_fastest_held(*cudnn_, {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM"})) {
        out.push_back(measure("cuDNN GEMM family (FP32 FMA)", cudnn_->algo_name(),
                              [&] { cudnn_->run(X_.data(), W_.data(), y); }));
      }
    } catch (const std::exception& e) {
      out.push_back(did_not_run("cuDNN (FP32 FMA math)", "", e.what()));
    }
    if (const auto off = library_tf32_off()) {
      out.push_back(did_not_run("cuDNN (TF32 tensor cores)", "", *off));
    } else {
      try {
        cudnn_tf32_ = std::make_unique<convlab::bench::CudnnConv>(s_, convlab::bench::CudnnMath::tf32);
        cudnn_tf32_->find(X_.data(), W_.data(), y);
        select_fastest_held(*cudnn_tf32_);
        out.push_back(measure("cuDNN (TF32 tensor cores)", cudnn_tf32_->algo_name() + " " + cudnn_tf32_->math_name(),
                              [&] { cudnn_tf32_->run(X_.data(), W_.data(), y); }, convlab::Tolerance::tf32x1()));
      } catch (const std::exception& e) {
        out.push_back(did_not_run("cuDNN (TF32 tensor cores)", "", e.what()));
      }
    }
#else
    for (const char* method : {"cuDNN (FP32 FMA math)", "cuDNN (TF32 tensor cores)"}) {
      out.push_back(did_not_run(method, "", "not built: CMake found no cuDNN"));
    }
#endif

    out.push_back(measure("step 1 unroll + tiled GEMM", "TILE_WIDTH 16", [&] { lab::conv_layer_unroll_gemm(args(y)); }));
    out.push_back(measure("step 2 fused unroll + GEMM", "TILE_WIDTH 16", [&] { lab::conv_layer_fused_gemm(args(y)); }));
    // Step 3's graded sub-steps (labs/06-im2col/README.md), each with the lab's given launch.
    out.push_back(measure("step 3a register tiles", "128x128x8, plain copies", [&] { lab::conv_layer_register_tiles(args(y)); }));
    out.push_back(measure("step 3b transposed As, float4", "128x128x8", [&] { lab::conv_layer_transposed_float4(args(y)); }));
    out.push_back(measure("step 3c async copies", "128x128x8, 4 stages", [&] { lab::conv_layer_async_copies(args(y)); }));
    const lab::RegisterTilePlan plan = lab::register_tiled_plan(s_);
    out.push_back(measure("step 3 register-tiled", plan_text(plan), [&] { lab::conv_layer_register_tiled_gemm(args(y)); }));
    if (opt_.all_plans) {
      std::vector<lab::RegisterTilePlan> plans = lab::register_tiled_tiles();
      for (const auto& p : lab::register_tiled_tiles()) {
        for (int splits : {2, 3, 4}) plans.push_back({p.bm, p.bn, splits, p.bk});
      }
      for (const auto& p : plans) {
        out.push_back(measure("step 3 with plan", plan_text(p), [&, p] { lab::conv_layer_register_tiled_with(args(y), p); }));
      }
    }
    out.push_back(measure("stretch: TF32 tensor cores", "W split hi+lo", [&] { lab::conv_layer_tf32_tensor_core(args(y)); },
                          convlab::Tolerance::tf32()));
    out.push_back(measure("lab 08 step 1 TF32", "1xTF32 mma.sync", [&] { convlab::lab08::conv_layer_tf32(args(y)); },
                          convlab::Tolerance::tf32x1()));
    out.push_back(measure("lab 08 step 2 3xTF32", "3xTF32 mma.sync", [&] { convlab::lab08::conv_layer_tf32x3(args(y)); }));
    out.push_back(measure("lab 08 step 5 3xTF32 wgmma", wgmma_detail(),
                          [&] { convlab::lab08::conv_layer_tf32x3_wgmma(args(y)); }));
    out.push_back(measure("lab 08 step 6 TF32+BF16 wgmma", wgmma_mixed_detail(),
                          [&] { convlab::lab08::conv_layer_tf32_bf16_wgmma(args(y)); }));
    out.push_back(measure("lab 08 step 7 TF32 wgmma", "1xTF32 wgmma, both operands in shared memory",
                          [&] { convlab::lab08::conv_layer_tf32_wgmma(args(y)); }, convlab::Tolerance::tf32x1()));
    out.push_back(measure("stretch: step 3 + bias + ReLU pass", "2 kernels", [&] {
      lab::conv_layer_register_tiled_with(args(y), lab::register_tiled_plan(s_, false));
      bias_relu_pass<<<grid_for(Y_.size()), 256>>>(y, bias_.data(), s_.filters, s_.out_height() * s_.out_width(), Y_.size());
      CUDA_CHECK(cudaGetLastError());
    }, convlab::Tolerance::fp32(), true));
    out.push_back(measure("stretch: fused bias + ReLU epilogue", "1 kernel",
                          [&] { lab::conv_layer_bias_relu(args(y), bias_.data()); }, convlab::Tolerance::fp32(), true));

    measure_cublas_on_unroll(out, y);
    return out;
  }

  // cuBLAS on the explicit unroll: X_unroll of the whole batch, one strided-batched SGEMM, with
  // and without the unroll's time, then in TF32.
  void measure_cublas_on_unroll(std::vector<Measurement>& out, float* y) {
    namespace lab = convlab::lab06;
    try {
      const int HoWo = s_.out_height() * s_.out_width();
      const int Kdim = static_cast<int>(s_.terms_per_output());
      DeviceBuffer<float> xu(static_cast<std::size_t>(s_.batch) * Kdim * HoWo, 0);
      auto sgemm = [&] {
        // Row-major Y_b (M × HoWo) = W (M × Kdim) · Xu_b (Kdim × HoWo) is, in cuBLAS's column-major
        // terms, Y_b^T (HoWo × M) = Xu_b^T (HoWo × Kdim) · W^T (Kdim × M).
        const float alpha = 1.0f, beta = 0.0f;
        CUBLAS_CHECK(cublasSgemmStridedBatched(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, HoWo, s_.filters, Kdim, &alpha,
                                               xu.data(), HoWo, static_cast<long long>(Kdim) * HoWo, W_.data(),
                                               Kdim, 0, &beta, y, HoWo,
                                               static_cast<long long>(s_.filters) * HoWo, s_.batch));
      };
      out.push_back(measure("cuBLAS SGEMM on the unroll", "unroll + SGEMM", [&] {
        lab::unroll_input(args(y), xu.data(), 0, s_.batch);
        sgemm();
      }));
      lab::unroll_input(args(y), xu.data(), 0, s_.batch);
      out.push_back(measure("cuBLAS SGEMM on the unroll", "SGEMM alone", sgemm));
      // The same GEMM with TF32 tensor cores (what PyTorch's allow_tf32 gives).
      if (const auto off = library_tf32_off()) {
        out.push_back(did_not_run("cuBLAS TF32 on the unroll", "unroll + SGEMM (TF32)", *off));
      } else {
        CUBLAS_CHECK(cublasSetMathMode(cublas_, CUBLAS_TF32_TENSOR_OP_MATH));
        out.push_back(measure("cuBLAS TF32 on the unroll", "unroll + SGEMM (TF32)", [&] {
          lab::unroll_input(args(y), xu.data(), 0, s_.batch);
          sgemm();
        }, convlab::Tolerance::tf32x1()));
        CUBLAS_CHECK(cublasSetMathMode(cublas_, CUBLAS_DEFAULT_MATH));
      }
    } catch (const std::exception& e) {
      out.push_back(did_not_run("cuBLAS SGEMM on the unroll", "", e.what()));
    }
  }

  static std::string plan_text(const convlab::lab06::RegisterTilePlan& p) {
    return fmt::format("{}x{}x{}{}", p.bm, p.bn, p.bk, p.splits > 1 ? fmt::format(" split-K {}", p.splits) : "");
  }

 private:
  Layer layer_;
  Options opt_;
  cublasHandle_t cublas_;
  ConvLayerShape s_;
  DeviceBuffer<float> X_, W_, Y_;
  DeviceBuffer<double> ref_, abs_sum_;  // the float64 reference and S of every output
  DeviceBuffer<float> bias_;
  DeviceBuffer<unsigned long long> bad_;
  DeviceBuffer<unsigned> worst_;
  double flops_ = 0;
#ifdef CONVLAB_HAVE_CUDNN
  std::unique_ptr<convlab::bench::CudnnConv> cudnn_, cudnn_tf32_;
#endif
};

// The measurement of a method that ran (a failed check is marked in the table, not hidden).
const Measurement* find_ok(const std::vector<Measurement>& ms, const std::string& method, const std::string& detail = "") {
  for (const auto& m : ms) {
    if (m.method == method && (detail.empty() || m.detail == detail) && m.error.empty()) return &m;
  }
  return nullptr;
}

std::string cell(const Measurement* m, const Measurement* cudnn) {
  if (!m) return "—";
  const std::string mark = m->bad ? " (CHECK FAILED)" : "";
  if (!cudnn) return fmt::format("{:.1f}{}", m->tflops, mark);
  return fmt::format("{:.1f} ({:.0f}%){}", m->tflops, 100.0 * m->tflops / cudnn->tflops, mark);
}

/// One measurement as the JSON report writes it: its time and check, or why it did not run.
json measurement_json(const Measurement& m) {
  json jm = {{"method", m.method}, {"detail", m.detail}};
  if (m.error.empty()) {
    jm["ms"] = m.ms;
    jm["tflops"] = m.tflops;
    jm["held"] = m.held;
    jm["bad_outputs"] = m.bad;
    jm["worst_error_over_allowed"] = m.worst;
  } else {
    jm["error"] = m.error;
  }
  return jm;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"conv_layer_bench: labs 06 and 08 against cuDNN (FP32 FMA math, TF32) and cuBLAS SGEMM on the unroll"};
  app.add_option("--layer", opt.layers, "B,C,M,H,W,K,S,P,D (repeatable); default: the four benchmark layers of docs/design.md, Targets");
  app.add_option("--warmup", opt.warmup, "untimed runs before timing")->check(CLI::Range(0, 100));
  app.add_option("--repeats", opt.repeats, "timed runs (median reported)")->check(CLI::Range(1, 1000));
  app.add_option("--json", opt.json_path, "also write every measurement as JSON");
  app.add_flag("!--no-plans", opt.all_plans, "skip timing step 3 with each of its block tiles");
  app.add_option("--values", opt.values,
                 "uniform: values in [-1, 1); wide: times 2^13 in every 4th input column and each filter's "
                 "left tap column, 2^-10 elsewhere (where transforms break the FP32 rule)")
      ->check(CLI::IsMember({"uniform", "wide"}));
  CLI11_PARSE(app, argc, argv);

  std::string why;
  const auto device = convlab::query_device(&why);
  if (!device) {
    fmt::print(stderr, "conv_layer_bench: {}\n", why);
    return 3;
  }
  std::vector<Layer> layers;
  if (opt.layers.empty()) {
    layers = default_layers();
  } else {
    for (const std::string& text : opt.layers) {
      std::smatch m;
      if (!std::regex_match(text, m, std::regex(R"((\d+),(\d+),(\d+),(\d+),(\d+),(\d+),(\d+),(\d+),(\d+))"))) {
        fmt::print(stderr, "--layer '{}': expected B,C,M,H,W,K,S,P,D\n", text);
        return 2;
      }
      auto v = [&](int i) { return std::stoi(m[i]); };
      const ConvLayerShape s = conv_layer(v(1), v(2), v(3), v(4), v(5), v(6), v(7), v(8), v(9));
      layers.push_back({s.describe(), s});
    }
  }

  fmt::print("conv_layer_bench on {}\n", device->describe());
#ifdef CONVLAB_HAVE_CUDNN
  fmt::print("{}\n", convlab::bench::CudnnConv::version());
#endif
  const char* tf32_env = std::getenv("NVIDIA_TF32_OVERRIDE");
  fmt::print("NVIDIA_TF32_OVERRIDE={}; protocol: {} warm-up runs, median of {} repeats, L2 flushed before each; "
             "values: {}\n",
             tf32_env ? tf32_env : "(unset)", opt.warmup, opt.repeats, opt.values);
  if (const auto off = library_tf32_off()) fmt::print("cuDNN's and cuBLAS's TF32 rows do not run: {}\n", *off);

  cublasHandle_t cublas = nullptr;
  CUBLAS_CHECK(cublasCreate(&cublas));
  CUBLAS_CHECK(cublasSetMathMode(cublas, CUBLAS_DEFAULT_MATH));  // FP32: no TF32 tensor cores

  json report;
  report["format"] = "convlab-conv-layer-bench";
  report["version"] = 1;
  report["values"] = opt.values;
  report["nvidia_tf32_override"] = tf32_env ? json(tf32_env) : json(nullptr);  // "0": no library TF32 row ran
  report["device"] = {{"name", device->name}, {"sms", device->sm_count},
                      {"compute_capability", fmt::format("{}.{}", device->cc_major, device->cc_minor)},
                      {"driver", device->driver}, {"runtime", device->runtime}};
  report["layers"] = json::array();
  std::vector<std::pair<Layer, std::vector<Measurement>>> all;
  for (const Layer& l : layers) {
    fmt::print("\n{}  ({:.2f} GFLOP)\n", l.name,
               2.0 * static_cast<double>(l.shape.output_elements()) * static_cast<double>(l.shape.terms_per_output()) / 1e9);
    std::vector<Measurement> ms;
    {
      LayerBench bench(l, opt, cublas);
      ms = bench.run_all();
    }
    json jl = {{"name", l.name}, {"shape", l.shape.describe()}, {"measurements", json::array()}};
    for (const auto& m : ms) jl["measurements"].push_back(measurement_json(m));
    report["layers"].push_back(jl);
    all.emplace_back(l, std::move(ms));
  }
  CUBLAS_CHECK(cublasDestroy(cublas));

  // The summary: TFLOP/s (percent of cuDNN's).
  fmt::print("\n## {} — TFLOP/s (percent of cuDNN FP32 FMA)\n\n", device->name);
  fmt::print("| layer | cuDNN (algorithm) | step 1 | step 2 | step 3 | best step 3 tile | unroll + cuBLAS | cuBLAS SGEMM alone | cuDNN GEMM family | TF32: lab 06 | TF32: cuDNN | TF32: unroll + cuBLAS | lab 08 TF32 | lab 08 3xTF32 | lab 08 3xTF32 wgmma | lab 08 TF32+BF16 wgmma |\n");
  fmt::print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const auto& [l, ms] : all) {
    const Measurement* cudnn = find_ok(ms, "cuDNN (FP32 FMA math)");
    const Measurement* best = nullptr;
    for (const auto& m : ms) {
      if ((m.method == "step 3 with plan") && m.error.empty() && m.bad == 0 && (!best || m.tflops > best->tflops)) best = &m;
    }
    const Measurement* gemm_family = find_ok(ms, "cuDNN GEMM family (FP32 FMA)");
    fmt::print("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", l.name,
               cudnn ? fmt::format("{:.1f} ({}){}", cudnn->tflops, cudnn->detail, cudnn->bad ? " (CHECK FAILED)" : "")
                     : "—",
               cell(find_ok(ms, "step 1 unroll + tiled GEMM"), cudnn), cell(find_ok(ms, "step 2 fused unroll + GEMM"), cudnn),
               cell(find_ok(ms, "step 3 register-tiled"), cudnn),
               best ? fmt::format("{} {}", cell(best, cudnn), best->detail) : "—",
               cell(find_ok(ms, "cuBLAS SGEMM on the unroll", "unroll + SGEMM"), cudnn),
               cell(find_ok(ms, "cuBLAS SGEMM on the unroll", "SGEMM alone"), cudnn),
               gemm_family ? fmt::format("{} {}", cell(gemm_family, cudnn), gemm_family->detail) : "—",
               cell(find_ok(ms, "stretch: TF32 tensor cores"), cudnn),
               cell(find_ok(ms, "cuDNN (TF32 tensor cores)"), cudnn),
               cell(find_ok(ms, "cuBLAS TF32 on the unroll"), cudnn), cell(find_ok(ms, "lab 08 step 1 TF32"), cudnn),
               cell(find_ok(ms, "lab 08 step 2 3xTF32"), cudnn), cell(find_ok(ms, "lab 08 step 5 3xTF32 wgmma"), cudnn),
               cell(find_ok(ms, "lab 08 step 6 TF32+BF16 wgmma"), cudnn));
  }
  fmt::print("\n## kernel fusion (ms)\n\n| layer | step 3 + bias/ReLU pass | fused epilogue |\n| --- | --- | --- |\n");
  for (const auto& [l, ms] : all) {
    const Measurement* a = find_ok(ms, "stretch: step 3 + bias + ReLU pass");
    const Measurement* b = find_ok(ms, "stretch: fused bias + ReLU epilogue");
    fmt::print("| {} | {} | {} |\n", l.name, a ? fmt::format("{:.3f}", a->ms) : "—", b ? fmt::format("{:.3f}", b->ms) : "—");
  }
  bool all_ok = true;
  for (const auto& [l, ms] : all) {
    for (const auto& m : ms) all_ok &= m.bad == 0;
  }
  fmt::print("\nchecks: {}\n", all_ok ? "every output that ran agrees with step 2 within tolerance" : "SOME OUTPUTS DISAGREE (BAD above)");
  if (!opt.json_path.empty()) convlab::write_file_atomically(opt.json_path, report.dump(2) + "\n");
  return all_ok ? 0 : 1;
}
