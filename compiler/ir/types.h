// Element types, static shapes and source locations of IR values.
//
// Shapes are static (the DSL has no dynamic dims; the batch dimension is
// implicit and never appears in the IR). A scalar has shape []. Everything
// here is a plain value type so that nodes can be hashed and compared.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace plastic::ir {

/// Element type of a tensor. `I1` is the boolean type of masks (results of
/// comparisons, the condition of `select`); arithmetic is on F32/F64 only.
enum class DType : uint8_t { F32, F64, I1 };

/// Static shape, outermost axis first (row-major).
using Shape = std::vector<int64_t>;

/// "f32", "f64", "i1".
std::string_view dtype_name(DType t);
/// Inverse of dtype_name; false if unknown.
bool parse_dtype(std::string_view s, DType& out);
inline bool is_float(DType t) {
  return t == DType::F32 || t == DType::F64;
}

/// Number of elements (1 for a scalar).
int64_t numel(const Shape& s);
/// "[4,20,20]".
std::string shape_str(const Shape& s);
/// "f64[4,20,20]".
std::string type_str(DType t, const Shape& s);
/// Row-major strides of a shape (in elements).
std::vector<int64_t> strides_of(const Shape& s);

/// A position in a source file, filled by the front end. `file` points into
/// storage owned by the ir::Context that made the location (see
/// Context::location), so locations stay valid as long as the nodes.
struct SourceLoc {
  std::string_view file;
  int line = 0;
  int col = 0;
  bool valid() const { return line > 0; }
};

} // namespace plastic::ir
