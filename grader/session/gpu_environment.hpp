// What every lab and every submission of one grading run share on one GPU: the cases and their
// expected outputs, the rubric and its performance cases, the settings, the variants of each
// lab, the reference solutions' timings (measured once per run, on this GPU, and reused by
// every submission of a batch), and the GPU's turns (session/gpu_turns.hpp).
//
// Several students may be graded on one GPU at once, each on its own thread: what is made on
// first use (performance cases, listings, reference timings, folders) is made under a lock.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "session/case_set.hpp"
#include "session/grade_result.hpp"
#include "session/gpu_turns.hpp"
#include "build/lab_folders.hpp"
#include "run/lab_variants.hpp"
#include "session/rubric.hpp"
#include "system/sandbox.hpp"

namespace convlab::grader {

/// How a grading run behaves.
struct GradeSettings {
  int case_timeout_s = 20;        ///< per case and variant (the runner's --timeout)
  /// Timed calls of a witnessed phase (each on fresh inputs, each output sampled): enough that
  /// a phase's hidden work exceeds the witness's resolution (performance/time_checks.hpp).
  int timed_calls = 100;
  bool sanitize = false;          ///< run compute-sanitizer memcheck and racecheck
  bool profile = false;           ///< run Nsight Compute on the performance case
  std::string device_name;        ///< cudaDeviceProp::name ("NVIDIA H200"): lab 07's tuning file
  int sm_count = 0;               ///< the GPU's SMs: lab 06's step 3 plan (0: unknown)
  /// The GPU's compute capability, major·10 + minor: a variant that runs on another GPU only (lab
  /// 08 step 5: 9.0) is left out of the lab here (0: unknown, every variant is run).
  int compute_capability = 0;
  std::optional<std::filesystem::path> compute_sanitizer;  ///< resolved when sanitize
  std::optional<std::filesystem::path> ncu;                ///< resolved when profile (may be absent)
  std::string ncu_missing_reason = "ncu was not found (PATH, the CUDA toolkit's bin/)";
  int max_crash_restarts = 3;     ///< fresh processes after crashes, per lab
  int process_grace_s = 30;       ///< the grader kills a child this long after all its runs' timeouts
  std::size_t sanitize_max_outputs = 4096;  ///< "small case": at most this many outputs
  /// grade --error-map DIR: each failing run's map as DIR/<lab>__<variant>__<case>.png.
  std::optional<std::filesystem::path> error_map_dir;
  std::function<void(const std::string&)> progress;  ///< progress lines (may be empty)
  /// The sandbox every lab run goes in (run/lab_sandbox.hpp); nullopt: --no-sandbox.
  std::optional<SandboxSpec> sandbox;
};

/// A reference solution's times on the performance case.
struct ReferenceTiming {
  std::string unavailable;                  ///< why there is none
  std::map<std::string, double> median_ms;  ///< by variant
  std::map<std::string, PhaseEvidence> evidence;  ///< by variant: its witnessed phase
  double copy_gb_per_s = 0;                 ///< the GPU's ceilings, as the reference's runner measured them
  double fma_gflop_per_s = 0;
};

/// State shared by the whole run.
class GradingEnvironment {
 public:
  /// @param reference_exe     the solution executable of a lab (nullopt: none built)
  /// @param variants_exe       a trusted executable to list a lab's variants (the project's build)
  /// @param host_turns         the turns of the host this GPU shares with the environments of its
  ///                           other GPUs (session/gpu_turns.hpp); by default, a host of its own
  GradingEnvironment(CaseSet cases, Rubric rubric, GradeSettings settings, std::filesystem::path work_root,
                     std::function<std::optional<std::filesystem::path>(const LabInfo&)> reference_exe,
                     std::function<std::optional<std::filesystem::path>(const LabInfo&)> variants_exe,
                     std::shared_ptr<HostTurns> host_turns = std::make_shared<HostTurns>());

  [[nodiscard]] const CaseSet& cases() const { return cases_; }
  [[nodiscard]] const Rubric& rubric() const { return rubric_; }
  [[nodiscard]] const GradeSettings& settings() const { return settings_; }
  ExpectationCache& expectations() { return expectations_; }
  /// The GPU's turns: students graded on it at once share it or have it alone, by its host's rule.
  GpuTurns& gpu_turns() { return gpu_turns_; }

  /// The case `lab`'s variants of problem `p` are timed on (the rubric's, or the lab's own:
  /// Rubric::performance_case), generated on first use and shared by every lab that uses it.
  const GradingCase& performance_case(const LabInfo& lab, Problem p);
  /// Its name, "conv2d/perf_2048x2048_k5", without generating it.
  [[nodiscard]] std::string performance_case_id(const LabInfo& lab, Problem p) const;

  /// The variants of `lab`, from the trusted executable, else from `fallback` (the graded one);
  /// those this GPU cannot run (GradeSettings::compute_capability) moved to not_on_this_gpu.
  /// @returns nullptr with the reason in `error` if neither can list them, or if none runs here.
  const LabVariants* variants(const LabInfo& lab, const std::optional<std::filesystem::path>& fallback,
                            std::string* error);

  /// The reference solution's executable for `lab` (nullopt: none is built).
  [[nodiscard]] std::optional<std::filesystem::path> reference_exe(const LabInfo& lab) const {
    return reference_exe_(lab);
  }
  /// The reference timing of `lab` stored earlier in this run, or nullptr. The timing itself
  /// is the performance pass's (reference_timing in performance/performance_pass.hpp): the
  /// environment only keeps it, so that every submission of a batch reuses one measurement.
  /// Looked up and stored during a turn alone, so no two students time the reference.
  [[nodiscard]] const ReferenceTiming* cached_reference(const LabInfo& lab) const;
  /// Keeps `timing` as the reference timing of `lab` for the rest of the run.
  const ReferenceTiming& store_reference(const LabInfo& lab, ReferenceTiming timing);

  /// A fresh, empty folder under the run's work folder.
  std::filesystem::path fresh_dir(const std::string& name);

  /// Prints a progress line if the settings ask for it.
  void progress(const std::string& line) const;

 private:
  CaseSet cases_;
  Rubric rubric_;
  GradeSettings settings_;
  std::filesystem::path work_root_;
  std::function<std::optional<std::filesystem::path>(const LabInfo&)> reference_exe_;
  std::function<std::optional<std::filesystem::path>(const LabInfo&)> variants_exe_;
  ExpectationCache expectations_;
  GpuTurns gpu_turns_;
  mutable std::mutex made_mutex_;  ///< the maps below; std::map keeps the entries it hands out in place
  std::map<std::string, GradingCase> performance_cases_;  ///< by the case's folder under the work root
  std::map<std::string, LabVariants> variants_;
  std::map<std::string, ReferenceTiming> references_;
  std::atomic<int> dirs_{0};
};

}  // namespace convlab::grader
