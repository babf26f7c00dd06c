// The element type's names (see elem_type.h).
#include "compiler/loops/elem_type.h"

#include <string>

#include "runtime/support/internal_error.h"

namespace plastic::loops {

std::optional<ElemType> parse_elem_type(std::string_view name) {
  if (name == "f32" || name == "float32") return ElemType::F32;
  if (name == "f64" || name == "float64") return ElemType::F64;
  return std::nullopt;
}

ElemType elem_type(std::string_view name) {
  if (std::optional<ElemType> t = parse_elem_type(name)) return *t;
  throw InternalError("element type '" + std::string(name) + "' passed the checks: f32 or f64");
}

} // namespace plastic::loops
