// Lab 07's autotuner on one kernel source (tune/tuner.hpp): the sweep, the benchmark, the
// compile-only report and the cache warm-up. The sweep searches and measures here; its tables
// are written by tune/sweep_report.cpp.
#include "tune/tuner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <future>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "convlab/analysis_register_tiling.hpp"
#include "convlab/autotune/compile_pool.hpp"
#include "convlab/autotune/jit.hpp"
#include "convlab/autotune/ptxas_report.hpp"
#include "convlab/autotune/search_space.hpp"
#include "convlab/autotune/tuning_file.hpp"
#include "convlab/compare.hpp"
#include "convlab/datagen.hpp"
#include "convlab/device_buffer.cuh"
#include "convlab/device_info.hpp"
#include "convlab/event_timer.cuh"
#include "convlab/lab07_config.hpp"
#include "convlab/reference.hpp"
#include "tune/measurement.hpp"
#include "tune/sweep_report.hpp"

namespace convlab::lab07 {
namespace fs = std::filesystem;

namespace {

std::string first_line(const std::string& s) {
  const std::size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

// --- The tuner -------------------------------------------------------------------------------------

/// Device-resident inputs of one mask width: the timing image is shared, the check case (and
/// its CPU reference) and the masks are per mask width.
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// A configuration handed to the compile pool, measured when its compilation finishes.
struct Pending {
  KernelVariant v;
  std::string stage;
  std::shared_future<CompileResult> f;
};

/// Whether `all` already holds this configuration with this inner loop.
bool measured_before(const std::vector<Measurement>& all, const KernelVariant& v) {
  return std::any_of(all.begin(), all.end(), [&](const Measurement& m) {
    return m.variant.config == v.config && m.variant.runtime_inner == v.runtime_inner;
  });
}

/// The fastest usable measurement of mask width k with compile-time loops, or nullptr.
const Measurement* fastest_compile_time(const std::vector<Measurement>& all, int k) {
  return fastest(all, [&](const Measurement& m) { return m.variant.config.mask_width == k && !m.variant.runtime_inner; });
}

/// Up to n of the fastest usable heat-map cells of mask width k, one per outputs-per-thread
/// shape: the seeds of stage 2.
std::vector<TileConfig> heatmap_seeds(const std::vector<Measurement>& all, int k, std::size_t n) {
  std::vector<const Measurement*> cells;
  for (const Measurement& m : all) {
    if (m.stage == "heatmap" && m.variant.config.mask_width == k && m.usable()) cells.push_back(&m);
  }
  std::sort(cells.begin(), cells.end(), [](const Measurement* a, const Measurement* b) { return *a->ms < *b->ms; });
  std::vector<TileConfig> seeds;
  for (const Measurement* m : cells) {
    const TileConfig& c = m->variant.config;
    const bool seen = std::any_of(seeds.begin(), seeds.end(),
                                  [&](const TileConfig& s) { return s.out_x == c.out_x && s.out_y == c.out_y; });
    if (!seen) seeds.push_back(c);
    if (seeds.size() == n) break;
  }
  return seeds;
}

struct MaskData {
  Conv2dCase check;                       // 389×1028, with its double reference
  Tensor<double> check_abs;               // S of the tolerance rule
  std::unique_ptr<DeviceBuffer<float>> check_n, check_m, check_p;
  std::unique_ptr<DeviceBuffer<float>> mask;  // the timing mask (random, non-uniform)
};

}  // namespace

struct Tuner::Impl {
  explicit Impl(TunerOptions o) : opt_(std::move(o)) {}

  TunerResult compile_only();
  TunerResult warm_cache();
  TunerResult sweep();
  TunerResult bench();

