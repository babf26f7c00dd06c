// Element types and shapes (see types.h).
#include "compiler/ir/types.h"

#include <fmt/format.h>

namespace plastic::ir {

std::string_view dtype_name(DType t) {
  switch (t) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::I1:
    return "i1";
  }
  return "?";
}

bool parse_dtype(std::string_view s, DType& out) {
  if (s == "f32")
    out = DType::F32;
  else if (s == "f64")
    out = DType::F64;
  else if (s == "i1")
    out = DType::I1;
  else
    return false;
  return true;
}

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

std::string shape_str(const Shape& s) {
  return fmt::format("[{}]", fmt::join(s, ","));
}

std::string type_str(DType t, const Shape& s) {
  return fmt::format("{}{}", dtype_name(t), shape_str(s));
}

std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;)
    st[i - 1] = st[i] * s[i];
  return st;
}

} // namespace plastic::ir
