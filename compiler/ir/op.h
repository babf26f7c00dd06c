// The Op enum and its static properties, generated from op_list.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "compiler/ir/op_list.h"

namespace plastic::ir {

/// Every IR operation (see op_list.h for meanings and attribute layouts).
enum class Op : uint8_t {
#define PLASTIC_X(name, spelling, arity, category, attrs) name,
  PLASTIC_IR_OPS(PLASTIC_X)
#undef PLASTIC_X
};

/// Number of ops.
constexpr int kNumOps = 0
// NOLINTNEXTLINE(bugprone-macro-parentheses): each expansion is one `+1` term of the sum
#define PLASTIC_X(name, spelling, arity, category, attrs) +1
    PLASTIC_IR_OPS(PLASTIC_X)
#undef PLASTIC_X
    ;

/// Families of ops that share typing, printing and interpretation.
enum class OpCategory : uint8_t {
  Leaf,
  Constant,
  Unary,
  Binary,
  Compare,
  Select,
  Broadcast,
  Reduce,
  Contract,
  Reshape,
  Slice,
  Pad,
  Concat,
  Composite
};

/// Which parts of ir::Attrs an op uses (bit flags).
enum AttrLayout : uint8_t { kAttrStr = 1, kAttrInts = 2, kAttrReals = 4 };

/// The textual spelling, e.g. "reduce_sum".
std::string_view op_name(Op op);
/// Inverse of op_name.
std::optional<Op> op_from_name(std::string_view name);
/// Operand count; -1 for variadic (>= 1).
int op_arity(Op op);
OpCategory op_category(Op op);
/// AttrLayout flags.
uint8_t op_attr_layout(Op op);
/// a op b == b op a (the factories order such operands canonically).
bool op_is_commutative(Op op);
inline bool op_is_leaf(Op op) {
  return op_category(op) == OpCategory::Leaf;
}

} // namespace plastic::ir
