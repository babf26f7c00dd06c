// Kernels of the reference interpreter, one family per file
// (kernels_elementwise.cpp, kernels_structural.cpp, kernels_contract.cpp,
// kernels_composite.cpp). Internal header.
#pragma once

#include <span>
#include <vector>

#include "compiler/interp/tensor.h"
#include "compiler/ir/node.h"

namespace plastic::interp::detail {

template <typename T> using Args = std::span<const Tensor<T>* const>;

template <typename T> Tensor<T> eval_elementwise(const ir::Node* n, Args<T> args);
template <typename T> Tensor<T> eval_structural(const ir::Node* n, Args<T> args);
template <typename T> Tensor<T> eval_contract(const ir::Node* n, Args<T> args);
template <typename T> Tensor<T> eval_composite(const ir::Node* n, Args<T> args);

/// Visits every multi-index of `shape` (row-major) and calls f(offsets)
/// where offsets[k] = Σ_d index[d] * strides[k][d]: the one loop nest all
/// structural kernels are written with.
template <typename F>
void walk(const ir::Shape& shape, const std::vector<std::vector<int64_t>>& strides, F&& f) {
  size_t r = shape.size(), m = strides.size();
  int64_t n = ir::numel(shape);
  if (n == 0) return;
  std::vector<int64_t> idx(r, 0), off(m, 0);
  for (int64_t k = 0; k < n; ++k) {
    f(static_cast<const int64_t*>(off.data()));
    for (size_t d = r; d-- > 0;) {
      ++idx[d];
      for (size_t s = 0; s < m; ++s)
        off[s] += strides[s][d];
      if (idx[d] < shape[d]) break;
      for (size_t s = 0; s < m; ++s)
        off[s] -= strides[s][d] * shape[d];
      idx[d] = 0;
    }
  }
}

} // namespace plastic::interp::detail
