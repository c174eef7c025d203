// Device query and the measured ceilings of the roofline: a float4 device-to-device copy
// (bandwidth), a loop of independent FMAs (compute on CUDA cores) and loops of independent TF32
// tensor-core MMAs of depth 8 and 4 (compute on tensor cores, compute capability 8.0 and later).
#include <fmt/format.h>

#include <algorithm>

#include "convlab/ceil_div.hpp"
#include "convlab/cuda_check.cuh"
#include "convlab/device_buffer.cuh"
#include "convlab/device_info.hpp"
#include "convlab/event_timer.cuh"

namespace convlab {
namespace {

// One float4 per thread, no grid-stride loop: the most loads in flight per SM.
__global__ void copy_float4(const float4* __restrict__ src, float4* __restrict__ dst, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) dst[i] = src[i];
}

// kChains independent accumulators per thread hide the FMA latency (4 cycles) behind
// 4 warp schedulers; the result is stored so that the compiler keeps the work.
constexpr int kChains = 8;
constexpr int kFmaIterations = 4096;

__global__ void fma_loop(float* out, float a, float b) {
  float acc[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) acc[c] = threadIdx.x * 1e-3f + c;
  // Unrolled so that loop bookkeeping is ~1 instruction in 128, not 1 in 8.
#pragma unroll 16
  for (int i = 0; i < kFmaIterations; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) acc[c] = fmaf(acc[c], a, b);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += acc[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// kMmaChains independent 16×8 accumulator tiles per warp keep the tensor cores' pipeline full;
// operands stay in registers, so nothing but the MMAs is measured. DEPTH 8 is mma.m16n8k8, the
// MMA of every TF32 step; DEPTH 4, mma.m16n8k4, the half-depth MMA of lab 08 steps 3 and 4's last
// k-step (lab08_config.hpp, band_last_step_half). A k4 takes the pipe more than half a k8's time
// (on an H200: 234 billion a second against 156), so the model times each at its own rate.
constexpr int kMmaChains = 8;
constexpr int kMmaIterations = 2048;

template <int DEPTH>
__global__ void tf32_mma_loop(float* out, float x) {
  static_assert(DEPTH == 8 || DEPTH == 4, "m16n8k8 or m16n8k4");
  float d[kMmaChains][4] = {};
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const float v = x + 1e-3f * static_cast<float>(threadIdx.x % 32);  // ordinary numbers, ~1
  const unsigned a0 = __float_as_uint(v), a1 = __float_as_uint(v * 0.5f), a2 = __float_as_uint(v * 0.25f),
                 a3 = __float_as_uint(v * 0.125f), b0 = __float_as_uint(1.0f - v), b1 = __float_as_uint(v - 2.0f);
  for (int i = 0; i < kMmaIterations; ++i) {
#pragma unroll
    for (int c = 0; c < kMmaChains; ++c) {
      if constexpr (DEPTH == 8) {
        asm volatile(
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};\n"
            : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
      } else {
        asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                     : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                     : "r"(a0), "r"(a1), "r"(b0));
      }
    }
  }
#else
  (void)x;
#endif
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kMmaChains; ++c) sum += d[c][0] + d[c][1] + d[c][2] + d[c][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

}  // namespace

std::string DeviceInfo::describe() const {
  return fmt::format("{} (sm_{}{}, {} SMs, {:.0f} GB, {:.0f} MB L2)", name, cc_major, cc_minor,
                     sm_count, global_memory_bytes / 1e9, l2_bytes / 1e6);
}

int visible_device_count(std::string* why_not) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    if (why_not) *why_not = fmt::format("no usable GPU: {} ({})", cudaGetErrorString(err), cudaGetErrorName(err));
    cudaGetLastError();  // clear
    return 0;
  }
  if (count == 0 && why_not) *why_not = "no usable GPU: the CUDA runtime sees no device";
  return count;
}

