#include "schedule/gpu_selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace convlab::grader {

namespace {

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(item);
  return out;
}

}  // namespace

std::vector<GpuSlot> select_gpus(const std::string& list, int visible, const std::optional<std::string>& parent_visible) {
  // What index i means to the driver: the parent's own mask, when it has one, renumbers them.
  std::vector<std::string> ids;
  if (parent_visible && !parent_visible->empty()) ids = split_commas(*parent_visible);
  auto id_of = [&](int i) { return i < static_cast<int>(ids.size()) ? ids[static_cast<std::size_t>(i)] : std::to_string(i); };

  std::vector<GpuSlot> out;
  if (list.empty()) {
    for (int i = 0; i < visible; ++i) out.push_back({i, id_of(i)});
    return out;
  }
  for (const std::string& item : split_commas(list)) {
    std::size_t used = 0;
    int i = -1;
    try {
      i = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || i < 0) {
      throw std::invalid_argument(fmt::format("--gpus {}: '{}' is not a GPU index (0, 1, ...)", list, item));
    }
    if (i >= visible) {
      throw std::invalid_argument(fmt::format("--gpus {}: there is no GPU {}: the grader sees {} GPU{} (0..{})", list,
                                              i, visible, visible == 1 ? "" : "s", visible - 1));
    }
    if (std::any_of(out.begin(), out.end(), [i](const GpuSlot& s) { return s.index == i; })) {
      throw std::invalid_argument(fmt::format("--gpus {}: GPU {} is named twice", list, i));
    }
    out.push_back({i, id_of(i)});
  }
  return out;
}

}  // namespace convlab::grader
