/// @file analysis.hpp
/// @brief The analysis model: exact memory-access counts, bandwidth reduction and warp
///        divergence of the lab kernels (labs 01–05), and the lectures' and the talk's
///        back-of-the-envelope models (bytes per flop, percentage of peak, roofline,
///        break-even mask width, im2col replication). Labs 06 and 07 have their own headers:
///        analysis_im2col.hpp and analysis_register_tiling.hpp.
///
/// ## What is counted
/// Counts are *thread-level* accesses, one per element a thread reads or writes, exactly as
/// the kernels are written; caches are not modelled. This is what Nsight Compute reports as
/// `smsp__sass_data_bytes_mem_global_op_ld.sum` ÷ 4 (docs/design.md, Analysis and GPU facts).
/// - Ghost cells (positions outside the image) are never loaded from memory: they are zeros.
/// - *Untiled-equivalent accesses* of a set of outputs: the global input loads the untiled
///   kernel makes to compute the same outputs (in-image taps only). The lecture calls these
///   "global memory accesses replaced by shared-memory accesses".
/// - *Bandwidth reduction*: untiled-equivalent accesses ÷ global input loads. The lecture's
///   interior-tile formula `(T·K)²/(T+K-1)²` (1D: `T·K/(T+K-1)`) is the value of an interior
///   block; the whole-image value counts boundary blocks exactly (ghosts are not loaded).
///
/// ## The loading schemes (the solutions of labs 01–05)
/// r = (K-1)/2. Warps are formed from the linear thread index `tx + ty·blockDim.x`,
/// 32 threads each (the last warp of a block may be partial).
/// - Strategy::untiled (lab 02) and Strategy::untiled_global_mask (lab 01): thread (tx,ty)
///   of block (bx,by) owns output (by·BY+ty, bx·BX+tx); if that is inside the image it loops
///   over the K×K taps and loads each in-image input from global memory. Lab 01 reads the
///   mask from global memory too, one warp-wide load per tap inside the image for any of the
///   warp's threads (Counts::global_mask_loads); lab 02 reads it from
///   `__constant__` memory (not counted as a global load).
/// - Strategy::tiled1 (lab 03, strategy 1): a T×T block computes a T×T output tile. The
///   (T+K-1)² input tile is loaded by a strided loop `for (i = tid; i < IN²; i += T²)` (ghosts
///   stored as zeros); the computing threads then read K² values each from shared memory.
/// - Strategy::tiled2 (lab 04, strategy 2): an I×I block loads an I×I input tile, one element
///   per thread; the centred (I-K+1)² threads whose output is in the image compute.
/// - Strategy::tiled3 (lab 05, strategy 3): a T×T block loads only the T×T core; a tap inside
///   the core is read from shared memory, a tap outside it from global memory (through the
///   caches) if it is in the image, and is a ghost (nothing read) otherwise.
///
/// A 1D problem is the same kernel with one dimension: a row of `width` elements, a mask of
/// K taps, blocks of T (or BX) threads.
///
/// ## Control divergence
/// A warp has control divergence in a phase if, at some branch executed in that phase, its
/// active threads do not all go the same way. Branches include loop conditions (in strategy
/// 1's strided load loop some threads may do one more iteration than others), the in-image
/// vs ghost tests, the "does this thread compute" guard, and strategy 3's core / halo / ghost
/// choice per tap. The *load phase* is everything before `__syncthreads()` (the untiled
/// kernels have none); the *compute phase* is everything after it. The compiler may turn
/// short branches into predicated instructions, so a profiler's divergent-branch count can be
/// 0 while warp execution efficiency drops: compare the model with both.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convlab/ceil_div.hpp"
#include "convlab/shapes.hpp"