std::optional<DeviceInfo> query_device(std::string* why_not) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    if (why_not) {
      *why_not = err != cudaSuccess
                     ? fmt::format("no usable GPU: {} ({})", cudaGetErrorString(err), cudaGetErrorName(err))
                     : std::string("no usable GPU: the CUDA runtime sees no device");
    }
    cudaGetLastError();  // clear
    return std::nullopt;
  }
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  DeviceInfo d;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.global_memory_bytes = static_cast<long long>(p.totalGlobalMem);
  d.l2_bytes = p.l2CacheSize;
  d.shared_memory_per_sm = static_cast<long long>(p.sharedMemPerMultiprocessor);
  d.shared_memory_per_block_optin = static_cast<long long>(p.sharedMemPerBlockOptin);
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  CUDA_CHECK(cudaDeviceGetAttribute(&d.sm_clock_khz, cudaDevAttrClockRate, 0));
  CUDA_CHECK(cudaDeviceGetAttribute(&d.memory_clock_khz, cudaDevAttrMemoryClockRate, 0));
  CUDA_CHECK(cudaDeviceGetAttribute(&d.memory_bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
  int driver = 0;
  int runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  d.driver = fmt::format("{}.{}", driver / 1000, (driver % 1000) / 10);
  d.runtime = fmt::format("{}.{}", runtime / 1000, (runtime % 1000) / 10);
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, static_cast<int>(sizeof bus), 0) == cudaSuccess) d.pci_bus_id = bus;
  return d;
}

Ceilings measure_ceilings() {
  std::string why;
  const auto dev = query_device(&why);
  if (!dev) throw std::runtime_error(why);
  Ceilings c;
  TimingOptions opt;
  opt.warmup = 2;
  opt.repeats = 15;
  opt.flush_l2 = false;  // 512 MiB does not fit in any L2

  const std::size_t n4 = (256u << 20) / sizeof(float4);  // 256 MiB each way
  DeviceBuffer<float4> src(n4, 0);
  DeviceBuffer<float4> dst(n4, 0);
  CUDA_CHECK(cudaMemset(src.data(), 0, src.bytes()));
  // The better of our kernel and the driver's own device-to-device copy: a ceiling should not
  // be lowered by a weak measuring kernel.
  const TimingStats kernel_copy = time_kernel([&] {
    copy_float4<<<static_cast<unsigned>(ceil_div(n4, std::size_t{256})), 256>>>(src.data(), dst.data(), n4);
    CUDA_CHECK(cudaGetLastError());
  }, opt);
  const TimingStats driver_copy = time_kernel([&] {
    CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), src.bytes(), cudaMemcpyDeviceToDevice));
  }, opt);
  const double best_ms = std::min(kernel_copy.median_ms, driver_copy.median_ms);
  c.copy_bytes_per_s = 2.0 * static_cast<double>(src.bytes()) / (best_ms * 1e-3);

  const int threads = 256;
  const int blocks = dev->sm_count * 16;
  DeviceBuffer<float> out(static_cast<std::size_t>(blocks) * threads, 0);
  const TimingStats fma = time_kernel([&] {
    fma_loop<<<blocks, threads>>>(out.data(), 0.999f, 1e-3f);
    CUDA_CHECK(cudaGetLastError());
  }, opt);
  const double flops = 2.0 * kChains * kFmaIterations * static_cast<double>(blocks) * threads;
  c.fma_flops_per_s = flops / (fma.median_ms * 1e-3);

  if (dev->cc_major >= 8) {
    const int mma_blocks = dev->sm_count * 8;  // 8 warps per block: 64 warps per SM, 16 per scheduler
    // Flops per second of the loop of mma.m16n8k<DEPTH>: 2·16·8·DEPTH a warp's instruction.
    auto mma_rate = [&](auto launch, int depth) {
      const TimingStats mma = time_kernel([&] {
        launch();
        CUDA_CHECK(cudaGetLastError());
      }, opt);
      const double mmas = static_cast<double>(kMmaChains) * kMmaIterations * mma_blocks * (threads / 32);
      return mmas * 2.0 * 16 * 8 * depth / (mma.median_ms * 1e-3);
    };
    c.tf32_mma_flops_per_s = mma_rate([&] { tf32_mma_loop<8><<<mma_blocks, threads>>>(out.data(), 1.0f); }, 8);
    c.tf32_mma_k4_flops_per_s = mma_rate([&] { tf32_mma_loop<4><<<mma_blocks, threads>>>(out.data(), 1.0f); }, 4);
  }
  return c;
}

double roofline_seconds(double bytes, double flops, const Ceilings& c) {
  return std::max(bytes / c.copy_bytes_per_s, flops / c.fma_flops_per_s);
}

}  // namespace convlab
