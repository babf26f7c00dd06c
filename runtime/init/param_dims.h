// Shapes and names of parameter-table entries, as the initialisers see them.
//
// Shared by every initialiser so that "which dims form the matrix" and "how a
// parameter is named in a message" are decided in one place: a tensor of
// rank >= 2 is a batch of matrices over its last two dims (row-major
// [..., rows, cols], the [out, in] layout of `W @ x` in the DSL).
#pragma once

#include <cstdint>
#include <string>

#include "runtime/abi.h"

namespace plastic::rt::init_detail {

/// A parameter as `batch` row-major matrices of rows x cols (rank 0/1: 1 x 1 x size).
struct MatrixDims {
  int64_t batch = 1;
  int64_t rows = 1;
  int64_t cols = 1;
};

MatrixDims matrix_dims(const plastic_param& p);

/// "'ff.w1'" (or "#3" style fallback when the table has no name).
std::string param_label(const plastic_param& p);

/// "[4, 20, 21]".
std::string shape_string(const plastic_param& p);

} // namespace plastic::rt::init_detail
