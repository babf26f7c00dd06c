// Result types of IR operations: the single place where the typing rules
// live. The factories call it to reject ill-typed requests with a clear
// message; the verifier and the parser call it to re-check nodes.
#pragma once

#include <span>
#include <string>

#include "compiler/ir/node.h"

namespace plastic::ir {

/// The inferred type, or a non-empty `error`.
struct TypeResult {
  DType dtype = DType::F64;
  Shape shape;
  std::string error;
  bool ok() const { return error.empty(); }
};

/// Type of `op(operands; attrs)`. Ops whose shape is not a function of the
/// operands (leaves, constants, broadcast, reshape, slice) take it from
/// `declared_shape`, and leaves and constants take `declared_dtype`; other
/// ops ignore both.
TypeResult infer_type(Op op, std::span<const Node* const> operands, const Attrs& attrs,
                      const Shape& declared_shape, DType declared_dtype);

} // namespace plastic::ir
