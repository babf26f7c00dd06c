// Dense row-major tensors: the values the reference interpreter computes
// with, and the form tests use to feed and read IR functions.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "compiler/ir/types.h"

namespace plastic::interp {

using ir::Shape;

/// A dense tensor of static shape, row-major. Masks (i1) are stored as 0/1.
template <typename T> struct Tensor {
  Shape shape;
  std::vector<T> data;

  Tensor() = default;
  /// Zeros of `shape`.
  explicit Tensor(Shape s) : shape(std::move(s)), data(static_cast<size_t>(ir::numel(shape))) {}
  /// `values` must have numel(shape) elements (checked by the interpreter).
  Tensor(Shape s, std::vector<T> values) : shape(std::move(s)), data(std::move(values)) {}
  static Tensor scalar(T v) { return Tensor(Shape{}, std::vector<T>{v}); }

  int64_t numel() const { return static_cast<int64_t>(data.size()); }
  T& operator[](size_t i) { return data[i]; }
  const T& operator[](size_t i) const { return data[i]; }
  /// Element at a multi-index.
  const T& at(std::initializer_list<int64_t> index) const { return data[offset(index)]; }
  T& at(std::initializer_list<int64_t> index) { return data[offset(index)]; }

private:
  size_t offset(std::initializer_list<int64_t> index) const {
    size_t off = 0, d = 0;
    for (int64_t i : index)
      off = off * static_cast<size_t>(shape[d++]) + static_cast<size_t>(i);
    return off;
  }
};

} // namespace plastic::interp
