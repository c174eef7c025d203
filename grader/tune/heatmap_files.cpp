// A tune report folder's heat-map data, read back and validated (heatmap_files.hpp).
#include "tune/heatmap_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "convlab/atomic_file.hpp"
#include "convlab/file_reader.hpp"
#include "convlab/limits.hpp"
#include "convlab/autotune/search_space.hpp"
#include "convlab/lab07_config.hpp"

namespace convlab::lab07 {
namespace fs = std::filesystem;

namespace {

struct DataFile {
  std::string device;
  std::set<int> xs, ys;  // outputs per thread seen on each axis
  std::set<std::pair<int, int>> x_cells, y_cells;  // (ix, outputs_x), (iy, outputs_y)
};

// "ix iy outputs_x outputs_y value \"label\"" (heatmap_data), nothing else.
const std::regex kCell(R"((\d{1,2}) (\d{1,2}) (\d{1,2}) (\d{1,2}) (NaN|\d{1,6}(?:\.\d{1,3})?) "[^"]{0,32}")");

DataFile read_one(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw HeatmapFileError(fmt::format("{}: not a regular file", file.string()));
  if (fs::file_size(file, ec) > kMaxHeatmapFileBytes) {
    throw HeatmapFileError(fmt::format("{}: larger than {} bytes, not a heat map", file.string(), kMaxHeatmapFileBytes));
  }
  std::string text;
  try {
    text = read_file(file, kMaxTextFileBytes);
  } catch (const std::exception& e) {
    throw HeatmapFileError(e.what());
  }
  DataFile d;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  bool device_seen = false;
  while (std::getline(in, line)) {
    ++n;
    auto bad = [&](const std::string& why) {
      return HeatmapFileError(fmt::format("{}: line {}: {}", file.string(), n, why));
    };
    if (line.empty()) continue;
    if (line.rfind("# device: ", 0) == 0) {
      if (device_seen) throw bad("a second device line");
      device_seen = true;
      d.device = line.substr(10);
      continue;
    }
    if (line[0] == '#') continue;
    std::smatch m;
    if (!std::regex_match(line, m, kCell)) {
      throw bad("expected a cell \"ix iy outputs_x outputs_y utilization|NaN \\\"label\\\"\"");
    }
    // At most two digits each: no overflow.
    d.xs.insert(std::stoi(m[3]));
    d.ys.insert(std::stoi(m[4]));
    d.x_cells.insert({std::stoi(m[1]), std::stoi(m[3])});
    d.y_cells.insert({std::stoi(m[2]), std::stoi(m[4])});
  }
  return d;
}

}  // namespace

HeatmapFolder read_heatmap_folder(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw HeatmapFileError(fmt::format("{}: not a folder", dir.string()));
  const std::regex name(R"(heatmap_k(\d\d)\.dat)");
  std::map<int, fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::smatch m;
    const std::string f = e.path().filename().string();
    if (!std::regex_match(f, m, name)) continue;
    const int k = std::stoi(m[1]);
    if (!mask_supported(k)) {
      throw HeatmapFileError(fmt::format("{}: mask width {} is not one lab 07 supports", e.path().string(), k));
    }
    files[k] = e.path();
  }
  if (ec) throw HeatmapFileError(fmt::format("{}: cannot be listed: {}", dir.string(), ec.message()));
  if (files.empty()) {
    throw HeatmapFileError(fmt::format("{}: no heatmap_kNN.dat (run `grader tune` first)", dir.string()));
  }
  HeatmapFolder out;
  bool first = true;
  for (const auto& [k, file] : files) {
    const DataFile d = read_one(file);
    const std::vector<int> xs(d.xs.begin(), d.xs.end());
    const std::vector<int> ys(d.ys.begin(), d.ys.end());
    bool quick = false;
    if (xs == heatmap_outputs_x(true) && ys == heatmap_outputs_y(true)) {
      quick = true;
    } else if (xs != heatmap_outputs_x(false) || ys != heatmap_outputs_y(false)) {
      throw HeatmapFileError(fmt::format("{}: its outputs per thread are not the axes of a sweep", file.string()));
    }
    auto placed = [](const std::set<std::pair<int, int>>& cells, const std::vector<int>& axis) {
      return std::all_of(cells.begin(), cells.end(), [&](const auto& c) {
        return c.first < static_cast<int>(axis.size()) && axis[static_cast<std::size_t>(c.first)] == c.second;
      });
    };
    if (!placed(d.x_cells, xs) || !placed(d.y_cells, ys)) {
      throw HeatmapFileError(fmt::format("{}: a cell's index does not match its outputs per thread", file.string()));
    }
    if (!first && (quick != out.quick || d.device != out.device)) {
      throw HeatmapFileError(fmt::format("{}: not from the same sweep as {} (another device or sweep size)",
                                         file.string(), files.begin()->second.string()));
    }
    out.quick = quick;
    out.device = d.device;
    out.mask_widths.push_back(k);
    first = false;
  }
  return out;
}

}  // namespace convlab::lab07
