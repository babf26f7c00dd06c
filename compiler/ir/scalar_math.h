// Scalar semantics of the elementwise ops: the one definition of what
// `sigmoid`, `softplus`, `step`, ... compute, shared by constant folding in
// the factories and by the reference interpreter (and the source the
// backends' emitted code must match). Numerically careful forms are used
// where the naive one overflows (sigmoid, softplus).
#pragma once

#include <cmath>

#include "compiler/ir/error.h"
#include "compiler/ir/op.h"

namespace plastic::ir {

/// Value of an elementwise unary op; `p` is the powc exponent.
template <typename T> T apply_unary(Op op, T x, double p = 0) {
  switch (op) {
  case Op::Neg:
    return -x;
  case Op::Exp:
    return std::exp(x);
  case Op::Log:
    return std::log(x);
  case Op::Tanh:
    return std::tanh(x);
  case Op::Sigmoid: {
    if (x >= 0) return T(1) / (T(1) + std::exp(-x));
    T e = std::exp(x);
    return e / (T(1) + e);
  }
  case Op::Relu:
    return x > 0 ? x : T(0);
  case Op::Elu:
    return x > 0 ? x : std::expm1(x);
  case Op::Softplus:
    return (x > 0 ? x : T(0)) + std::log1p(std::exp(-std::abs(x)));
  case Op::Sqrt:
    return std::sqrt(x);
  case Op::Abs:
    return std::abs(x);
  case Op::Square:
    return x * x;
  case Op::Reciprocal:
    return T(1) / x;
  case Op::Sin:
    return std::sin(x);
  case Op::Cos:
    return std::cos(x);
  case Op::Step:
    return x > 0 ? T(1) : T(0);
  case Op::Sign:
    return x > 0 ? T(1) : (x < 0 ? T(-1) : T(0));
  case Op::PowC:
    return std::pow(x, static_cast<T>(p));
  default:
    break;
  }
  PLASTIC_CHECK(false, "apply_unary on non-unary op {}", op_name(op));
  return T(0);
}

/// Value of an elementwise binary op.
template <typename T> T apply_binary(Op op, T a, T b) {
  switch (op) {
  case Op::Add:
    return a + b;
  case Op::Sub:
    return a - b;
  case Op::Mul:
    return a * b;
  case Op::Div:
    return a / b;
  // NaN propagates through max/min (a missing observation must not vanish).
  case Op::Max:
    return (std::isnan(a) || std::isnan(b)) ? a + b : (a > b ? a : b);
  case Op::Min:
    return (std::isnan(a) || std::isnan(b)) ? a + b : (a < b ? a : b);
  default:
    break;
  }
  PLASTIC_CHECK(false, "apply_binary on non-binary op {}", op_name(op));
  return T(0);
}

/// Value of a comparison (1 or 0).
template <typename T> bool apply_compare(Op op, T a, T b) {
  switch (op) {
  case Op::Lt:
    return a < b;
  case Op::Le:
    return a <= b;
  case Op::Gt:
    return a > b;
  case Op::Ge:
    return a >= b;
  case Op::Eq:
    return a == b;
  case Op::Ne:
    return a != b;
  default:
    break;
  }
  PLASTIC_CHECK(false, "apply_compare on non-comparison op {}", op_name(op));
  return false;
}

} // namespace plastic::ir