namespace convlab::analysis {

/// Threads per warp on every NVIDIA GPU so far.
inline constexpr int kWarpSize = 32;
/// Largest number of threads in one CUDA block; bigger blocks are analysed but not launchable.
inline constexpr int kMaxThreadsPerBlock = 1024;
/// Bytes per float32 element.
inline constexpr double kBytesPerFloat = 4.0;

/// The kernels the model describes, one per lab.
enum class Strategy {
  untiled_global_mask,  ///< lab 01: one thread per output, image and mask in global memory
  untiled,              ///< lab 02: one thread per output, mask in constant memory
  tiled1,               ///< lab 03: block = output tile, input tile loaded in several steps
  tiled2,               ///< lab 04: block = input tile, some threads idle when computing
  tiled3,               ///< lab 05: block = output tile = core in shared memory, halo via caches
};

/// The command-line name of a strategy: "untiled-global-mask", "untiled", "tiled1", ...
/// @param s the strategy
/// @return a static string
const char* strategy_name(Strategy s);

/// One line for people, e.g. "strategy 1: the block covers the output tile ... (lab 03)".
/// @param s the strategy
/// @return a static string
const char* strategy_description(Strategy s);

/// The strategy with this command-line name.
/// @param name e.g. "tiled2"
/// @return the strategy, or nullopt if the name is unknown
std::optional<Strategy> parse_strategy(std::string_view name);

/// Every strategy, in lab order.
/// @return the five strategies
std::vector<Strategy> all_strategies();

/// A kernel configuration: strategy, problem size, tile and block shape.
///
/// For a 1D problem (`dims == 1`) `height`, `tile_y` and `block_y` are 1 and the mask has
/// `mask_width` taps; use config_1d(), config_2d() or untiled_config() to fill one in.
struct Config {
  Strategy strategy = Strategy::tiled1;  ///< which kernel
  int dims = 2;        ///< 1 (a row of `width` elements) or 2 (an image of height×width)
  int height = 1;      ///< H, image rows (1 when dims == 1)
  int width = 1;       ///< W, image columns (N, the length, when dims == 1)
  int mask_width = 1;  ///< K: the mask is K×K (K taps when dims == 1)
  /// Tile along x. tiled1/tiled3: output tile width (= block width); tiled2: input tile width
  /// (= block width, the output tile is tile_x-K+1). Unused by the untiled strategies.
  int tile_x = 1;
  int tile_y = 1;      ///< Tile along y, as tile_x (1 when dims == 1).
  int block_x = 1;     ///< Untiled strategies: threads per block along x (the tiled ones derive it).
  int block_y = 1;     ///< Untiled strategies: threads per block along y (1 when dims == 1).

