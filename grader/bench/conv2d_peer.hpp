/// @file conv2d_peer.hpp
/// @brief The libraries a user would otherwise pick for one 2D convolution, behind one
///        interface, with the lectures' semantics (cross-correlation, zero ghost cells,
///        r = (K-1)/2): NPP, cuDNN (one input and one output channel), cuFFT, CuPy.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conv2d_check.hpp"
#include "convlab/event_timer.cuh"

namespace convlab::bench {

/// One problem: device-resident input, mask and output, and the mask on the host.
struct Conv2dProblem {
  const float* N = nullptr;       ///< input, height×width (device)
  const float* M = nullptr;       ///< mask, K×K (device)
  float* P = nullptr;             ///< output, height×width (device)
  std::vector<float> mask_host;   ///< the same mask on the host
  int height = 0;
  int width = 0;
  int mask_width = 0;
  int warmup = 3;    ///< the bench's untimed runs before timing, for a peer timed in its own process
  int repeats = 20;  ///< and its timed runs
};

/// A library's 2D convolution.
class Conv2dPeer {
 public:
  virtual ~Conv2dPeer() = default;
  /// "NPP nppiFilterBorder_32f_C1R", "cuDNN", "cuFFT".
  [[nodiscard]] virtual std::string name() const = 0;
  /// Sets up one problem, untimed: plans, algorithm search, workspaces.
  virtual void prepare(const Conv2dProblem& problem) = 0;
  /// The timed part: P = conv(N, M), enqueued on the default stream.
  virtual void run() = 0;
  /// Untimed, after the checked run: moves a result the library cannot place itself into P.
  virtual void finish() {}
  /// What prepare() chose: algorithm, border handling, transform size.
  [[nodiscard]] virtual std::string detail() const = 0;
  /// The error model of the chosen method.
  [[nodiscard]] virtual Accuracy accuracy() const { return Accuracy::direct; }
  /// For Accuracy::transform: points of the transform.
  [[nodiscard]] virtual double transform_points() const { return 0; }
  /// The times of a peer that runs in a process of its own (CuPy) and is timed there, by the same
  /// protocol; nullopt for one timed here, by running run().
  [[nodiscard]] virtual std::optional<TimingStats> own_timing() const { return std::nullopt; }
};

/// A peer that is not in this build, and why.
struct MissingPeer {
  std::string name;
  std::string reason;
};

/// The peers this build has (NPP and cuDNN when CMake found them; cuFFT always; CuPy when
/// python3 on this machine can import it and reach the GPU).
std::vector<std::unique_ptr<Conv2dPeer>> make_peers();
/// The peers this build lacks, with the reason.
std::vector<MissingPeer> missing_peers();

// The factories, one per library (each in its own file).
std::unique_ptr<Conv2dPeer> make_cufft_peer();
/// CuPy, if it can run here (its probe, once a process); else nullopt and `why` says why.
std::unique_ptr<Conv2dPeer> make_cupy_peer(std::string* why);
#ifdef CONVLAB_HAVE_NPP
std::unique_ptr<Conv2dPeer> make_npp_peer();
#endif
#ifdef CONVLAB_HAVE_CUDNN
std::unique_ptr<Conv2dPeer> make_cudnn_peer();
#endif

}  // namespace convlab::bench
