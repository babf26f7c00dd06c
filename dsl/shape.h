// Static tensor shapes and the shape rules of the language's operators.
//
// One place decides how `+`, `@`, outer, reductions, reshape, concat and
// einsum combine shapes, so the checker's messages and (later) the compiler's
// lowering agree. A rule returns the result shape or a ShapeError carrying a
// message and a hint such as "[4,20,20] @ [4,21]: 20 ≠ 21".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace plastic::dsl {

using Shape = std::vector<int64_t>;

std::string format_shape(const Shape& s);
int64_t element_count(const Shape& s);

struct ShapeError {
  std::string message;
  std::string hint;
};

using ShapeResult = std::variant<Shape, ShapeError>;

/// NumPy broadcasting (shapes aligned on the right; 1 stretches).
ShapeResult broadcast_shapes(const Shape& a, const Shape& b);
/// `A @ B`: batched matvec, batched matmul, vecmat or dot (GRAMMAR.md table).
ShapeResult matmul_shape(const Shape& a, const Shape& b);
/// outer(a, b): [..., m] x [..., n] -> [..., m, n], leading dims broadcast.
ShapeResult outer_shape(const Shape& a, const Shape& b);
/// transpose(x): swaps the last two axes.
ShapeResult transpose_shape(const Shape& x);
/// Normalises a possibly negative axis; nullopt if out of range.
std::optional<int> normalize_axis(int64_t axis, size_t rank);
/// Reduction over one axis (or all axes when `axis` is empty).
ShapeResult reduce_shape(const Shape& x, std::optional<int64_t> axis);
ShapeResult reshape_shape(const Shape& x, const Shape& target);
ShapeResult concat_shape(const std::vector<Shape>& parts, int64_t axis);
/// einsum with NumPy's spec syntax, including one `...` per operand.
ShapeResult einsum_shape(const std::string& spec, const std::vector<Shape>& operands);

} // namespace plastic::dsl