  /// Checks the configuration. @throws std::invalid_argument naming the bad field.
  void validate() const;
  /// r = (K-1)/2, the mask's anchor offset (integer division).
  /// @return r
  [[nodiscard]] int radius() const { return (mask_width - 1) / 2; }
  /// True for the two untiled strategies.
  /// @return whether the kernel uses no shared memory
  [[nodiscard]] bool untiled() const {
    return strategy == Strategy::untiled || strategy == Strategy::untiled_global_mask;
  }
  /// Mask taps along x: K.
  /// @return K
  [[nodiscard]] int mask_x() const { return mask_width; }
  /// Mask taps along y: K in 2D, 1 in 1D.
  /// @return K or 1
  [[nodiscard]] int mask_y() const { return dims == 2 ? mask_width : 1; }
  /// Threads per block along x.
  /// @return blockDim.x
  [[nodiscard]] int threads_x() const { return untiled() ? block_x : tile_x; }
  /// Threads per block along y.
  /// @return blockDim.y
  [[nodiscard]] int threads_y() const { return untiled() ? block_y : tile_y; }
  /// Threads per block.
  /// @return blockDim.x·blockDim.y
  [[nodiscard]] int threads_per_block() const { return threads_x() * threads_y(); }
  /// Warps per block, ⌈threads/32⌉.
  /// @return warps per block
  [[nodiscard]] int warps_per_block() const {
    return ceil_div(threads_per_block(), kWarpSize);
  }
  /// False when a block would have more than 1024 threads (the model still analyses it).
  /// @return whether CUDA can launch the block
  [[nodiscard]] bool launchable() const { return threads_per_block() <= kMaxThreadsPerBlock; }
  /// Outputs per block along x (the output tile width).
  /// @return output tile width
  [[nodiscard]] int out_tile_x() const;
  /// Outputs per block along y (the output tile height).
  /// @return output tile height
  [[nodiscard]] int out_tile_y() const;
  /// Input positions one block touches along x, halo included: out_tile_x + K - 1
  /// (for tiled2 that is the input tile, tile_x).
  /// @return footprint width
  [[nodiscard]] int footprint_x() const { return out_tile_x() + mask_x() - 1; }
  /// Input positions one block touches along y, halo included.
  /// @return footprint height
  [[nodiscard]] int footprint_y() const { return out_tile_y() + mask_y() - 1; }
  /// Blocks along x, ⌈W / out_tile_x⌉.
  /// @return gridDim.x
  [[nodiscard]] int grid_x() const;
  /// Blocks along y, ⌈H / out_tile_y⌉.
  /// @return gridDim.y
  [[nodiscard]] int grid_y() const;
  /// e.g. "tiled1 2D 32×32 K=5 tile 16×16 block 16×16 grid 2×2".
  /// @return one line for people
  [[nodiscard]] std::string describe() const;
};

/// A 2D tiled configuration with a square tile.
/// @param s tiled1, tiled2 or tiled3
/// @param height H
/// @param width W
/// @param mask_width K
/// @param tile T: the output tile (tiled1, tiled3) or input tile (tiled2) width
/// @return the configuration (not yet validated)
Config config_2d(Strategy s, int height, int width, int mask_width, int tile);

/// A 1D tiled configuration.
/// @param s tiled1, tiled2 or tiled3
/// @param length N, elements in the row
/// @param mask_width K, taps
/// @param tile T: the output tile (tiled1, tiled3) or input tile (tiled2) length
/// @return the configuration (not yet validated)
Config config_1d(Strategy s, int length, int mask_width, int tile);

/// The configuration a lab's solution launches with (lab_config.hpp), on an H×W image with a
/// K×K mask: what `grader analyze --lab`, the grader's predictions and the ncu check share.
/// @param lab "lab01" … "lab05"
/// @param height image rows
/// @param width image columns
/// @param mask_width K
/// @return the configuration, or nullopt for a lab the model does not cover
std::optional<Config> config_for_lab(const std::string& lab, int height, int width, int mask_width);

/// An untiled configuration (labs 01 and 02).
/// @param dims 1 or 2
/// @param height H (ignored, set to 1, when dims == 1)
/// @param width W, or N when dims == 1
/// @param mask_width K
/// @param block_x threads per block along x
/// @param block_y threads per block along y (ignored, set to 1, when dims == 1)
/// @param mask_in_global true for lab 01 (mask in global memory), false for lab 02
/// @return the configuration (not yet validated)
Config untiled_config(int dims, int height, int width, int mask_width, int block_x, int block_y,
                      bool mask_in_global);

/// Access counts and divergent warps of one block, or summed over blocks. All counts are in
/// elements (multiply by 4 for bytes) and are thread-level (see the file comment).
struct Counts {
  long long blocks = 0;              ///< blocks summed into these counts
  long long threads = 0;             ///< threads launched
  long long warps = 0;               ///< warps launched (partial warps count as one)
  long long outputs = 0;             ///< outputs computed and written
  long long global_input_loads = 0;  ///< elements of N read from global memory (no ghosts)
  /// Warp-level loads of M from global memory (lab 01 only). Every lane of a warp reads the
  /// same M[p][q], so the hardware issues one 4-byte load for the warp, and Nsight Compute's
  /// thread-level byte count counts it once (measured on an H200). A warp issues the load for
  /// tap (p, q) when any of its active threads has that tap inside the image.
  long long global_mask_loads = 0;
  long long shared_stores = 0;       ///< elements written to shared memory (ghost zeros included)
  long long shared_loads = 0;        ///< elements read from shared memory
  long long untiled_equivalent = 0;  ///< global input loads the untiled kernel makes for these outputs
  long long divergent_warps_load = 0;     ///< warps with control divergence in the load phase
  long long divergent_warps_compute = 0;  ///< warps with control divergence in the compute phase
  long long divergent_warps_any = 0;      ///< warps with control divergence in either phase

