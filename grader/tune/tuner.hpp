/// @file tuner.hpp
/// @brief Lab 07's autotuner (after Iandola et al. and the GTC talk S4297) on one kernel source:
///        the sweep, the benchmark of the configurations in use, the compile-only report and the
///        cache warm-up. `grader tune` is its command line (grader/commands/tune_command.cpp).
///
/// The sweep: stage 1 is the talk's heat map (outputs per thread in x × y, 32×4 threads,
/// global→register) with each filter path; stage 2 takes the three best cells and tries ten block
/// shapes with rolled and unrolled rows; stage 3 tries the best so far with each input path ×
/// filter path. Every configuration is compiled by NVRTC from the given kernel source (on all
/// cores, with ptxas's resource report), rejected when it spills, checked against the CPU
/// reference on a 389×1028 image, and timed on a size×size image (median; far larger than L2).
/// It writes the tuning file (with the kernel's origin and hash), sweep.csv, the heat-map data
/// and gnuplot script, table.md and table.csv.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "convlab/autotune/kernel_source.hpp"

namespace convlab::lab07 {

struct TunerOptions {
  std::string masks = "all";        ///< mask widths, "3,5,17" or "all"
  int size = 8192;                  ///< side of the square timing image
  bool quick = false;               ///< a small sweep
  int repeats = 7;                  ///< timed runs per configuration in the sweep
  int jobs = 0;                     ///< compile threads (0: every hardware thread)
  std::string arch;                 ///< compile_only: "90" for sm_90 (default 90)
  KernelSource kernel;              ///< the kernel source tuned (read by the caller)
  std::filesystem::path bin_dir;    ///< the build's bin/ (default tuning file and reports beside it)
  std::filesystem::path tuning;     ///< tuning file; empty: default_tuning_path(bin_dir, gpu, origin)
  std::filesystem::path out;        ///< report folder; empty: default_report_dir(bin_dir, gpu, origin)
  std::filesystem::path cache;      ///< cubin cache folder; empty: none
};

/// What a run produced, for the caller to print or plot.
struct TunerResult {
  bool ok = false;                    ///< everything compiled / the sweep found a configuration per K
  std::filesystem::path report_dir;   ///< where the heat-map data and tables are (sweep, bench)
  std::filesystem::path tuning_file;  ///< the tuning file written (sweep) or read (bench)
};

class Tuner {
 public:
  explicit Tuner(TunerOptions options);
  ~Tuner();
  Tuner(const Tuner&) = delete;
  Tuner& operator=(const Tuner&) = delete;

  /// The full sweep; writes the tuning file and the reports. @throws on a GPU or file error.
  TunerResult sweep();
  /// Times the configurations in use (the tuning file made for this kernel, else the defaults).
  TunerResult bench();
  /// Compiles the heat-map sweep without a GPU and prints registers and spills.
  TunerResult compile_only();
  /// Compiles what the lab's variants will use into the cache.
  TunerResult warm_cache();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace convlab::lab07
