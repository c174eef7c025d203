/// @file compile_pool.hpp
/// @brief NVRTC compilations of one kernel source on every core: the autotuner's sweep and
///        warm-up, and the build's precompilation (precompile.hpp), submit instantiations and
///        collect each cubin, or the compiler's error, through a future.
#pragma once

#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <utility>

#include "convlab/autotune/jit.hpp"
#include "convlab/autotune/thread_pool.hpp"
#include "convlab/lab07_config.hpp"

namespace convlab::lab07 {

/// One compilation's outcome.
struct CompileResult {
  std::shared_ptr<const CompiledCubin> cubin;  ///< null on failure
  std::string error;                           ///< NVRTC's message when it failed
};

/// Compiles instantiations of one kernel source for one target on a ThreadPool, through the
/// cubin cache `cache` (empty: none).
class CompilePool {
 public:
  CompilePool(int threads, std::string source, int cc_major, int cc_minor, std::filesystem::path cache)
      : source_(std::move(source)), cc_major_(cc_major), cc_minor_(cc_minor), cache_(std::move(cache)), pool_(threads) {}

  std::shared_future<CompileResult> submit(const KernelVariant& v) {
    return pool_.submit([this, v] {
      CompileResult r;
      try {
        r.cubin = std::make_shared<const CompiledCubin>(compile_variant(source_, v, cc_major_, cc_minor_, cache_));
      } catch (const std::exception& e) {
        r.error = e.what();
      }
      return r;
    });
  }

 private:
  std::string source_;
  int cc_major_;
  int cc_minor_;
  std::filesystem::path cache_;
  ThreadPool pool_;  // last: its workers finish before the fields above go
};

}  // namespace convlab::lab07
