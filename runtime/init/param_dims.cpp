// Shapes and names of parameter-table entries (see param_dims.h).
#include "runtime/init/param_dims.h"

#include <fmt/format.h>

namespace plastic::rt::init_detail {

MatrixDims matrix_dims(const plastic_param& p) {
  MatrixDims d;
  if (p.rank < 2) {
    d.cols = p.size;
    return d;
  }
  d.rows = p.shape[p.rank - 2];
  d.cols = p.shape[p.rank - 1];
  for (int i = 0; i < p.rank - 2; ++i)
    d.batch *= p.shape[i];
  return d;
}

std::string param_label(const plastic_param& p) {
  return p.name ? fmt::format("'{}'", p.name) : std::string("'<unnamed>'");
}

std::string shape_string(const plastic_param& p) {
  std::string s = "[";
  for (int i = 0; i < p.rank && i < PLASTIC_MAX_RANK; ++i)
    s += (i ? ", " : "") + std::to_string(p.shape[i]);
  return s + "]";
}

} // namespace plastic::rt::init_detail