  // The sweep's phases: search (stages 1 to 3, the run-time inner loops), then time the
  // winners, then write.
  SweepOutcome search(CompilePool& pool, Clock::time_point t_start);
  void drain(std::vector<Pending>& pending, const char* what, SweepOutcome& s, Clock::time_point t_start);
  std::vector<Pending> stage_heatmaps(CompilePool& pool, const std::vector<int>& order) const;
  std::vector<Pending> stage_refine(CompilePool& pool, const std::vector<int>& order,
                                    const std::vector<Measurement>& all) const;
  std::vector<Pending> stage_paths(CompilePool& pool, const std::vector<int>& order,
                                   const std::vector<Measurement>& all) const;
  void time_winners(SweepOutcome& s);
  void write_sweep_data(const fs::path& dir, const SweepOutcome& s) const;
  TuningTable tuning_table(const SweepOutcome& s, const nlohmann::json& measured) const;
  void warm_lab_variants(CompilePool& pool, const TuningTable& table);

  void prepare_device(bool need_check_images);
  void query();
  MaskData& data(int k);
  Conv2dArgs timing_args(int k);
  Measurement measure(const KernelVariant& v, const std::string& stage, const CompileResult& cr);
  double time_final(const KernelVariant& v, const CompiledCubin& c);
  fs::path report_dir() const;
  fs::path tuning_path() const;
  const fs::path& cache_path() const { return opt_.cache; }
  const std::string& kernel_source() const { return opt_.kernel.text; }
  std::optional<TuningTable> tuning_for_this_kernel(const fs::path& file, std::string* why) const;
  int jobs() const {
    return opt_.jobs > 0 ? opt_.jobs : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }

