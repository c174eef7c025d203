/// @file heatmap_files.hpp
/// @brief A tune report folder's heat-map data read back and validated, for `grader tune
///        --plot-only DIR`: the script that draws them is written anew from what is read here,
///        never taken from the folder (a copied folder is input, and a script in it would run).
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace convlab::lab07 {

/// What heatmap_gnuplot_script needs, as the data files say it.
struct HeatmapFolder {
  std::vector<int> mask_widths;  ///< from the files heatmap_kNN.dat, ascending
  std::string device;            ///< from their "# device: NAME" line; "" if none says
  bool quick = false;            ///< the axes are those of a --quick sweep
};

/// A heat-map data file that is not what heatmap_data writes.
class HeatmapFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Largest heat-map data file read (one is about 2 KB).
inline constexpr std::uintmax_t kMaxHeatmapFileBytes = 1 << 20;

/// Reads every heatmap_kNN.dat of `dir` and checks each line against the format heatmap_data
/// writes: K one lab 07 supports, the axes of a full or a --quick sweep, every cell a number
/// or NaN and a quoted label, one device name.
/// @throws HeatmapFileError "FILE: line N: REASON" (or "DIR: no heatmap_kNN.dat").
HeatmapFolder read_heatmap_folder(const std::filesystem::path& dir);

}  // namespace convlab::lab07
