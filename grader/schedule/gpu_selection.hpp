// Which GPUs a class is graded on, and what each child is told: `--gpus 0,2` names GPUs by
// their index among the ones the grader sees, and a child graded on GPU i gets
// CUDA_VISIBLE_DEVICES set to the device that index means (the i-th entry of the grader's own
// CUDA_VISIBLE_DEVICES when that is set, i otherwise), so that it sees exactly one GPU.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace convlab::grader {

/// One GPU of a grading run.
struct GpuSlot {
  int index = 0;           ///< as --gpus names it: 0 .. visible-1
  std::string visible_id;  ///< the child's CUDA_VISIBLE_DEVICES
};

/// Counts the GPUs the grader sees (0 and why when none); injectable so that the CPU tests
/// grade on fake devices.
using GpuCounter = std::function<int(std::string* why_not)>;

/// The GPUs named by `list` ("0,1"; empty: all `visible`), with their child device ids.
/// `parent_visible` is the grader's own CUDA_VISIBLE_DEVICES (nullopt: unset).
/// @throws std::invalid_argument naming the bad entry (not a number, out of range, twice).
std::vector<GpuSlot> select_gpus(const std::string& list, int visible,
                                 const std::optional<std::string>& parent_visible);

}  // namespace convlab::grader
