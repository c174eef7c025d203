#include "convlab/tensor.hpp"

namespace convlab {

static std::string join(const std::vector<std::size_t>& v, bool trailing_comma_for_one) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  if (trailing_comma_for_one && v.size() == 1) s += ",";
  return s;
}

std::string shape_string(const std::vector<std::size_t>& shape) {
  return "(" + join(shape, true) + ")";
}

std::string index_string(const std::vector<std::size_t>& index) {
  return "(" + join(index, false) + ")";
}

}  // namespace convlab
