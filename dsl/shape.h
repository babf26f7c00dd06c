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
/// The product of the dims, saturating at INT64_MAX instead of overflowing
/// (dims are at most 10^9, so a rank-3 shape can already overflow int64).
int64_t element_count(const Shape& s);

/// Most elements one model may hold in its parameters, in its state, or in
/// one input: 2^40. Sizes below it times lanes and bytes per element stay far
/// inside int64, so no size computed from them overflows; the memory a
/// training step needs is bounded separately (runtime/gradients/memory_estimate.h).
inline constexpr int64_t kMaxElements = int64_t{1} << 40;

/// The product of the dims as a double: exact enough to compare with
/// kMaxElements and to print, and it cannot overflow.
double element_count_real(const Shape& s);

/// a + b, saturating at INT64_MAX (both non-negative).
int64_t saturating_add(int64_t a, int64_t b);

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
