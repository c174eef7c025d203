/// @file kernel_overlap.cuh
/// @brief Lab 08 (given, do not edit): what lets a kernel overlap the one before it in the stream.
///
/// The launchers start a layer's passes and its GEMM so that each may begin while the one before
/// it is still ending (programmatic dependent launch, compute capability 9.0: launch_overlapping
/// in tensor_cores.cu). A kernel says when the next may be placed (let_next_kernel_start) and,
/// before it reads what the one before it wrote, waits for that one (wait_for_previous_kernel).
/// Before sm_90 both are no-ops and the launches do not overlap.
#pragma once

namespace convlab::lab08 {

/// Lets the kernel launched after this one be placed on the SMs as this one's blocks free them,
/// rather than after this one ends: what it may do before its wait_for_previous_kernel (its set-up)
/// then overlaps this one's last blocks.
__device__ __forceinline__ void let_next_kernel_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

/// Waits until the kernel launched before this one has ended and its writes are visible. A kernel
/// started by launch_overlapping calls it before it reads what that one wrote, or, if it reads
/// nothing of it, before it ends, so that it ends after it and the next kernel may count on both.
__device__ __forceinline__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

}  // namespace convlab::lab08
