// Checked factories: the way to build IR.
//
// Each factory infers and checks the result type (type_infer.h) and throws an
// IRError with the Context's current source location when the request is
// ill-typed ("shapes do not contract in 'ab,b->a': ..."). Factories also
// canonicalise, so that equal expressions become the same hash-consed node:
// commutative operands are ordered (constants last, then by structural
// hash), contraction specs are relabelled, splat constants fold, and exact
// identities are applied (x+0, x*1, --x, x+(-y) → x-y, reshape∘reshape,
// broadcast∘broadcast, identity transposes...). Identities that are not exact
// under IEEE arithmetic (x*0 → 0, x-x → 0) are never applied.
//
// Elementwise ops require equal shapes: broadcasts are explicit nodes. Pass
// Broadcasting::Numpy to let a factory insert them (numpy rules: align
// trailing axes, size-1 axes stretch).
//
// The Context comes from the operands; leaves and constants are made by
// Context directly (context.h).
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "compiler/ir/context.h"
#include "compiler/ir/einsum.h"

namespace plastic::ir {

/// Whether elementwise factories may insert broadcasts.
enum class Broadcasting { Strict, Numpy };

// ---- constants ---------------------------------------------------------------

/// A splat constant with x's shape and dtype.
const Node* splat_like(const Node* x, double value);
/// A zero splat with x's shape and dtype.
inline const Node* zeros_like(const Node* x) {
  return splat_like(x, 0.0);
}

// ---- elementwise unary -------------------------------------------------------

/// Any elementwise unary op (category Unary); `p` is the powc exponent.
const Node* unary(Op op, const Node* x, double p = 0);
const Node* neg(const Node* x);
const Node* exp(const Node* x);
const Node* log(const Node* x);
const Node* tanh(const Node* x);
const Node* sigmoid(const Node* x);
const Node* relu(const Node* x);
/// elu with alpha = 1: x if x > 0 else exp(x) - 1.
const Node* elu(const Node* x);
/// log(1 + exp(x)), computed stably.
const Node* softplus(const Node* x);
const Node* sqrt(const Node* x);
const Node* abs(const Node* x);
const Node* square(const Node* x);
const Node* reciprocal(const Node* x);
const Node* sin(const Node* x);
const Node* cos(const Node* x);
/// Heaviside: 1 where x > 0, else 0 (the derivative of relu).
const Node* step(const Node* x);
/// -1, 0 or 1.
const Node* sign(const Node* x);
/// x^p for a constant exponent p.
const Node* powc(const Node* x, double p);

// ---- elementwise binary ------------------------------------------------------

/// Any elementwise binary op (category Binary).
const Node* binary(Op op, const Node* a, const Node* b, Broadcasting mode = Broadcasting::Strict);
const Node* add(const Node* a, const Node* b, Broadcasting mode = Broadcasting::Strict);
const Node* sub(const Node* a, const Node* b, Broadcasting mode = Broadcasting::Strict);
const Node* mul(const Node* a, const Node* b, Broadcasting mode = Broadcasting::Strict);
const Node* div(const Node* a, const Node* b, Broadcasting mode = Broadcasting::Strict);
const Node* max(const Node* a, const Node* b, Broadcasting mode = Broadcasting::Strict);
const Node* min(const Node* a, const Node* b, Broadcasting mode = Broadcasting::Strict);
/// x * c for a scalar constant c.
const Node* scale(const Node* x, double c);
/// x + c for a scalar constant c.
const Node* shift(const Node* x, double c);

// ---- comparisons and select ---------------------------------------------------

/// Any comparison (category Compare); the result is i1.
const Node* compare(Op op, const Node* a, const Node* b, Broadcasting mode = Broadcasting::Strict);
const Node* lt(const Node* a, const Node* b);
const Node* le(const Node* a, const Node* b);
const Node* gt(const Node* a, const Node* b);
const Node* ge(const Node* a, const Node* b);
const Node* eq(const Node* a, const Node* b);
const Node* ne(const Node* a, const Node* b);
/// cond ? a : b elementwise (cond is i1; all three shapes equal).
const Node* select(const Node* cond, const Node* a, const Node* b);

// ---- broadcasts and reductions ------------------------------------------------

/// Places input axis i at output axis axes[i] (strictly increasing; sizes
/// equal) and repeats along the other axes of `shape`.
const Node* broadcast(const Node* x, Shape shape, std::vector<int64_t> axes);
/// Numpy broadcast of x to `shape` (trailing alignment; size-1 axes stretch).
const Node* broadcast_to(const Node* x, const Shape& shape);
/// The numpy broadcast shape of a and b; throws IRError if incompatible.
Shape broadcast_shape(const Shape& a, const Shape& b);
/// Sum over `axes` (any order, no duplicates); the axes are removed.
const Node* reduce_sum(const Node* x, std::vector<int64_t> axes);
/// Maximum over `axes`; the axes are removed.
const Node* reduce_max(const Node* x, std::vector<int64_t> axes);
/// Mean over `axes` (a sum times 1/n).
const Node* mean(const Node* x, std::vector<int64_t> axes);

// ---- the contraction -----------------------------------------------------------

/// einsum: `contract("hij,hj->hi", {W, k})`. See einsum.h for the spec.
const Node* contract(std::string_view spec, std::vector<const Node*> operands);
const Node* contract(const EinsumSpec& spec, std::vector<const Node*> operands);
/// Batched matrix product over leading batch axes (not numpy's rules):
///   [..., m, k] @ [..., k, n] -> [..., m, n]  (equal batch dims)
///   [..., m, k] @ [k, n]      -> [..., m, n]  (one matrix for the batch)
///   [..., m, k] @ [..., k] or [k] -> [..., m] (matvec; e.g. the multi-head
///                                               [h,d,d] @ [h,d] -> [h,d])
///   [k] @ [k, n] -> [n];  [k] @ [k] -> []
const Node* matmul(const Node* a, const Node* b);
/// [..., m, k] · [..., k] -> [..., m] (equal batch dims), or
/// [..., m, k] · [k] -> [..., m] (one vector for the whole batch).
const Node* matvec(const Node* a, const Node* x);
/// Outer product over the trailing axes with `batch_dims` shared leading
/// axes: outer(v[h,i], k[h,j], 1) -> [h,i,j]; batch_dims = 0 is a ⊗ b.
const Node* outer(const Node* a, const Node* b, int batch_dims = 0);
/// Sum of the elementwise product (a scalar).
const Node* dot(const Node* a, const Node* b);
/// Output axis i is input axis perm[i].
const Node* transpose(const Node* x, const std::vector<int64_t>& perm);

// ---- shape ops -----------------------------------------------------------------

/// Same elements, row-major, new shape.
const Node* reshape(const Node* x, Shape shape);
/// x[starts[i] : starts[i] + sizes[i]] on every axis.
const Node* slice(const Node* x, std::vector<int64_t> starts, Shape sizes);
/// Zero padding: `lo[i]` before and `hi[i]` after axis i.
const Node* pad(const Node* x, const std::vector<int64_t>& lo, const std::vector<int64_t>& hi);
/// Concatenation along `axis`.
const Node* concat(std::vector<const Node*> xs, int64_t axis);

// ---- composites ------------------------------------------------------------------

/// exp(x - max) / sum(exp(x - max)) along `axis`.
const Node* softmax(const Node* x, int64_t axis);
/// log(sum(exp(x))) along `axis`, stably; the axis is removed.
const Node* logsumexp(const Node* x, int64_t axis);
/// (x - mean) / sqrt(var + eps) along `axis`, biased variance, no affine part.
const Node* layernorm(const Node* x, int64_t axis, double eps = 1e-5);

// ---- generic -------------------------------------------------------------------

/// The node `n` would be with `operands` instead of its own, built through
/// the checked factory of its op (so folding and canonicalisation apply).
/// Returns `n` itself when the operands are unchanged (Halide's mutator rule).
const Node* rebuild(const Node* n, std::span<const Node* const> operands);

/// Canonical order of commutative operands: non-constants first, then by
/// structural hash (stable across runs), then by creation id.
bool canonical_before(const Node* a, const Node* b);

} // namespace plastic::ir
