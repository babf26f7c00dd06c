// The IR node: one immutable, hash-consed tensor operation.
//
// Nodes are created only by a Context (through the checked factories of
// ops.h, or Context::make for already-checked data) and live in its arena
// until the Context dies. Two requests for the same (op, dtype, shape,
// operands, attrs) return the same node, so pointer equality is structural
// equality: CSE is free and `const Node*` can key maps and sets. The source
// location is not part of a node's identity: the first creator's wins.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "compiler/ir/op.h"
#include "compiler/ir/types.h"

namespace plastic::ir {

class Context;

/// Per-op attributes (tinygrad's `arg`). Which fields an op uses is fixed by
/// its AttrLayout in op_list.h; unused fields stay empty.
struct Attrs {
  std::string str;           ///< leaf name; contraction spec
  std::vector<int64_t> ints; ///< leaf slot; axes; slice starts; pad widths
  std::vector<double> reals; ///< constant values; powc exponent; layernorm eps

  /// Bitwise equality of reals (-0 != 0; a NaN equals the same NaN).
  bool operator==(const Attrs& o) const;
};

/// One IR value. Immutable; see file comment.
class Node {
public:
  Op op() const { return op_; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t numel() const { return numel_; }
  std::span<const Node* const> operands() const { return operands_; }
  const Node* operand(size_t i) const { return operands_[i]; }
  size_t num_operands() const { return operands_.size(); }
  const Attrs& attrs() const { return attrs_; }
  const SourceLoc& loc() const { return loc_; }
  /// Structural hash: depends only on the expression, never on addresses, so
  /// it is the same in every run and every Context.
  uint64_t hash() const { return hash_; }
  /// Creation index within the Context (0, 1, ...).
  uint32_t id() const { return id_; }
  Context& context() const { return *ctx_; }

  bool is_leaf() const { return op_is_leaf(op_); }
  bool is_constant() const { return op_ == Op::Constant; }
  /// A constant whose elements are all given by one value.
  bool is_splat() const { return op_ == Op::Constant && attrs_.reals.size() == 1; }
  /// True if this is a splat constant equal to v.
  bool is_splat_of(double v) const { return is_splat() && attrs_.reals[0] == v; }
  /// Leaf name (leaves only).
  const std::string& name() const { return attrs_.str; }
  /// Leaf slot (leaves only).
  int64_t slot() const { return attrs_.ints.empty() ? 0 : attrs_.ints[0]; }
  /// Single integer attribute (axis of softmax, concat, ...).
  int64_t axis() const { return attrs_.ints.at(0); }

private:
  friend class Context;
  Node() = default;
  Op op_{};
  DType dtype_{};
  Shape shape_;
  int64_t numel_ = 1;
  std::vector<const Node*> operands_;
  Attrs attrs_;
  SourceLoc loc_;
  uint64_t hash_ = 0;
  uint32_t id_ = 0;
  Context* ctx_ = nullptr;
};

} // namespace plastic::ir
