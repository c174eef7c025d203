// The syllabus's tables, recomputed by the analysis model (analysis_tables.hpp).
//
// Each function below builds one table: the published values are typed in as the source
// prints them (that is what "published" means); every exact value comes from the model,
// never from a hand calculation. Verdicts are computed by compare(); only where the source is
// inconsistent is a reason written here, and even then its numbers come from the model.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "convlab/analysis_tables.hpp"
#include "convlab/lab_config.hpp"

namespace convlab::analysis {

namespace {

// ---- The machines of the syllabus -----------------------------------------------------------

/// Lecture 9: "1,000 GFLOP/s for GPU from ~2010, and 150 GB/s memory bandwidth".
const Machine kGpu2010{"~2010 GPU", 150e9, 1000e9};
/// Lecture 9: "In 2020, the GRID K520 offers nearly 5,000 GFLOP/s, but only 192 GB/s".
const Machine kGridK520{"GRID K520", 192e9, 5000e9};
/// The talk: "Tesla K20, GFLOPS = 3521 GFLOPS, BW 208 GB/s".
const Machine kTeslaK20{"Tesla K20", 208e9, 3521e9};

constexpr const char* kLecture9 = "[lecture-tiling] (ECE408 Lecture 9, Tiled Convolution Analysis)";
constexpr const char* kConvLayer = "[lecture-layers] (ECE408, Optimizing Convolution Layers)";
constexpr const char* kTalk = "[talk] (Wainwright, GTC 2014, S4297)";
constexpr const char* kPaper = "[paper] (Iandola et al., ICIP 2013)";
constexpr const char* kThisGpu = "this GPU";
constexpr const char* kLectureMachines =
    "~2010 GPU: 1,000 GFLOP/s and 150 GB/s; GRID K520: 5,000 GFLOP/s and 192 GB/s (the lecture's figures)";

/// The interior-block bandwidth reduction of a tiled kernel, counted by the model on an image
/// of three tiles per axis (block 1 is interior whenever T ≥ r).
double interior_reduction_counted(Strategy s, int dims, int tile, int k) {
  const Config c = dims == 2 ? config_2d(s, 3 * tile + k, 3 * tile + k, k, tile)
                             : config_1d(s, 3 * tile + k, k, tile);
  const BlockAnalysis b = analyze_block(c, 1, dims == 2 ? 1 : 0);
  if (!b.interior) throw std::logic_error("analysis tables: block 1 is not interior");
  return b.counts.bandwidth_reduction();
}

/// What the "this GPU" column or row holds, or why it is absent: a note for the table.
std::string gpu_note(const GpuColumns& gpu) {
  if (!gpu.gpu) return fmt::format("no \"this GPU\" values: {}", gpu.absent_reason);
  return fmt::format("this GPU: {}; copy bandwidth {:.1f} GB/s and FMA rate {:.1f} GFLOP/s, "
                     "measured now", gpu.gpu->name, gpu.gpu->bytes_per_s / 1e9,
                     gpu.gpu->flops_per_s / 1e9);
}

/// Adds the "this GPU" column header (when there is a GPU) and the note saying what it is.
void add_gpu_column(LectureTable& t, const GpuColumns& gpu) {
  if (gpu.gpu) t.value_headers.push_back(kThisGpu);
  t.notes.push_back(gpu_note(gpu));
}

// ---- Lecture 9: tiling ---------------------------------------------------------------------

LectureTable example_1d() {
  LectureTable t;
  t.name = "example-1d";
  t.title = "1D tiled convolution (strategy 1), TILE_WIDTH 8, MASK_WIDTH 5";
  t.source = fmt::format("{}: 'A Small 1D Convolution Example', 'Another Way to Look at Reuse', "
                         "'Ghost elements change ratios'", kLecture9);
  t.key_headers = {"block"};
  t.value_headers = {"input loads", "accesses replaced", "bandwidth reduction"};
  const Config c = config_1d(Strategy::tiled1, 24, 5, 8);
  struct Row {
    int block;
    const char* label;
    const char* loads;
    const char* replaced;
    const char* ratio;
  };
  for (const Row& r : {Row{1, "1 (interior)", "12", "40", "3.3"},
                       Row{0, "0 (left edge)", "10", "37", "3.7"},
                       Row{2, "2 (right edge)", nullptr, nullptr, nullptr}}) {
    const Counts n = analyze_block(c, r.block, 0).counts;
    auto cell = [](const char* pub, double exact, int decimals) {
      return pub ? compare(published(pub), exact, decimals) : exact_only(exact, decimals);
    };
    t.rows.push_back({{r.label},
                      {cell(r.loads, n.global_input_loads, 0),
                       cell(r.replaced, n.untiled_equivalent, 0),
                       cell(r.ratio, n.bandwidth_reduction(), 3)}});
  }
  t.notes.push_back(
      "N = 24 (three tiles); blocks 0 and 1 give the same counts for any N >= 18. Ghost cells "
      "are not loaded, so an edge block loads TILE_WIDTH + (MASK_WIDTH-1)/2 inputs.");
  return t;
}

LectureTable reduction_1d() {
  LectureTable t;
  t.name = "reduction-1d";
  t.title = "Bandwidth reduction of 1D tiled convolution, interior tile";
  t.source = fmt::format("{}: 'Bandwidth Reduction for 1D'", kLecture9);
  t.key_headers = {"TILE_WIDTH", "MASK_WIDTH"};
  t.value_headers = {"reduction"};
  const int tiles[] = {16, 32, 64, 128, 256};
  const std::vector<std::pair<int, std::vector<const char*>>> published_rows = {
      {5, {"4.0", "4.4", "4.7", "4.9", "4.9"}}, {9, {"6.0", "7.2", "8.0", "8.5", "8.7"}}};
  for (const auto& [k, values] : published_rows) {
    for (int i = 0; i < 5; ++i) {
      const double exact = interior_reduction_counted(Strategy::tiled1, 1, tiles[i], k);
      t.rows.push_back({{std::to_string(tiles[i]), std::to_string(k)},
                        {compare(published(values[i]), exact, 3)}});
    }
  }
  t.notes.push_back("exact: untiled-equivalent accesses / input loads of an interior block, "
                    "counted by the model; equals TILE_WIDTH*MASK_WIDTH/(TILE_WIDTH+MASK_WIDTH-1)");
  return t;
}

LectureTable example_2d() {
  LectureTable t;
  t.name = "example-2d";
  t.title = "2D tiled convolution (strategy 1), 8x8 output tile, MASK_WIDTH 5";
  t.source = fmt::format("{}: 'Analysis for an 8x8 Output Tile', 'Ghost elements change ratios' "
                         "(2D left 'for your enjoyment')", kLecture9);
  t.key_headers = {"block"};
  t.value_headers = {"input loads", "accesses replaced", "bandwidth reduction"};
  const Config c = config_2d(Strategy::tiled1, 24, 24, 5, 8);
  const Counts inner = analyze_block(c, 1, 1).counts;
  t.rows.push_back({{"(1,1) interior"},
                    {compare(published("144"), inner.global_input_loads, 0),
                     compare(published("1,600"), inner.untiled_equivalent, 0),
                     compare(published("11.1"), inner.bandwidth_reduction(), 3)}});
  for (const auto& [bx, by, label] : {std::tuple{0, 0, "(0,0) corner"}, {1, 0, "(1,0) top edge"}}) {
    const Counts n = analyze_block(c, bx, by).counts;
    t.rows.push_back({{label},
                      {exact_only(n.global_input_loads, 0), exact_only(n.untiled_equivalent, 0),
                       exact_only(n.bandwidth_reduction(), 3)}});
  }
  t.notes.push_back("image 24x24 (three tiles per axis); the corner and edge rows are the 2D "
                    "ghost-cell case the lecture leaves as an exercise");
  return t;
}

LectureTable reduction_2d() {
  LectureTable t;
  t.name = "reduction-2d";
  t.title = "Bandwidth reduction of 2D tiled convolution, interior tile";
  t.source = fmt::format("{}: 'Bandwidth Reduction for 2D Convolution Kernel'", kLecture9);
  t.key_headers = {"TILE_WIDTH", "MASK_WIDTH"};
  t.value_headers = {"reduction"};
  const int tiles[] = {8, 16, 32, 64};
  const std::vector<std::pair<int, std::vector<const char*>>> published_rows = {
      {5, {"11.1", "16", "19.7", "22.1"}}, {9, {"20.3", "36", "51.8", "64"}}};
  for (const auto& [k, values] : published_rows) {
    for (int i = 0; i < 4; ++i) {
      const double exact = interior_reduction_counted(Strategy::tiled1, 2, tiles[i], k);
      t.rows.push_back({{std::to_string(tiles[i]), std::to_string(k)},
                        {compare(published(values[i]), exact, 3)}});
    }
  }
  t.notes.push_back("exact: counted by the model on an interior block; equals "
                    "(TILE_WIDTH*MASK_WIDTH)^2/(TILE_WIDTH+MASK_WIDTH-1)^2. TILE_WIDTH 64 means "
                    "a 4,096-thread block, more than CUDA allows: the model still counts it.");
  return t;
}

// ---- Lecture 9: machine balance ------------------------------------------------------------

LectureTable bytes_per_flop(const GpuColumns& gpu) {
  LectureTable t;
  t.name = "bytes-per-flop";
  t.title = "Untiled convolution: bytes per flop, and the reuse needed for peak compute";
  t.source = fmt::format("{}: '2B/FLOP for Untiled Convolution', 'Full Use of Compute Requires "
                         "13.3x Reuse', 'In 2020, Need 52.1x Reuse'", kLecture9);
  t.key_headers = {"GPU"};
  t.value_headers = {"bytes per flop", "GFLOP/s at that rate", "% of peak", "reuse needed"};
  struct Row {
    const Machine* m;
    std::string label;
    std::vector<const char*> pub;
  };
  std::vector<Row> rows = {
      {&kGpu2010, "~2010 GPU (1,000 GFLOP/s, 150 GB/s)", {"2", "75", "7.50%", "13.3×"}},
      {&kGridK520, "GRID K520 (5,000 GFLOP/s, 192 GB/s)", {"2", "96", "1.92%", "52.1×"}}};
  if (gpu.gpu) rows.push_back({&*gpu.gpu, kThisGpu, {}});
  for (const Row& r : rows) {
    const double bpf = untiled_bytes_per_flop();
    const double gflops = bandwidth_limited_flops(*r.m, 1.0) / 1e9;
    const double pct = percent_of_peak(*r.m, 1.0);
    const double reuse = reuse_for_peak(*r.m);
    if (r.pub.empty()) {
      t.rows.push_back({{r.label},
                        {exact_only(bpf, 1), exact_only(gflops, 1), exact_only(pct, 3, "%"),
                         exact_only(reuse, 2, "×")}});
    } else {
      t.rows.push_back({{r.label},
                        {compare(published(r.pub[0]), bpf, 1),
                         compare(published(r.pub[1]), gflops, 1),
                         compare(published(r.pub[2]), pct, 3, "%"),
                         compare(published(r.pub[3]), reuse, 2, "×")}});
    }
  }
  t.notes.push_back("each multiply-add (2 flops) reads one 4-byte input from global memory; the "
                    "mask comes from the constant cache. Reuse needed = peak / (bandwidth / 2 B per flop).");
  t.notes.push_back(gpu_note(gpu));  // the GPU is a row here, not a column
  return t;
}

/// % of peak compute, one row per mask width, one column per machine.
LectureTable percent_of_peak_table(const std::string& name, int dims, int tile,
                                   const std::vector<std::tuple<int, Published, Published>>& rows,
                                   const GpuColumns& gpu) {
  LectureTable t;
  t.name = name;
  t.title = dims == 1 ? "% of peak compute, 1D tiled convolution, TILE_WIDTH 1024"
                      : "% of peak compute, 2D tiled convolution, 32x32 tiles";
  t.source = fmt::format("{}: 'Need Really Big Mask to Balance Resources'", kLecture9);
  t.key_headers = {"MASK_WIDTH"};
  t.value_headers = {kGpu2010.name, kGridK520.name};
  add_gpu_column(t, gpu);
  t.notes.insert(t.notes.begin(), kLectureMachines);
  for (const auto& [k, p2010, p2020] : rows) {
    const double reuse = interior_reduction_counted(Strategy::tiled1, dims, tile, k);
    TableRow row{{std::to_string(k)},
                 {compare(p2010, percent_of_peak(kGpu2010, reuse), 1, "%"),
                  compare(p2020, percent_of_peak(kGridK520, reuse), 1, "%")}};
    if (gpu.gpu) row.values.push_back(exact_only(percent_of_peak(*gpu.gpu, reuse), 1, "%"));
    t.rows.push_back(std::move(row));
  }
  t.notes.insert(t.notes.begin(),
                 "assumption that reproduces the slide: reuse = the interior-tile bandwidth "
                 "reduction (counted by the model), and % of peak = min(100, reuse x "
                 "(bandwidth / 2 B per flop) / peak)");
  return t;
}

LectureTable peak_1d(const GpuColumns& gpu) {
  return percent_of_peak_table(
      "peak-1d", 1, 1024,
      {{5, published("37%"), published("9.6%")},
       {9, published("67%"), published("17%")},
       {15, published("100%"), published("28%")},
       {55, published("100%"), published("100%")}},
      gpu);
}

LectureTable peak_2d(const GpuColumns& gpu) {
  return percent_of_peak_table(
      "peak-2d", 2, 32,
      {{3, published("60%"), published("15%")},
       {5, published("100%"), published("37%")},
       {7, published("100%"), published("67%")},
       {9, published("100%"), published("almost 100%", 100, 1.0)}},
      gpu);
}

LectureTable homework() {
  LectureTable t;
  t.name = "homework";
  t.title = "Homework: use the rest of shared memory (MASK_WIDTH 7, GRID K520)";
  t.source = fmt::format("{}: 'Food for Thought' ('can raise MW=7 from 67% to 81%')", kLecture9);
  t.key_headers = {"quantity"};
  t.value_headers = {"value"};
  constexpr int k = 7;
  const double base = percent_of_peak(kGridK520, interior_reduction_counted(Strategy::tiled1, 2, 32, k));
  t.rows.push_back({{"shared memory that 2,048 threads fill with 4 B each"},
                    {compare(published("8kB"), 2048 * kBytesPerFloat / 1024, 1, " KiB")}});
  t.rows.push_back({{"% of peak, 32x32 output tile (the 2D table)"}, {compare(published("67%"), base, 1, "%")}});
  // Input tiles of I_x × I_y floats give (I_x-K+1) × (I_y-K+1) outputs (strategy 1's formula).
  auto pct_for_input_tile = [&](int ix, int iy) {
    return percent_of_peak(kGridK520, lecture_reduction_2d(ix - k + 1, iy - k + 1, k));
  };
  Value improved = compare(published("81%"), pct_for_input_tile(64, 128), 1, "%");
  improved.reason = "assumed: the slide does not say which tile; this one fills 32 KB";
  t.rows.push_back({{"% of peak, 64x128 input tile = 8,192 floats = 32 KB per block (58x122 outputs)"},
                    {improved}});
  t.rows.push_back({{"% of peak, 90x90 input tile, the largest square in 32 KB (84x84 outputs)"},
                    {exact_only(pct_for_input_tile(90, 90), 1, "%")}});
  t.rows.push_back({{"% of peak, 128x128 input tile = 64 KB, one block per SM (122x122 outputs)"},
                    {exact_only(pct_for_input_tile(128, 128), 1, "%")}});
  t.notes.push_back(
      "the slide's hint: 2,048 threads (two 1,024-thread blocks per SM) load only 8 kB of a 64 kB "
      "shared memory. Giving each block 32 KB = 8,192 floats as a 64x128 input tile reproduces "
      "81%; other shapes of the same size give 81-82%. This reading is ours, not the slide's.");
  return t;
}

// ---- Lecture 9: problem solving -----------------------------------------------------------

LectureTable problem_1() {
  LectureTable t;
  t.name = "problem-1";
  t.title = "Problem 1: strategy 1, 32x32 image, 5x5 mask, 16x16 output tile, block (0,0)";
  t.source = fmt::format("{}: 'Problem Solving', first question", kLecture9);
  t.key_headers = {"quantity"};
  t.value_headers = {"count"};
  const BlockAnalysis b = analyze_block(config_2d(Strategy::tiled1, 32, 32, 5, 16), 0, 0);
  const auto& rows = b.untiled_equivalent_per_row;
  const bool rows_alike = std::all_of(rows.begin() + 2, rows.end(), [&](long long v) { return v == rows[2]; });
  t.rows.push_back({{"global accesses (untiled), output row 0"},
                    {compare(published("9 + 12 + 15 * 14", 231, 0), rows[0], 0)}});
  t.rows.push_back({{"global accesses (untiled), output row 1"},
                    {compare(published("12 + 16 + 20 * 14", 308, 0), rows[1], 0)}});
  t.rows.push_back(
      {{"global accesses (untiled), each of the other 14 rows"},
       {compare(published("15 + 20 + 25 * 14", 385, 0), rows[2], 0, "",
                rows_alike ? "" : "the model's rows 2-15 differ from one another")}});
  t.rows.push_back({{"global accesses (untiled), whole block"},
                    {exact_only(b.counts.untiled_equivalent, 0)}});
  t.rows.push_back({{"input elements loaded by the tiled kernel"},
                    {compare(published("18 * 18", 324, 0), b.counts.global_input_loads, 0)}});
  t.rows.push_back({{"reduction in global memory accesses"},
                    {exact_only(b.counts.bandwidth_reduction(), 2, "×")}});
  t.notes.push_back(fmt::format(
      "the slide stops at the counts; the answer is their ratio. An interior 16x16 tile gives "
      "{:.2f}x: the corner block loads fewer inputs (no ghosts) and so reduces more.",
      interior_reduction_counted(Strategy::tiled1, 2, 16, 5)));
  return t;
}

LectureTable problem_2() {
  LectureTable t;
  t.name = "problem-2";
  t.title = "Problem 2: strategy 2, 32x32 block (30x30 output tile), 3x3 mask: divergent warps";
  t.source = fmt::format("{}: 'Problem Solving', second question", kLecture9);
  t.key_headers = {"block"};
  t.value_headers = {"warps", "divergent in load phase", "divergent in compute phase",
                     "divergent in either phase"};
  const Counts alone = analyze_block(config_2d(Strategy::tiled2, 30, 30, 3, 32), 0, 0).counts;
  t.rows.push_back({{"30x30 image, block (0,0): the slide's picture"},
                    {compare(published("32 (warps 0-31)", 32, 0), alone.warps, 0),
                     exact_only(alone.divergent_warps_load, 0),
                     exact_only(alone.divergent_warps_compute, 0),
                     compare(published("30 (only 2 do not)", 30, 0), alone.divergent_warps_any, 0)}});
  const Config big = config_2d(Strategy::tiled2, 90, 90, 3, 32);
  for (const auto& [bx, by, label] :
       {std::tuple{1, 1, "90x90 image, block (1,1): interior"}, {0, 0, "90x90 image, block (0,0): corner"}}) {
    const Counts n = analyze_block(big, bx, by).counts;
    t.rows.push_back({{label},
                      {exact_only(n.warps, 0), exact_only(n.divergent_warps_load, 0),
                       exact_only(n.divergent_warps_compute, 0), exact_only(n.divergent_warps_any, 0)}});
  }
  t.notes.push_back(
      "the slide's \"warps 0 and 31 load 0s\" holds for a block on the top and bottom edges (its "
      "picture is a one-tile image); in an interior block they load halo pixels and the load "
      "phase does not diverge at all. The compute phase diverges in the same warps everywhere.");
  return t;
}

// ---- The conv-layer lecture ---------------------------------------------------------------

LectureTable im2col() {
  LectureTable t;
  t.name = "im2col-replication";
  t.title = "Input replication of an explicit unroll (im2col)";
  t.source = fmt::format("{}: 'Analysis of a Small Example'", kConvLayer);
  t.key_headers = {"layer"};
  t.value_headers = {"input elements", "unrolled elements", "replication factor",
                     "extra traffic of an explicit unroll (bytes)"};
  ConvLayerShape small;
  small.channels = 3;
  small.height = small.width = 3;  // Hout = Wout = 2 with K = 2
  small.mask_width = 2;
  const Im2colTraffic s = im2col_traffic(small);
  const std::string unrolled_reason = fmt::format(
      "the slide's product 3*2*2*2 drops a factor: C*K*K*Hout*Wout = {} (its ratio {:.2f} is "
      "{}/{}, so only the expression is wrong)",
      s.unrolled_elements, s.replication, s.unrolled_elements, s.original_elements);
  t.rows.push_back({{"C=3, Hout=Wout=2, K=2"},
                    {compare(published("3*3*3", 27, 0), s.original_elements, 0),
                     compare(published("3*2*2*2", 24, 0), s.unrolled_elements, 0, "", unrolled_reason),
                     compare(published("1.78"), s.replication, 3),
                     exact_only(s.extra_bytes, 0)}});
  ConvLayerShape resnet;  // a typical layer today: 64 channels, 56x56, 3x3, 'same' padding
  resnet.channels = 64;
  resnet.filters = 64;
  resnet.height = resnet.width = 56;
  resnet.mask_width = 3;
  resnet.padding = 1;
  const Im2colTraffic r = im2col_traffic(resnet);
  t.rows.push_back({{"C=64, 56x56, K=3, padding 1"},
                    {exact_only(r.original_elements, 0), exact_only(r.unrolled_elements, 0),
                     exact_only(r.replication, 3), exact_only(r.extra_bytes, 0)}});
  t.notes.push_back("unrolled elements = B*C*K*K*Hout*Wout; extra traffic = the unrolled matrix "
                    "written once and read once, 2 x 4 B x unrolled elements (a fused unroll has neither)");
  return t;
}

// ---- The talk ------------------------------------------------------------------------------

/// GK110: "192 single-precision units", "32 LD/ST units" per SM.
constexpr double kFmaPerLdst = 192.0 / 32.0;

LectureTable talk_break_even(const GpuColumns& gpu) {
  LectureTable t;
  t.name = "talk-break-even";
  t.title = "Break-even mask width between bandwidth- and compute-bound";
  t.source = fmt::format("{}: 'Tesla K20 ... theoretical break-even'", kTalk);
  t.key_headers = {"quantity"};
  t.value_headers = {kTeslaK20.name};
  add_gpu_column(t, gpu);
  t.notes.insert(t.notes.begin(), "Tesla K20: 3,521 GFLOP/s and 208 GB/s (the talk's figures)");
  auto smallest_odd_at_least = [](double x) {
    int k = static_cast<int>(std::ceil(x));
    return k % 2 == 1 ? k : k + 1;
  };
  const double k20_read = break_even_mask_width(kTeslaK20, 1);
  struct Row {
    std::string label;
    std::function<double(const Machine&)> exact;
    int decimals;
    std::optional<Published> pub;
    std::string error_reason;
  };
  const std::vector<Row> rows = {
      {"GFLOAT/s (bandwidth / 4 B)", [](const Machine& m) { return floats_per_second(m) / 1e9; },
       1, published("52"), ""},
      {"flops per float loaded", [](const Machine& m) { return flops_per_float(m); }, 2,
       published("67"), ""},
      {"break-even K, input read once: 2K^2 = flops per float",
       [](const Machine& m) { return break_even_mask_width(m, 1); }, 2, published("11.5"),
       fmt::format("algebra: 2*K^2 = {:.1f} gives K = sqrt({:.1f}/2) = {:.2f}; the slide computes "
                   "sqrt(2*67) = {:.2f}",
                   flops_per_float(kTeslaK20), flops_per_float(kTeslaK20), k20_read,
                   std::sqrt(2.0 * 67.0))},
      {"break-even K, input read and output written once",
       [](const Machine& m) { return break_even_mask_width(m, 2); }, 2, std::nullopt, ""},
      {"smallest compute-bound odd K, input read once",
       [&](const Machine& m) { return smallest_odd_at_least(break_even_mask_width(m, 1)); }, 0,
       published("13"),
       fmt::format("follows from the wrong break-even: K >= {:.2f} makes {}x{} compute-bound ({}x{} "
                   "counting the output write)",
                   k20_read, smallest_odd_at_least(k20_read), smallest_odd_at_least(k20_read),
                   smallest_odd_at_least(break_even_mask_width(kTeslaK20, 2)),
                   smallest_odd_at_least(break_even_mask_width(kTeslaK20, 2)))},
  };
  for (const Row& r : rows) {
    TableRow row{{r.label}, {}};
    const double exact = r.exact(kTeslaK20);
    row.values.push_back(r.pub ? compare(*r.pub, exact, r.decimals, "", r.error_reason)
                               : exact_only(exact, r.decimals));
    if (gpu.gpu) row.values.push_back(exact_only(r.exact(*gpu.gpu), r.decimals));
    t.rows.push_back(std::move(row));
  }
  t.notes.insert(t.notes.begin(),
                 "an output costs 2*K^2 flops (the talk's count) and, with ideal reuse, one float "
                 "read (or one read and one written); break-even when those flops equal flops per "
                 "float x floats per output");
  return t;
}

LectureTable talk_utilization() {
  LectureTable t;
  t.name = "talk-utilization";
  t.title = "Load/store-bound utilisation of the FMA units (GK110)";
  t.source = fmt::format("{}: '6 FMADs per LD/ST', 'At best we will utilize 1/12 ... 1/6 of the "
                         "hardware'", kTalk);
  t.key_headers = {"quantity"};
  t.value_headers = {"value"};
  t.rows.push_back({{"FMA units per LD/ST unit (192 / 32)"},
                    {compare(published("6"), kFmaPerLdst, 0)}});
  t.rows.push_back({{"bound, image and filter loaded per FMA (2 loads per FMA)"},
                    {compare(published("1/12", 100.0 / 12.0, 0.005), 100.0 * utilization_bound(2.0, kFmaPerLdst), 2, "%")}});
  t.rows.push_back({{"bound, filter in a register (1 load per FMA)"},
                    {compare(published("1/6", 100.0 / 6.0, 0.005), 100.0 * utilization_bound(1.0, kFmaPerLdst), 2, "%")}});
  t.notes.push_back("bound = min(1, FMA per load / FMA units per LD/ST unit)");
  return t;
}

/// The talk's register blocking as a grid: mask width against outputs per thread (a K x n
/// table a slide can show; the talk gives only the limit, "filter-size*2 operations per load").
LectureTable talk_register_blocking() {
  LectureTable t;
  t.name = "talk-register-blocking";
  t.title = "Register blocking along a row: flops per load and FMA bound (GK110)";
  t.source = fmt::format("{}: 'Multiple outputs per thread', 'Filter-size*2 operations per load'", kTalk);
  t.key_headers = {"K"};
  constexpr int kOutputs[] = {1, 4, 16};
  for (int n : kOutputs) {
    t.value_headers.push_back(fmt::format("{} output{}: flops/load", n, n == 1 ? "" : "s"));
    t.value_headers.push_back(fmt::format("{} output{}: bound", n, n == 1 ? "" : "s"));
  }
  t.value_headers.push_back("many outputs: flops/load");
  for (int k : {3, 5, 7}) {
    TableRow row{{std::to_string(k)}, {}};
    for (int n : kOutputs) {
      const double fma_per_load = register_blocking_fma_per_load(k, n);
      row.values.push_back(exact_only(2.0 * fma_per_load, 2));
      row.values.push_back(exact_only(100.0 * utilization_bound(1.0 / fma_per_load, kFmaPerLdst), 1, "%"));
    }
    Value limit = compare(published("filter-size*2", 2.0 * k, 0), 2.0 * k, 2);
    limit.reason = "the limit for many outputs per thread; n outputs give 2nK/(n+K-1)";
    row.values.push_back(limit);
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back("n outputs per thread along a row: a mask row needs n+K-1 input loads for n*K FMAs "
                    "(filter in a register); bound = min(1, FMA per load / 6). The slide's "
                    "'filter-size*2 operations per load' is the limit as n grows.");
  return t;
}

// ---- The paper -----------------------------------------------------------------------------

LectureTable paper_bound() {
  LectureTable t;
  t.name = "paper-bound";
  t.title = "'% of BW Bound' of the paper's Tables 3 and 4 (9216x9216 image)";
  t.source = fmt::format("{}: Section 4, Tables 2-4", kPaper);
  // One row per filter, the two GPUs side by side: six rows a slide can show.
  t.key_headers = {"filter"};
  constexpr long long kPixels = 9216LL * 9216LL;
  const std::string inverted =
      "the text defines the column as convolutionTime/bandwidthBoundTime, so >100% would be "
      "slower than the bound, yet the text says these beat it: it is bound/time";
  struct Gpu {
    const char* name;
    double bytes_per_s;  // Table 2, measured global bandwidth
    std::vector<const char*> pct;
  };
  const Gpu gpus[] = {{"C2050", 90.4e9, {"55%", "53%", "40%", "33%", "25%", "9.4%"}},
                      {"GTX680", 123e9, {"107%", "101%", "87%", "83%", "49%", "14%"}}};
  for (const Gpu& g : gpus) {
    t.value_headers.push_back(fmt::format("{}: % of BW bound", g.name));
    t.value_headers.push_back(fmt::format("{}: implied time (ms)", g.name));
    t.value_headers.push_back(fmt::format("{}: implied GB/s", g.name));
  }
  std::string bounds;
  for (int f = 0; f < 6; ++f) t.rows.push_back({{fmt::format("{0}x{0}", f + 2)}, {}});
  for (const Gpu& g : gpus) {
    const double bound_ms = 1e3 * bandwidth_bound_seconds(kPixels, g.bytes_per_s);
    bounds += fmt::format("{}{} at {:.1f} GB/s: {:.3f} ms", bounds.empty() ? "" : "; ", g.name, g.bytes_per_s / 1e9,
                          bound_ms);
    for (int f = 0; f < 6; ++f) {
      const Published p = published(g.pct[f]);
      const double fraction = p.value / 100.0;
      auto& values = t.rows[static_cast<std::size_t>(f)].values;
      values.push_back(published_only(p, p.value > 100 ? Verdict::error : Verdict::published_only,
                                      p.value > 100 ? inverted : ""));
      values.push_back(exact_only(bound_ms / fraction, 2));
      values.push_back(exact_only(g.bytes_per_s * fraction / 1e9, 1));
    }
  }
  t.notes.push_back(fmt::format("bandwidth bound = one image read and written, 2 x 4 B x 9216^2, at the paper's "
                                "measured global bandwidth (its Table 2): {}. Implied time = bound / %, implied "
                                "GB/s = % x bandwidth: the column read as bound/time.",
                                bounds));
  return t;
}

LectureTable paper_claims() {
  LectureTable t;
  t.name = "paper-claims";
  t.title = "The paper's text against its own tables and the hardware's limits";
  t.source = fmt::format("{}: Sections 1-2, Tables 2-4 and footnote 1", kPaper);
  t.key_headers = {"claim"};
  t.value_headers = {"value"};
  // Speedups vs ArrayFire for filters 2x2..7x7 (Tables 3 and 4): the data the claims summarise.
  const std::vector<double> fermi = {1.2, 2.0, 2.6, 3.1, 3.4, 1.8};
  const std::vector<double> kepler = {1.7, 2.2, 2.4, 4.5, 3.5, 1.3};
  auto lo = [](const std::vector<double>& v, int from) { return *std::min_element(v.begin() + from, v.end()); };
  auto hi = [](const std::vector<double>& v, int from) { return *std::max_element(v.begin() + from, v.end()); };
  t.rows.push_back({{"Fermi speedup over ArrayFire for 3x3-7x7, lowest (Section 1: 1.2x-3.4x)"},
                    {compare(published("1.2x"), lo(fermi, 1), 1, "x",
                             fmt::format("Table 3 gives {:.1f}x at least for 3x3-7x7; 1.2x is the 2x2 filter", lo(fermi, 1)))}});
  t.rows.push_back({{"Fermi speedup over ArrayFire for 3x3-7x7, highest"},
                    {compare(published("3.4x"), hi(fermi, 1), 1, "x")}});
  t.rows.push_back({{"Kepler speedup over ArrayFire for 3x3-7x7, lowest (Section 1: 1.3x-4.5x)"},
                    {compare(published("1.3x"), lo(kepler, 1), 1, "x")}});
  t.rows.push_back({{"Kepler speedup over ArrayFire for 3x3-7x7, highest"},
                    {compare(published("4.5x"), hi(kepler, 1), 1, "x")}});
  t.rows.push_back({{"speedup over ArrayFire, all filters and both GPUs, lowest (abstract)"},
                    {compare(published("1.2x"), std::min(lo(fermi, 0), lo(kepler, 0)), 1, "x")}});
  t.rows.push_back({{"speedup over ArrayFire, all filters and both GPUs, highest (abstract)"},
                    {compare(published("4.5x"), std::max(hi(fermi, 0), hi(kepler, 0)), 1, "x")}});
  t.rows.push_back({{"texture fill rate, Kepler / Fermi (129 / 49.4 Gtexels/s)"},
                    {compare(published("2.6x"), 129.0 / 49.4, 3, "x")}});
  // Footnote 1 gives the resident threads per SM one generation low.
  const int fermi_threads = max_resident_threads_per_sm(2, 0), kepler_threads = max_resident_threads_per_sm(3, 0);
  t.rows.push_back({{"threads per SM, Fermi C2050 (footnote 1)"},
                    {compare(published("512"), fermi_threads, 0, "",
                             fmt::format("compute capability 2.x allows {} resident threads per SM; 512 is the "
                                         "limit of compute capability 1.x blocks, not Fermi's SM", fermi_threads))}});
  t.rows.push_back({{"threads per SM, Kepler GTX680 (footnote 1)"},
                    {compare(published("1536"), kepler_threads, 0, "",
                             fmt::format("compute capability 3.x allows {} resident threads per SM; 1536 is "
                                         "Fermi's figure", kepler_threads))}});
  t.notes.push_back("the exact column here is the paper's own table data, summarised, and for the threads per "
                    "SM the CUDA Programming Guide's limits per compute capability; nothing is modelled");
  return t;
}

// ---- The GPU check, and the roofline --------------------------------------------------------

LectureTable device_check() {
  LectureTable t;
  t.name = "device-check";
  t.title = "Thread-level global-load bytes: ncu on an H200 against the model (2048x2048, K=5)";
  t.source = "docs/design.md, GPU facts (H200, 2026-11-21): smsp__sass_data_bytes_mem_global_op_ld.sum, mask in constant memory";
  t.key_headers = {"kernel"};
  t.value_headers = {"global-load bytes"};
  using namespace convlab::config;
  const GridAnalysis naive =
      analyze_grid(untiled_config(2, 2048, 2048, 5, kUntiledBlockX, kUntiledBlockY, false));
  const GridAnalysis tiled = analyze_grid(config_2d(Strategy::tiled1, 2048, 2048, 5, 16));
  t.rows.push_back({{"untiled, 32x8 blocks"},
                    {compare(published("418,939,024"), kBytesPerFloat * naive.total.global_input_loads, 0)}});
  t.rows.push_back({{"strategy 1, TILE_WIDTH 16"},
                    {compare(published("26,132,544"), kBytesPerFloat * tiled.total.global_input_loads, 0)}});
  t.rows.push_back({{"ratio (exact whole-image bandwidth reduction)"},
                    {compare(published("16.03"), tiled.exact_reduction(), 4)}});
  t.rows.push_back({{"interior-tile formula, for comparison"},
                    {exact_only(tiled.interior_reduction, 4)}});
  t.notes.push_back("measured values; the model's exact counts include the ghost-cell "
                    "corrections, which is why the ratio is not the interior formula's");
  return t;
}

LectureTable roofline(const GpuColumns& gpu) {
  LectureTable t;
  t.name = "roofline";
  t.title = "Roofline of the lab kernels, thread-level traffic (2048x2048 image), GFLOP/s";
  t.source = "[blog] (GPU Optimization for Convolution Operations), section 4.8: attainable = min(peak, intensity x bandwidth)";
  t.key_headers = {"kernel", "K"};
  t.value_headers = {"flops per byte", kGpu2010.name, kGridK520.name};
  add_gpu_column(t, gpu);
  t.notes.insert(t.notes.begin(), kLectureMachines);
  using namespace convlab::config;
  for (int k : {3, 7}) {
    const std::vector<std::pair<std::string, Config>> kernels = {
        {"lab01 untiled, global mask", untiled_config(2, 2048, 2048, k, kUntiledBlockX, kUntiledBlockY, true)},
        {"lab02 untiled", untiled_config(2, 2048, 2048, k, kUntiledBlockX, kUntiledBlockY, false)},
        {"lab03 strategy 1", config_2d(Strategy::tiled1, 2048, 2048, k, kLab03TileWidth)},
        {"lab04 strategy 2", config_2d(Strategy::tiled2, 2048, 2048, k, kLab04InTile)},
        {"lab05 strategy 3", config_2d(Strategy::tiled3, 2048, 2048, k, kLab05TileWidth)}};
    for (const auto& [label, c] : kernels) {
      const Counts n = analyze_grid(c).total;
      const double intensity = static_cast<double>(n.useful_flops()) / n.global_bytes();
      TableRow row{{label, std::to_string(k)},
                   {exact_only(intensity, 3), exact_only(roofline_flops(kGpu2010, intensity) / 1e9, 1),
                    exact_only(roofline_flops(kGridK520, intensity) / 1e9, 1)}};
      if (gpu.gpu) row.values.push_back(exact_only(roofline_flops(*gpu.gpu, intensity) / 1e9, 1));
      t.rows.push_back(std::move(row));
    }
  }
  t.notes.insert(t.notes.begin(),
                 "not in the sources: the model's counts through the blog's roofline. Bytes = input "
                 "loads (thread-level), lab 01's mask loads (one per warp per tap: all 32 lanes read "
                 "the same element, so it is counted as the profiler counts it, docs/design.md "
                 "'Analysis'), and output stores; no caches, as in the lecture; "
                 "flops = 2 per multiply-add with an in-image input. Real caches absorb most of "
                 "the untiled kernels' reuse (docs/design.md, GPU facts).");
  return t;
}

using Builder = std::function<LectureTable(const GpuColumns&)>;

/// Every table with its builder, in syllabus order.
const std::vector<std::pair<std::string, Builder>>& builders() {
  static const std::vector<std::pair<std::string, Builder>> all = {
      {"example-1d", [](const GpuColumns&) { return example_1d(); }},
      {"reduction-1d", [](const GpuColumns&) { return reduction_1d(); }},
      {"example-2d", [](const GpuColumns&) { return example_2d(); }},
      {"reduction-2d", [](const GpuColumns&) { return reduction_2d(); }},
      {"bytes-per-flop", bytes_per_flop},
      {"peak-1d", peak_1d},
      {"peak-2d", peak_2d},
      {"homework", [](const GpuColumns&) { return homework(); }},
      {"problem-1", [](const GpuColumns&) { return problem_1(); }},
      {"problem-2", [](const GpuColumns&) { return problem_2(); }},
      {"im2col-replication", [](const GpuColumns&) { return im2col(); }},
      {"talk-break-even", talk_break_even},
      {"talk-utilization", [](const GpuColumns&) { return talk_utilization(); }},
      {"talk-register-blocking", [](const GpuColumns&) { return talk_register_blocking(); }},
      {"paper-bound", [](const GpuColumns&) { return paper_bound(); }},
      {"paper-claims", [](const GpuColumns&) { return paper_claims(); }},
      {"device-check", [](const GpuColumns&) { return device_check(); }},
      {"roofline", roofline},
  };
  return all;
}

}  // namespace

std::vector<LectureTable> lecture_tables(const GpuColumns& gpu) {
  std::vector<LectureTable> tables;
  for (const auto& [name, build] : builders()) {
    tables.push_back(build(gpu));
    if (tables.back().name != name) throw std::logic_error("analysis tables: name mismatch " + name);
  }
  return tables;
}

std::vector<std::string> lecture_table_names() {
  std::vector<std::string> names;
  for (const auto& [name, build] : builders()) names.push_back(name);
  return names;
}

const Value& LectureTable::at(const std::vector<std::string>& keys, const std::string& header) const {
  const auto column = std::find(value_headers.begin(), value_headers.end(), header);
  if (column == value_headers.end()) throw std::out_of_range("table " + name + ": no column " + header);
  for (const TableRow& row : rows) {
    if (row.keys == keys) return row.values.at(static_cast<std::size_t>(column - value_headers.begin()));
  }
  throw std::out_of_range("table " + name + ": no such row");
}

}  // namespace convlab::analysis