  TunerOptions opt_;
  DeviceInfo device_;
  Peaks peaks_;
  std::vector<int> ks_;
  std::unique_ptr<DeviceBuffer<float>> big_n_, big_p_;
  std::map<int, MaskData> data_;
  std::map<std::string, std::shared_ptr<const CompiledCubin>> cubins_;  // by kernel name
};

fs::path Tuner::Impl::tuning_path() const {
  if (!opt_.tuning.empty()) return opt_.tuning;
  return default_tuning_path(opt_.bin_dir, device_.name, opt_.kernel.origin);
}

fs::path Tuner::Impl::report_dir() const {
  if (!opt_.out.empty()) return opt_.out;
  return default_report_dir(opt_.bin_dir, device_.name, opt_.kernel.origin);
}

void Tuner::Impl::query() {
  std::string why;
  const auto dev = query_device(&why);
  if (!dev) throw std::runtime_error(why);
  device_ = *dev;
}

/// The tuning file's table when it was made on this GPU for this very kernel source; else
/// nothing, and *why says so.
std::optional<TuningTable> Tuner::Impl::tuning_for_this_kernel(const fs::path& file, std::string* why) const {
  if (!fs::exists(file)) {
    *why = fmt::format("no tuning file {}", file.string());
    return std::nullopt;
  }
  TuningTable t = read_tuning_file(file);
  if (t.device != device_.name) {
    *why = fmt::format("{} was tuned on {}", file.string(), t.device);
    return std::nullopt;
  }
  if (!t.kernel || t.kernel->hash != opt_.kernel.hash) {
    *why = fmt::format("{} was tuned on {}, not on {} (hash {})", file.string(),
                       t.kernel ? describe(*t.kernel) : std::string("an unrecorded kernel"), opt_.kernel.path.string(),
                       opt_.kernel.hash);
    return std::nullopt;
  }
  return t;
}

void Tuner::Impl::prepare_device(bool need_check_images) {
  std::string why;
  const auto dev = query_device(&why);
  if (!dev) throw std::runtime_error(why);
  device_ = *dev;
  fmt::print("lab07 tuner on {}\n", device_.describe());
  const Ceilings c = measure_ceilings();
  peaks_ = {c.copy_bytes_per_s, c.fma_flops_per_s};
  fmt::print("measured ceilings: copy {:.0f} GB/s, FMA {:.1f} TFLOP/s; timing image {}x{} float32\n",
             peaks_.copy_bytes_per_s / 1e9, peaks_.fma_flops_per_s / 1e12, opt_.size, opt_.size);
  const std::size_t n = static_cast<std::size_t>(opt_.size) * static_cast<std::size_t>(opt_.size);
  std::vector<float> host(n);
  std::mt19937_64 rng(20140324);  // any seed: random, non-uniform values in [-1, 1)
  for (float& v : host) v = static_cast<float>(static_cast<double>(rng() >> 11) * 0x1.0p-53 * 2.0 - 1.0);
  big_n_ = std::make_unique<DeviceBuffer<float>>(n);
  big_p_ = std::make_unique<DeviceBuffer<float>>(n);
  big_n_->upload(host.data());
  big_p_->fill_bytes(0xFF);
  for (const int k : ks_) {
    MaskData& d = data_[k];
    std::vector<float> m(static_cast<std::size_t>(k) * k);
    for (float& v : m) v = static_cast<float>(static_cast<double>(rng() >> 11) * 0x1.0p-53 * 2.0 - 1.0);
    d.mask = std::make_unique<DeviceBuffer<float>>(m.size());
    d.mask->upload(m.data());
    if (!need_check_images) continue;
    Conv2dSpec spec;
    spec.name = fmt::format("tune_k{}", k);
    spec.shape = {389, 1028, k};  // a prime height; a width that allows 16-byte vectors
    spec.seed = 7000 + static_cast<std::uint64_t>(k);
    d.check = generate_case(spec);
    d.check_abs = conv2d_abs_sum(d.check.image, d.check.mask);
    d.check_n = std::make_unique<DeviceBuffer<float>>(d.check.image.size());
    d.check_m = std::make_unique<DeviceBuffer<float>>(d.check.mask.size());
    d.check_p = std::make_unique<DeviceBuffer<float>>(d.check.image.size());
    d.check_n->upload(d.check.image.data());
    d.check_m->upload(d.check.mask.data());
  }
}

MaskData& Tuner::Impl::data(int k) { return data_.at(k); }

Conv2dArgs Tuner::Impl::timing_args(int k) {
  return {big_n_->data(), data(k).mask->data(), big_p_->data(), opt_.size, opt_.size, k};
}

Measurement Tuner::Impl::measure(const KernelVariant& v, const std::string& stage, const CompileResult& cr) {
  Measurement m;
  m.variant = v;
  m.stage = stage;
  if (!cr.cubin) {
    m.status = "compile error";
    m.note = first_line(cr.error);
    return m;
  }
  const CompiledCubin& c = *cr.cubin;
  cubins_[c.name_expression] = cr.cubin;
  m.registers = c.usage.registers;
  m.stack_bytes = c.usage.stack_bytes;
  m.spill_bytes = c.usage.spill_stores + c.usage.spill_loads;
  m.shared_bytes = c.usage.shared_bytes;
  m.compile_s = c.seconds;
  try {
    LoadedKernel kernel(c, v);
    m.registers = kernel.registers();
    m.stack_bytes = std::max(m.stack_bytes, kernel.local_bytes());
    const bool spills = c.usage.spills() || kernel.local_bytes() > 0;
    // Correct first: poisoned output, one run, the tolerance rule against the CPU reference.
    MaskData& d = data(v.config.mask_width);
    const int k = v.config.mask_width;
    const Conv2dArgs check{d.check_n->data(), d.check_m->data(), d.check_p->data(),
                           static_cast<int>(d.check.image.dim(0)), static_cast<int>(d.check.image.dim(1)), k};
    d.check_p->fill_bytes(0xFF);
    kernel.launch(check);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    Tensor<float> got(d.check.image.shape());
    d.check_p->download(got.data());
    const CompareResult cmp = compare_outputs(got, *d.check.expected, d.check_abs, static_cast<std::size_t>(k) * k,
                                              Tolerance::fp32());
    if (!cmp.ok() || !d.check_p->check_guards().clean()) {
      m.status = "wrong";
      m.note = cmp.summary();
      return m;
    }
    TimingOptions t;
    t.warmup = 1;
    t.repeats = opt_.repeats;
    t.flush_l2 = false;  // the timing image is many times the L2
    t.max_seconds = 0.5;
    const Conv2dArgs big = timing_args(k);
    m.ms = time_kernel([&] { kernel.launch(big); }, t).median_ms;
    m.status = spills && !v.runtime_inner ? "spills" : "ok";
    if (m.status == "spills") m.note = fmt::format("{} bytes spilled, {} bytes of stack", m.spill_bytes, m.stack_bytes);
  } catch (const CudaError& e) {
    if (e.sticky()) throw;
    m.status = "launch error";
    m.note = first_line(e.what());
  }
  return m;
}

/// The standard protocol of the lab runner (docs/design.md, "Timing"): warm-up, median of 20, L2 flushed.
double Tuner::Impl::time_final(const KernelVariant& v, const CompiledCubin& c) {
  LoadedKernel kernel(c, v);
  const Conv2dArgs big = timing_args(v.config.mask_width);
  TimingOptions t;
  t.warmup = 3;
  t.repeats = 20;
  t.flush_l2 = true;
  return time_kernel([&] { kernel.launch(big); }, t).median_ms;
}

TunerResult Tuner::Impl::compile_only() {
  ks_ = parse_mask_list(opt_.masks);
  int major = 9;
  int minor = 0;
  if (!opt_.arch.empty()) {
    const int a = std::stoi(opt_.arch);
    major = a / 10;
    minor = a % 10;
  }
  const std::string source = kernel_source();
  const auto t0 = std::chrono::steady_clock::now();
  CompilePool pool(jobs(), source, major, minor, cache_path());
  struct Entry {
    KernelVariant v;
    std::shared_future<CompileResult> f;
  };
  std::vector<Entry> entries;
  std::vector<int> order = ks_;
  std::sort(order.rbegin(), order.rend());  // the longest compilations first
  for (const int k : order) {
    for (const FilterPath f : {FilterPath::shfl, FilterPath::constant}) {
      for (const TileConfig& c : heatmap_configs(k, f, opt_.quick)) {
        const KernelVariant v{c, true, false};
        entries.push_back({v, pool.submit(v)});
      }
    }
    const KernelVariant base{baseline_config(k), true, false};
    entries.push_back({base, pool.submit(base)});
    // What the lab's variants compile at first use when there is no tuning file.
    for (const KernelVariant& v : lab_instantiations(*default_config(k), {})) entries.push_back({v, pool.submit(v)});
  }
  fmt::print("compiling {} instantiations for sm_{}{} on {} threads (cache: {})\n", entries.size(), major, minor,
             jobs(), cache_path().empty() ? "off" : cache_path().string());
  double cpu = 0;
  int spilling = 0;
  int failed = 0;
  for (Entry& e : entries) {
    const CompileResult& r = e.f.get();
    const std::string name = short_config(e.v.config);
    if (!r.cubin) {
      ++failed;
      fmt::print("  K={:<2} {:<28} compile error: {}\n", e.v.config.mask_width, name, first_line(r.error));
      continue;
    }
    const ResourceUsage& u = r.cubin->usage;
    cpu += r.cubin->seconds;
    spilling += u.spills();
    // The analysis model's view of the configuration: the registers its patch needs at least
    // (accumulators, window row, mask) and its floats per FMA, beside what ptxas allocated.
    const analysis::RegisterTilingAnalysis model = analysis::analyze_register_tiling(e.v.config, 64, 64, e.v.vec);
    fmt::print("  K={:<2} {:<38} {:3d} registers (patch {:3d}, {:.3f} floats/FMA)  {:5d} B stack  {:5d} B spilled  "
               "{:6.2f} s{}\n",
               e.v.config.mask_width, name + (e.v.vec && e.v.config.vector_width() > 1 ? "" : " scalar"), u.registers,
               model.patch_registers, model.floats_per_fma, u.stack_bytes, u.spill_stores + u.spill_loads,
               r.cubin->seconds, r.cubin->from_cache ? " (cached)" : "");
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("{} compiled, {} spill, {} failed; {:.0f} s of compilation on {} threads in {:.0f} s\n",
             entries.size() - failed, spilling, failed, cpu, jobs(), wall);
  return {failed == 0, {}, {}};
}

TunerResult Tuner::Impl::warm_cache() {
  ks_ = parse_mask_list(opt_.masks);
  query();
  const fs::path file = tuning_path();
  std::string why;
  const std::optional<TuningTable> tuned = tuning_for_this_kernel(file, &why);
  if (!tuned) fmt::print("{}: the compiled-in defaults\n", why);
  const auto t0 = std::chrono::steady_clock::now();
  CompilePool pool(jobs(), kernel_source(), device_.cc_major, device_.cc_minor, cache_path());
  std::vector<std::shared_future<CompileResult>> futures;
  for (const int k : ks_) {
    const TileConfig best = tuned && tuned->best.count(k) ? tuned->best.at(k) : *default_config(k);
    const std::map<std::string, TileConfig> roles = tuned && tuned->roles.count(k) ? tuned->roles.at(k)
                                                                                   : std::map<std::string, TileConfig>{};
    for (const KernelVariant& v : lab_instantiations(best, roles)) futures.push_back(pool.submit(v));
  }
  int failed = 0;
  for (auto& f : futures) {
    if (!f.get().cubin) {
      ++failed;
      fmt::print("  {}\n", first_line(f.get().error));
    }
  }
  fmt::print("compiled {} kernels for the lab's variants ({}) into {} in {:.0f} s{}\n", futures.size(),
             tuned ? file.string() : std::string("compiled-in defaults"), cache_path().string(),
             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
             failed ? fmt::format(", {} failed", failed) : "");
  return {failed == 0, {}, file};
}

TunerResult Tuner::Impl::sweep() {
  const auto t_start = Clock::now();
  ks_ = parse_mask_list(opt_.masks);
  prepare_device(true);
  fmt::print("tuning the kernel {} ({}, hash {})\n", opt_.kernel.path.string(), opt_.kernel.origin, opt_.kernel.hash);
  CompilePool pool(jobs(), kernel_source(), device_.cc_major, device_.cc_minor, cache_path());
  SweepOutcome s = search(pool, t_start);
  time_winners(s);
  const fs::path dir = report_dir();
  write_sweep_data(dir, s);
  s.elapsed_s = seconds_since(t_start);
  const SweepTables tables = sweep_tables(s);
  write_text_file(dir / "table.md", tables.markdown);
  write_text_file(dir / "table.csv", tables.csv);
  const TuningTable table = tuning_table(s, tables.measured);
  const fs::path tuning = tuning_path();
  write_tuning_file(tuning, table);
  warm_lab_variants(pool, table);
  fmt::print("\n{}", tables.markdown);
  fmt::print("\nwrote {} (read by {}), and sweep.csv, table.md, table.csv, heat-map data in {}\n",
             tuning.string(), opt_.kernel.origin == "solutions" ? "solution07" : "lab07", dir.string());
  return {true, dir, tuning};
}

/// Stages 1 to 3 and the run-time inner loops (tune/tuner.hpp), each stage seeded by what the
/// ones before it measured; then the winner of each mask width.
SweepOutcome Tuner::Impl::search(CompilePool& pool, Clock::time_point t_start) {
  SweepOutcome s;
  s.device = device_.name;
  s.height = opt_.size;
  s.width = opt_.size;
  s.peaks = peaks_;
  s.ks = ks_;
  s.jobs = jobs();
  std::vector<int> order = ks_;
  std::sort(order.rbegin(), order.rend());  // the longest compilations first

  std::vector<Pending> pending = stage_heatmaps(pool, order);
  fmt::print("stage 1: {} configurations (heat maps and baselines), compiling on {} threads\n", pending.size(), jobs());
  drain(pending, "stage 1", s, t_start);
  pending = stage_refine(pool, order, s.all);
  fmt::print("stage 2: {} configurations (block shapes, rolled and unrolled rows)\n", pending.size());
  drain(pending, "stage 2", s, t_start);
  pending = stage_paths(pool, order, s.all);
  fmt::print("stage 3: {} configurations (input and filter paths)\n", pending.size());
  drain(pending, "stage 3", s, t_start);

  for (const int k : ks_) {
    const Measurement* b = fastest_compile_time(s.all, k);
    if (b == nullptr) throw std::runtime_error(fmt::format("no usable configuration for mask width {}", k));
    s.best[k] = *b;
  }
  // The talk's run-time inner loop on each winner.
  for (const int k : order) {
    const KernelVariant v{s.best.at(k).variant.config, true, true};
    pending.push_back({v, "runtime-inner", pool.submit(v)});
  }
  drain(pending, "run-time inner loops", s, t_start);
  return s;
}

/// Measures each pending compilation as it finishes, in order, and reports progress every 50.
void Tuner::Impl::drain(std::vector<Pending>& pending, const char* what, SweepOutcome& s, Clock::time_point t_start) {
  int done = 0;
  for (Pending& p : pending) {
    const CompileResult& r = p.f.get();
    Measurement m = measure(p.v, p.stage, r);
    if (r.cubin) s.compile_cpu_s += r.cubin->seconds;
    s.all.push_back(std::move(m));
    if (++done % 50 == 0 || done == static_cast<int>(pending.size())) {
      fmt::print("  {}: {}/{} measured ({:.0f} s)\n", what, done, pending.size(), seconds_since(t_start));
      std::fflush(stdout);
    }
  }
  pending.clear();
}

/// Stage 1: the heat maps (both filter paths) and the paper's global-memory-only baseline.
std::vector<Pending> Tuner::Impl::stage_heatmaps(CompilePool& pool, const std::vector<int>& order) const {
  std::vector<Pending> pending;
  for (const int k : order) {
    for (const FilterPath f : {FilterPath::shfl, FilterPath::constant}) {
      for (const TileConfig& c : heatmap_configs(k, f, opt_.quick)) {
        const KernelVariant v{c, true, false};
        pending.push_back({v, "heatmap", pool.submit(v)});
      }
    }
    const KernelVariant base{baseline_config(k), true, false};
    pending.push_back({base, "baseline", pool.submit(base)});
  }
  return pending;
}

/// Stage 2: block shapes × row loops around the best heat-map cells.
std::vector<Pending> Tuner::Impl::stage_refine(CompilePool& pool, const std::vector<int>& order,
                                               const std::vector<Measurement>& all) const {
  const std::size_t seeds_per_k = opt_.quick ? 2 : 3;
  std::vector<Pending> pending;
  for (const int k : order) {
    for (const TileConfig& c : refine_configs(heatmap_seeds(all, k, seeds_per_k), opt_.quick)) {
      const KernelVariant v{c, true, false};
      if (!measured_before(all, v)) pending.push_back({v, "refine", pool.submit(v)});
    }
  }
  return pending;
}

/// Stage 3: the best so far with each input path × filter path.
std::vector<Pending> Tuner::Impl::stage_paths(CompilePool& pool, const std::vector<int>& order,
                                              const std::vector<Measurement>& all) const {
  std::vector<Pending> pending;
  for (const int k : order) {
    const Measurement* b = fastest_compile_time(all, k);
    if (b == nullptr) continue;
    for (const TileConfig& c : path_configs(b->variant.config)) {
      const KernelVariant v{c, true, false};
      if (!measured_before(all, v)) pending.push_back({v, "paths", pool.submit(v)});
    }
  }
  return pending;
}

/// The winners and the paper's baseline again, with the lab runner's protocol.
void Tuner::Impl::time_winners(SweepOutcome& s) {
  fmt::print("final timings (median of 20, L2 flushed)...\n");
  for (const int k : ks_) {
    const KernelVariant& bv = s.best.at(k).variant;
    s.final_ms[k] = time_final(bv, *cubins_.at(kernel_name(bv)));
    const KernelVariant base{baseline_config(k), true, false};
    if (cubins_.count(kernel_name(base))) s.baseline_ms[k] = time_final(base, *cubins_.at(kernel_name(base)));
  }
}

/// sweep.csv (everything measured), the heat-map data and the gnuplot script that draws them.
void Tuner::Impl::write_sweep_data(const fs::path& dir, const SweepOutcome& s) const {
  fs::create_directories(dir);
  std::string csv = csv_header() + "\n";
  for (const Measurement& m : s.all) csv += csv_row(m, s.height, s.width, peaks_) + "\n";
  write_text_file(dir / "sweep.csv", csv);
  for (const int k : ks_) {
    write_text_file(dir / fmt::format("heatmap_k{:02d}.dat", k),
                    heatmap_data(k, s.all, s.height, s.width, peaks_, opt_.quick, device_.name));
  }
  write_text_file(dir / "heatmaps.gp", heatmap_gnuplot_script(ks_, device_.name, opt_.quick));
}

/// The tuning file: the winner of each mask width and the best configuration of each path for
/// the lab's comparison variants, with this kernel's identity and the run's measurements.
TuningTable Tuner::Impl::tuning_table(const SweepOutcome& s, const nlohmann::json& measured) const {
  TuningTable table;
  table.device = device_.name;
  table.kernel = id_of(opt_.kernel);
  table.compute_capability = fmt::format("{}.{}", device_.cc_major, device_.cc_minor);
  for (const int k : ks_) {
    table.best[k] = s.best.at(k).variant.config;
    std::map<std::string, TileConfig> roles = sweep_roles(s.all, k);
    if (!roles.empty()) table.roles[k] = std::move(roles);
  }
  table.measurements = {{"image", {s.height, s.width}},
                        {"copy_gb_per_s", peaks_.copy_bytes_per_s / 1e9},
                        {"fma_tflop_per_s", peaks_.fma_flops_per_s / 1e12},
                        {"best", measured}};
  return table;
}

/// Compiles what the lab's four variants will ask for (scalar versions included), so that
/// lab07/solution07 find it in the cache instead of compiling at first use.
void Tuner::Impl::warm_lab_variants(CompilePool& pool, const TuningTable& table) {
  std::vector<std::shared_future<CompileResult>> warm;
  for (const int k : ks_) {
    const auto roles = table.roles.count(k) ? table.roles.at(k) : std::map<std::string, TileConfig>{};
    for (const KernelVariant& v : lab_instantiations(table.best.at(k), roles)) warm.push_back(pool.submit(v));
  }
  int warm_failed = 0;
  for (auto& f : warm) warm_failed += !f.get().cubin;
  fmt::print("compiled the lab's {} instantiations into the cache {}{}\n", warm.size(), cache_path().string(),
             warm_failed ? fmt::format(" ({} failed)", warm_failed) : "");
}

TunerResult Tuner::Impl::bench() {
  ks_ = parse_mask_list(opt_.masks);
  prepare_device(false);
  const fs::path file = tuning_path();
  std::optional<TuningTable> tuned;
  std::string origin = "the compiled-in defaults (convlab/lab07_config.hpp)";
  std::string why;
  tuned = tuning_for_this_kernel(file, &why);
  if (tuned) origin = file.string();
  else origin += fmt::format(" ({})", why);
  fmt::print("configurations from {}, compiled from {}\n", origin, opt_.kernel.path.string());
  const std::string source = kernel_source();
  const long long H = opt_.size;
  const long long W = opt_.size;
  std::string md = fmt::format("# Lab 07 benchmark on {}\n\nImage {}x{} float32, random non-uniform run-time mask; "
                               "configurations from {}. Measured in this run: copy {:.0f} GB/s, FMA {:.1f} TFLOP/s. "
                               "Median of 20 runs, L2 flushed; each run includes the mask's copy to constant memory "
                               "where the configuration uses it.\n\n",
                               device_.name, H, W, origin, peaks_.copy_bytes_per_s / 1e9, peaks_.fma_flops_per_s / 1e12);
  md += "| K | configuration | ms | GB/s | TFLOP/s | % of BW bound | % of FMA peak | % of roofline | target | met |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n";
  nlohmann::json rows = nlohmann::json::array();
  int missed = 0;
  CompilePool pool(jobs(), source, device_.cc_major, device_.cc_minor, cache_path());
  std::map<int, std::shared_future<CompileResult>> compiled;
  for (const int k : ks_) {
    TileConfig c = *default_config(k);
    if (tuned && tuned->best.count(k)) c = tuned->best.at(k);
    compiled[k] = pool.submit(KernelVariant{c, true, false});
  }
  for (const int k : ks_) {
    TileConfig c = *default_config(k);
    if (tuned && tuned->best.count(k)) c = tuned->best.at(k);
    const KernelVariant v{c, true, false};
    const CompileResult& cr = compiled[k].get();
    if (!cr.cubin) throw std::runtime_error(cr.error);
    const CompiledCubin& cubin = *cr.cubin;
    const double ms = time_final(v, cubin);
    const Rates r = rates_for(ms, H, W, k, peaks_);
    const Target t = target_for(k);
    missed += t.exists() && !t.met(r);
    const std::string target = t.exists() ? fmt::format("≥ {:.0f}% of {}", t.percent, t.metric) : "-";
    const std::string met = t.exists() ? (t.met(r) ? "yes" : fmt::format("NO ({:.1f}%)", t.value(r))) : "-";
    md += fmt::format("| {} | {} | {:.4f} | {:.0f} | {:.2f} | {:.1f}% | {:.1f}% | {:.1f}% | {} | {} |\n", k, short_config(c),
                      r.ms, r.gb_per_s, r.tflop_per_s, r.bw_bound_pct, r.fma_peak_pct, r.roofline_pct, target, met);
    nlohmann::json row = to_json(c);
    row.update({{"ms", r.ms}, {"gb_per_s", r.gb_per_s}, {"tflop_per_s", r.tflop_per_s}, {"bw_bound_pct", r.bw_bound_pct},
                {"fma_peak_pct", r.fma_peak_pct}, {"roofline_pct", r.roofline_pct}, {"registers", cubin.usage.registers},
                {"target", target}, {"met", !t.exists() || t.met(r)}});
    rows.push_back(row);
  }
  md += fmt::format("\n{} of the targets missed.\n", missed);
  const fs::path dir = report_dir();
  write_text_file(dir / "bench.md", md);
  nlohmann::json j = {{"format", "convlab-lab07-bench"}, {"version", 1}, {"device", device_.name},
                      {"image", {H, W}}, {"copy_gb_per_s", peaks_.copy_bytes_per_s / 1e9},
                      {"fma_tflop_per_s", peaks_.fma_flops_per_s / 1e12}, {"configurations", origin}, {"results", rows}};
  write_text_file(dir / "bench.json", j.dump(2) + "\n");
  fmt::print("\n{}\nwrote {} and bench.json\n", md, (dir / "bench.md").string());
  return {true, dir, file};
}


Tuner::Tuner(TunerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Tuner::~Tuner() = default;
TunerResult Tuner::sweep() { return impl_->sweep(); }
TunerResult Tuner::bench() { return impl_->bench(); }
TunerResult Tuner::compile_only() { return impl_->compile_only(); }
TunerResult Tuner::warm_cache() { return impl_->warm_cache(); }

}  // namespace convlab::lab07
