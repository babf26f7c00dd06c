// Elementwise ops (unary, binary, comparisons, select) as loop-IR
// expressions at one position: every operand is evaluated at the same
// position, so a fused chain of them is one expression tree in the loop of
// whatever consumes it. The loop IR's ops mirror the tensor IR's one to one
// (loop_ops.h), including the overflow-free sigmoid/softplus and the
// NaN-propagating min/max, so this is a renaming.
#include "compiler/loopgen/emitter.h"
#include "compiler/loops/error.h"

namespace plastic::loopgen::detail {

using ir::Op;
using loops::BinaryOp;
using loops::CompareOp;
using loops::Expr;
using loops::UnaryOp;

namespace {

UnaryOp unary_op(Op op) {
  switch (op) {
  case Op::Neg:
    return UnaryOp::Neg;
  case Op::Exp:
    return UnaryOp::Exp;
  case Op::Log:
    return UnaryOp::Log;
  case Op::Tanh:
    return UnaryOp::Tanh;
  case Op::Sigmoid:
    return UnaryOp::Sigmoid;
  case Op::Relu:
    return UnaryOp::Relu;
  case Op::Elu:
    return UnaryOp::Elu;
  case Op::Softplus:
    return UnaryOp::Softplus;
  case Op::Sqrt:
    return UnaryOp::Sqrt;
  case Op::Abs:
    return UnaryOp::Abs;
  case Op::Square:
    return UnaryOp::Square;
  case Op::Reciprocal:
    return UnaryOp::Reciprocal;
  case Op::Sin:
    return UnaryOp::Sin;
  case Op::Cos:
    return UnaryOp::Cos;
  case Op::Step:
    return UnaryOp::Step;
  case Op::Sign:
    return UnaryOp::Sign;
  case Op::PowC:
    return UnaryOp::PowC;
  default:
    break;
  }
  PLASTIC_CHECK(false, "kernel emitter: no loop-IR unary op for {}", ir::op_name(op));
  return UnaryOp::Neg;
}

BinaryOp binary_op(Op op) {
  switch (op) {
  case Op::Add:
    return BinaryOp::Add;
  case Op::Sub:
    return BinaryOp::Sub;
  case Op::Mul:
    return BinaryOp::Mul;
  case Op::Div:
    return BinaryOp::Div;
  case Op::Max:
    return BinaryOp::Max;
  case Op::Min:
    return BinaryOp::Min;
  default:
    break;
  }
  PLASTIC_CHECK(false, "kernel emitter: no loop-IR binary op for {}", ir::op_name(op));
  return BinaryOp::Add;
}

CompareOp compare_op(Op op) {
  switch (op) {
  case Op::Lt:
    return CompareOp::Lt;
  case Op::Le:
    return CompareOp::Le;
  case Op::Gt:
    return CompareOp::Gt;
  case Op::Ge:
    return CompareOp::Ge;
  case Op::Eq:
    return CompareOp::Eq;
  case Op::Ne:
    return CompareOp::Ne;
  default:
    break;
  }
  PLASTIC_CHECK(false, "kernel emitter: no loop-IR comparison for {}", ir::op_name(op));
  return CompareOp::Eq;
}

} // namespace

Expr Emitter::eval_elementwise(const ir::Node* n, const Pos& pos) {
  switch (ir::op_category(n->op())) {
  case ir::OpCategory::Unary: {
    Expr x = eval(n->operand(0), pos);
    // The tensor IR's elu has alpha = 1; powc carries its exponent.
    double attr = n->op() == Op::Elu ? 1.0 : n->op() == Op::PowC ? n->attrs().reals.at(0) : 0.0;
    return b.unary(unary_op(n->op()), x, attr);
  }
  case ir::OpCategory::Binary:
    return b.binary(binary_op(n->op()), eval(n->operand(0), pos), eval(n->operand(1), pos));
  case ir::OpCategory::Compare:
    return b.compare(compare_op(n->op()), eval(n->operand(0), pos), eval(n->operand(1), pos));
  case ir::OpCategory::Select: {
    const ir::Node* cond = n->operand(0);
    Expr mask;
    if (ir::op_category(cond->op()) == ir::OpCategory::Compare) {
      mask = eval(cond, pos);
    } else {
      // A folded condition (an i1 constant, stored as 0/1 like the
      // interpreter's masks): test it against zero.
      PLASTIC_CHECK(cond->is_constant(),
                    "kernel emitter: {}: the condition must be a comparison or constant",
                    describe(n));
      mask = b.ne(eval(cond, pos), b.constant(0));
    }
    return b.select(mask, eval(n->operand(1), pos), eval(n->operand(2), pos));
  }
  default:
    PLASTIC_CHECK(false, "kernel emitter: {} is not elementwise", describe(n));
  }
  return {};
}

} // namespace plastic::loopgen::detail
