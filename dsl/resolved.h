// The resolved form of an expression: what irgen builds IR from.
//
// The checker evaluates each expression irgen needs — every state's
// initial value, flow and jump, every output, the loss — exactly once, and
// records each operation it checks as a node: names are bound (a leaf is an
// index into the checked model's tables), `let`s, `fn`s and layer calls are
// inlined (a bound value used twice is one node used twice), dims, indices,
// axes and exponents are numbers, and every node carries the shape the
// checker proved. irgen walks the nodes with no name lookup and no
// diagnostics.
//
// Nodes are kept in the order the checker evaluated them, operands first,
// unused `let` values included: irgen visits them in that order, so the
// IR nodes are created and a function's extra inputs (path samples,
// statics, targets) first used in the same order as the source reads them.
#pragma once

#include "dsl/ast.h"
#include "dsl/builtins.h"
#include "dsl/shape.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace plastic::dsl {

/// A time at which a path or state is read.
enum class When { Now, Final, Initial };

/// A leaf of an expression: something the model provides at run time.
struct Leaf {
  enum Kind { Param, State, PathValue, PathDerivative, Static, Label, Target, Output, Time } kind;
  int index = 0; ///< into CheckedModel::params / states / inputs / outputs
  When when = When::Now;
};

/// One item of `x[...]`: an index, a slice or `...` (constants only).
struct IndexItem {
  enum Kind { Index, Slice, Ellipsis } kind = Index;
  int64_t index = 0;
  std::optional<int64_t> lo, hi;
};

/// What a node of a resolved expression computes.
enum class ResolvedKind {
  Number,  ///< a constant scalar: a literal, a dim, a const, the exponent of `^`
  Leaf,    ///< leaf
  Unary,   ///< unary_op(args[0])
  Binary,  ///< binary_op(args[0], args[1]); for Pow, args[1] is a Number
  Builtin, ///< builtin(args...) with its constant arguments in consts
  Index,   ///< args[0][items...]
};

/// What a node's value is: a tensor, a label (class indices: the compiler
/// reads it one-hot) or a loss term.
enum class ValueKind { Tensor, Label, Loss };

/// One checked operation.
struct ResolvedNode {
  ResolvedKind kind = ResolvedKind::Number;
  ValueKind value = ValueKind::Tensor;
  Shape shape;                  ///< as checked; [] for labels and losses
  bool per_observation = false; ///< read at every observation, not at the final time
  std::vector<int> args;        ///< operands: indices of earlier nodes
  double number = 0;            ///< Number
  Leaf leaf{Leaf::Time};        ///< Leaf
  UnaryOp unary_op = UnaryOp::Neg;
  BinaryOp binary_op = BinaryOp::Add;
  Builtin builtin = Builtin::Tanh;
  BuiltinConsts consts;         ///< Builtin
  std::vector<IndexItem> items; ///< Index
  /// Where the checker met it: in the model file, or in the prelude for the
  /// inside of a layer or fn it defines. irgen stamps the IR with it.
  Span span;
};

/// One resolved expression: its nodes in evaluation order and its value.
struct ResolvedExpr {
  std::vector<ResolvedNode> nodes;
  int root = -1; ///< the node whose value the expression has; -1 = none recorded

  bool empty() const { return root < 0; }
  const ResolvedNode& value() const { return nodes.at(static_cast<size_t>(root)); }
};

} // namespace plastic::dsl