  /// Adds another set of counts field by field.
  /// @param other counts to add
  /// @return *this
  Counts& operator+=(const Counts& other);
  /// These counts multiplied by `times` (the same block repeated).
  /// @param times how many identical blocks
  /// @return the scaled counts
  [[nodiscard]] Counts scaled(long long times) const;
  /// Every element threads read from global memory, input and mask: what Nsight Compute's
  /// `smsp__sass_data_bytes_mem_global_op_ld.sum` measures, divided by 4.
  /// @return global_input_loads + global_mask_loads
  [[nodiscard]] long long global_loads() const { return global_input_loads + global_mask_loads; }
  /// Untiled-equivalent accesses ÷ global input loads; NaN when nothing is loaded.
  /// @return the bandwidth reduction
  [[nodiscard]] double bandwidth_reduction() const;
  /// Useful flops: 2 per multiply-add with an in-image input (ghost products are zero).
  /// @return 2·untiled_equivalent
  [[nodiscard]] long long useful_flops() const { return 2 * untiled_equivalent; }
  /// Bytes the threads move to and from global memory: input and mask loads, output stores.
  /// @return 4·(global_input_loads + global_mask_loads + outputs)
  [[nodiscard]] double global_bytes() const;
  /// Field-by-field equality.
  /// @param other counts to compare with
  /// @return whether every field is equal
  bool operator==(const Counts& other) const;
};

/// The model's account of one block.
struct BlockAnalysis {
  int bx = 0;             ///< blockIdx.x
  int by = 0;             ///< blockIdx.y
  /// True if every output of the block is in the image and its whole input footprint
  /// (halo included) is too: no ghosts, no idle threads at the image edge.
  bool interior = false;
  Counts counts;          ///< this block's counts (counts.blocks == 1)
  /// Untiled-equivalent accesses per output row of the block (rows with no output left out):
  /// the row-by-row sums of the lecture's worked answer.
  std::vector<long long> untiled_equivalent_per_row;
};

/// Blocks that behave identically (same edge clipping along x and along y).
struct BlockClass {
  long long multiplicity = 0;     ///< how many blocks of the grid are like this one
  BlockAnalysis representative;   ///< the first such block
};

/// The model's account of a whole grid.
struct GridAnalysis {
  Config config;                   ///< the configuration analysed
  Counts total;                    ///< summed over every block
  long long interior_blocks = 0;   ///< blocks with BlockAnalysis::interior
  Counts interior_block;           ///< counts of one interior block (all zero if there is none)
  long long boundary_blocks = 0;   ///< the other blocks
  Counts boundary_total;           ///< summed over the boundary blocks
  std::vector<BlockClass> classes; ///< every distinct block behaviour with its multiplicity
  /// The bandwidth reduction of an interior block of this kernel (on an image large enough to
  /// have one when this one has none). Equals lecture_reduction() for tiled1 and tiled2.
  double interior_reduction = 0;
  /// Exact whole-image bandwidth reduction, total.bandwidth_reduction().
  /// @return the ratio
  [[nodiscard]] double exact_reduction() const { return total.bandwidth_reduction(); }
};

/// Analyses one block with the closed forms.
/// @param config a valid configuration
/// @param bx blockIdx.x, in [0, grid_x)
/// @param by blockIdx.y, in [0, grid_y)
/// @return the block's counts
/// @throws std::invalid_argument for a bad configuration, std::out_of_range for a bad block
BlockAnalysis analyze_block(const Config& config, int bx, int by);

/// Analyses every block of the grid (blocks that behave alike are analysed once).
/// @param config a valid configuration
/// @return per-grid totals, the interior/boundary split and the block classes
/// @throws std::invalid_argument for a bad configuration
GridAnalysis analyze_grid(const Config& config);

/// The lecture's interior-tile bandwidth reduction `(T·K)^d / (T+K-1)^d`.
/// @param dims d, 1 or 2
/// @param out_tile T, the output tile width
/// @param mask_width K
/// @return the ratio
double lecture_reduction(int dims, int out_tile, int mask_width);

/// The lecture's formula for a rectangular 2D output tile: `(Tx·K)(Ty·K) / ((Tx+K-1)(Ty+K-1))`.
/// @param out_tile_x Tx
/// @param out_tile_y Ty
/// @param mask_width K
/// @return the ratio
double lecture_reduction_2d(int out_tile_x, int out_tile_y, int mask_width);

// ---- Machine balance: the lecture's "2 B/FLOP", percentage of peak, the roofline ---------

/// A GPU as the back-of-the-envelope models see it: a memory bandwidth and a flop rate.
struct Machine {
  std::string name;          ///< e.g. "~2010 GPU" or "NVIDIA H200 (measured)"
  double bytes_per_s = 0;    ///< memory bandwidth, bytes per second
  double flops_per_s = 0;    ///< peak float32 rate, flops per second (2 per FMA)
};

/// The most threads that can be resident on one SM, by compute capability, as the CUDA C++
/// Programming Guide's "Technical Specifications per Compute Capability" table gives them:
/// 1536 for 2.x (Fermi), 2048 for 3.x (Kepler), 9.0 (Hopper) and 8.0 (A100), 1536 for 8.6 and 8.9.
/// @param major compute capability, major
/// @param minor compute capability, minor
/// @return threads per SM
/// @throws std::out_of_range for a compute capability not listed here
int max_resident_threads_per_sm(int major, int minor);

/// Bytes of global memory per flop in untiled convolution: each multiply-add (2 flops) reads
/// one 4-byte input (the mask comes from the constant cache).
/// @return 2.0
double untiled_bytes_per_flop();

/// The flop rate that memory bandwidth sustains at a given reuse: `reuse · BW / (2 B/flop)`.
/// @param m the machine
/// @param reuse flops per input load relative to untiled convolution (the bandwidth reduction)
/// @return flops per second (not capped at the peak)
double bandwidth_limited_flops(const Machine& m, double reuse);

/// Percentage of peak compute: `min(100, 100 · bandwidth_limited_flops / peak)`.
/// @param m the machine
/// @param reuse the bandwidth reduction of the tiling
/// @return a percentage in [0, 100]
double percent_of_peak(const Machine& m, double reuse);

/// The reuse needed to reach peak compute: `peak / (BW / 2 B per flop)`.
/// @param m the machine
/// @return the reuse factor
double reuse_for_peak(const Machine& m);

/// Roofline: attainable flops per second at an arithmetic intensity,
/// `min(peak, intensity · BW)`.
/// @param m the machine
/// @param flops_per_byte arithmetic intensity
/// @return flops per second
double roofline_flops(const Machine& m, double flops_per_byte);

// ---- The GTC talk (register blocking) -----------------------------------------------------

/// Floats per second the memory delivers, BW / 4.
/// @param m the machine
/// @return floats per second
double floats_per_second(const Machine& m);

/// Flops the machine can do per float it loads: peak / (BW / 4).
/// @param m the machine
/// @return flops per float
double flops_per_float(const Machine& m);

/// Break-even mask width between bandwidth- and compute-bound for ideal reuse: an output
/// costs `2·K²` flops and `floats_per_output` floats of traffic, so
/// `K = sqrt(flops_per_float · floats_per_output / 2)`.
/// @param m the machine
/// @param floats_per_output 1 (input read once) or 2 (input read and output written once)
/// @return K (not rounded)
double break_even_mask_width(const Machine& m, double floats_per_output);

/// Upper bound on FMA-unit utilisation when every `loads_per_fma` loads feed one FMA and the
/// SM has `fma_per_ldst` FMA units per load/store unit: `min(1, 1 / (loads_per_fma · fma_per_ldst))`.
/// @param loads_per_fma loads issued per FMA
/// @param fma_per_ldst FMA units per load/store unit (6 on GK110: 192 / 32)
/// @return a fraction in (0, 1]
double utilization_bound(double loads_per_fma, double fma_per_ldst);

/// FMAs per input load when a thread computes `outputs` adjacent outputs of one mask row with
/// the inputs held in registers: `n·K / (n + K - 1)`; it tends to K as n grows.
/// @param mask_width K
/// @param outputs n, outputs per thread along the row
/// @return FMAs per load
double register_blocking_fma_per_load(int mask_width, int outputs);

// ---- The paper (Iandola et al.) -----------------------------------------------------------

/// The paper's bandwidth bound: the time to read one image of `pixels` floats from global
/// memory and write it back, `2 · 4 · pixels / BW`.
/// @param pixels elements in the image
/// @param bytes_per_s measured global memory bandwidth
/// @return seconds
double bandwidth_bound_seconds(long long pixels, double bytes_per_s);

/// The paper's "% of BW Bound" as its numbers mean it: 100 · bound time / convolution time, so
/// that more than 100 is faster than the bound. (The paper's text defines the inverse ratio;
/// its tables contradict that definition.)
/// @param seconds the convolution's time
/// @param pixels elements in the image
/// @param bytes_per_s measured global memory bandwidth
/// @return a percentage
double percent_of_bandwidth_bound(double seconds, long long pixels, double bytes_per_s);

// ---- The conv-layer lecture (im2col) ------------------------------------------------------

/// Sizes and traffic of an explicit im2col unroll of a conv layer's input.
struct Im2colTraffic {
  long long original_elements = 0;  ///< B·C·H·W, the input X
  long long unrolled_elements = 0;  ///< B·C·K²·Ho·Wo, the unrolled matrix
  double replication = 0;           ///< unrolled ÷ original
  /// Extra global traffic of an explicit unroll over a fused one: the unrolled matrix is
  /// written once by the unroll kernel and read at least once by the GEMM, `2·4·unrolled`.
  double extra_bytes = 0;
};

/// im2col sizes for a conv layer.
/// @param layer the layer (validated)
/// @return element counts, replication factor and extra traffic
/// @throws std::invalid_argument for an invalid layer
Im2colTraffic im2col_traffic(const ConvLayerShape& layer);

}  // namespace convlab::analysis
