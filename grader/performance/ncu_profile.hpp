// `--profile`: Nsight Compute's counters for each variant of a lab on the performance case,
// shown beside the analysis model's predictions and always labelled "measured (ncu)".
//
// A metric that reads `n/a`, a profiler error, ERR_NVGPUCTRPERM or a missing ncu makes the
// value "unavailable: reason"; a predicted value never stands in for a measured one
// (docs/design.md, GPU facts, lists the metric names that work).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "session/grade_result.hpp"
#include "system/sandbox.hpp"

namespace convlab::grader {

/// The metrics the grader asks for (docs/design.md, GPU facts).
inline constexpr const char* kMetricGlobalLoadBytes = "smsp__sass_data_bytes_mem_global_op_ld.sum";
inline constexpr const char* kMetricSharedLoadBytes = "smsp__sass_data_bytes_mem_shared_op_ld.sum";
inline constexpr const char* kMetricDramReadBytes = "dram__bytes_read.sum";
inline constexpr const char* kMetricDivergentBranches = "smsp__sass_branch_targets_threads_divergent.sum";
inline constexpr const char* kMetricThreadsPerWarpInst = "smsp__average_thread_inst_executed_per_inst_executed.ratio";
/// cp.async (LDGSTS, lab 06 step 3): the bytes its copies read (thread-level) and its warp-level
/// instructions; ordinary loads never include them.
inline constexpr const char* kMetricAsyncCopyBytes = "sm__sass_data_bytes_mem_global_op_ldgsts.sum";
inline constexpr const char* kMetricAsyncCopyInsts = "sm__sass_inst_executed_op_ldgsts.sum";
/// Warp execution efficiency from its sums (ratios do not add over kernels): threads that
/// executed, threads predicated on, and warp instructions. Active-thread efficiency is
/// thread_inst / (32 · inst); predicated-on efficiency is thread_inst_pred_on / (32 · inst).
inline constexpr const char* kMetricThreadInsts = "smsp__thread_inst_executed.sum";
inline constexpr const char* kMetricThreadInstsPredOn = "smsp__thread_inst_executed_pred_on.sum";
inline constexpr const char* kMetricWarpInsts = "smsp__inst_executed.sum";
/// Tensor-core MMA instructions (warp-level mma.sync of any type: lab 08's TF32 and BF16 ones),
/// what the analysis model's MMA counts predict.
inline constexpr const char* kMetricTensorMmaInsts = "sm__inst_executed_pipe_tensor_op_hmma.sum";
/// Hopper's warpgroup MMAs (wgmma, lab 08 steps 5 to 7), counted once per warp: 4 per instruction. Asked
/// for on compute capability 9.x only (an extra metric of run_ncu): other GPUs have no such pipe.
inline constexpr const char* kMetricTensorWgmmaInsts = "sm__inst_executed_pipe_tensor_op_gmma.sum";
/// The metrics that add up over kernels.
std::vector<std::string> summed_metrics();

/// Warp execution efficiency of a profile, in [0, 1]: threads per warp instruction / 32, all
/// executing threads (`pred_on` false) or only those predicated on; unavailable with the reason.
Measured warp_execution_efficiency(const ProfileResult& p, bool pred_on);

/// One row of ncu's CSV: one metric of one kernel launch.
struct NcuRow {
  std::string launch_id;  ///< "ID"
  std::string kernel;     ///< "Kernel Name"
  std::string metric;     ///< "Metric Name"
  std::string value;      ///< "Metric Value", as printed ("268,520,960", "n/a")
};

/// Splits one CSV line (quoted fields, "" escapes).
std::vector<std::string> split_csv_line(const std::string& line);

/// The rows of `ncu --csv` output; lines before the header (ncu's ==WARNING== notes) are
/// skipped. @throws std::runtime_error if there is no header.
std::vector<NcuRow> parse_ncu_csv(const std::string& text);

/// A value as ncu prints it: thousands separators removed; nullopt for "n/a" or junk.
std::optional<double> parse_ncu_number(const std::string& value);

/// The profile of one variant from ncu's CSV and its console output: sums over launches, the
/// per-launch ratio, or "unavailable: ..." for every value that could not be measured; `extra`:
/// metrics asked for besides summed_metrics(), summed too.
ProfileResult profile_from_ncu(const std::string& variant, const std::string& csv, const std::string& console,
                               int exit_code, const std::vector<std::string>& extra = {});

/// A profile in which every metric is unavailable for `reason`.
ProfileResult unavailable_profile(const std::string& variant, const std::string& reason);

/// Runs ncu on `exe --variant VARIANT` over the staged `perf_case`, inside `sandbox` when given,
/// asking for summed_metrics() and `extra` (kMetricTensorWgmmaInsts on Hopper).
ProfileResult run_ncu(const std::filesystem::path& ncu, const std::filesystem::path& exe, const std::string& variant,
                      const std::filesystem::path& perf_case, int timeout_s, const std::filesystem::path& work,
                      const std::optional<SandboxSpec>& sandbox = std::nullopt,
                      const std::vector<std::string>& extra = {});

}  // namespace convlab::grader
