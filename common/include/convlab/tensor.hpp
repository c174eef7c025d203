/// @file tensor.hpp
/// @brief A dense, row-major host tensor: the one container for images, masks and outputs.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace convlab {

/// "(2, 3, 4)", numpy's spelling of a shape.
std::string shape_string(const std::vector<std::size_t>& shape);
/// "(i, j, k)" for a multi-index.
std::string index_string(const std::vector<std::size_t>& index);

/// Dense row-major (C order) tensor on the host.
/// @tparam T element type (float for data, double for references).
template <class T>
class Tensor {
 public:
  Tensor() = default;
  /// A zero-filled tensor of the given shape.
  explicit Tensor(std::vector<std::size_t> shape) : shape_(std::move(shape)) {
    values_.assign(count_of(shape_), T{});
  }
  /// A tensor of the given shape holding `values` (row-major); sizes must agree.
  Tensor(std::vector<std::size_t> shape, std::vector<T> values)
      : shape_(std::move(shape)), values_(std::move(values)) {
    if (values_.size() != count_of(shape_)) {
      throw std::invalid_argument("Tensor: " + std::to_string(values_.size()) +
                                  " values do not fill shape " + shape_string(shape_));
    }
  }

  /// The extent of each axis, outermost first.
  [[nodiscard]] const std::vector<std::size_t>& shape() const { return shape_; }
  /// Number of axes.
  [[nodiscard]] std::size_t rank() const { return shape_.size(); }
  /// Extent of one axis.
  [[nodiscard]] std::size_t dim(std::size_t axis) const { return shape_.at(axis); }
  /// Number of elements.
  [[nodiscard]] std::size_t size() const { return values_.size(); }
  /// The elements, row-major.
  [[nodiscard]] T* data() { return values_.data(); }
  /// The elements, row-major.
  [[nodiscard]] const T* data() const { return values_.data(); }
  /// The elements, row-major.
  [[nodiscard]] std::vector<T>& values() { return values_; }
  /// The elements, row-major.
  [[nodiscard]] const std::vector<T>& values() const { return values_; }

  /// Element at a multi-index, bounds-checked (for tests and small examples).
  [[nodiscard]] T& at(std::initializer_list<std::size_t> index) { return values_[offset(index)]; }
  /// Element at a multi-index, bounds-checked.
  [[nodiscard]] const T& at(std::initializer_list<std::size_t> index) const {
    return values_[offset(index)];
  }

  /// Row-major offset of a multi-index; throws std::out_of_range when it is outside.
  [[nodiscard]] std::size_t offset(std::initializer_list<std::size_t> index) const {
    if (index.size() != shape_.size()) throw std::out_of_range("Tensor: wrong number of indices");
    std::size_t off = 0;
    std::size_t axis = 0;
    for (std::size_t i : index) {
      if (i >= shape_[axis]) throw std::out_of_range("Tensor: index out of range");
      off = off * shape_[axis] + i;
      ++axis;
    }
    return off;
  }

  /// The multi-index of a row-major offset (inverse of offset()).
  [[nodiscard]] std::vector<std::size_t> unravel(std::size_t off) const {
    std::vector<std::size_t> index(shape_.size());
    for (std::size_t axis = shape_.size(); axis-- > 0;) {
      index[axis] = off % shape_[axis];
      off /= shape_[axis];
    }
    return index;
  }

  /// Number of elements of a shape (1 for rank 0).
  static std::size_t count_of(const std::vector<std::size_t>& shape) {
    std::size_t n = 1;
    for (std::size_t d : shape) n *= d;
    return n;
  }

 private:
  std::vector<std::size_t> shape_;
  std::vector<T> values_;
};

}  // namespace convlab
