// Scalar semantics of the loop-IR ops: what each op computes on one lane.
//
// The reference interpreter evaluates exactly these (in f64); the LLVM
// backend's vectorised code approximates them to the accuracy documented in
// llvm/vector_math.h. They restate the tensor IR's semantics
// (compiler/ir/scalar_math.h) so the two layers agree op for op: relu and
// step are 0 at NaN, min/max propagate NaN, sigmoid and softplus use their
// overflow-free forms, elu's negative branch is alpha * expm1(x).
#pragma once

#include <cmath>

#include "compiler/loops/loop_ir.h"

namespace plastic::loops {

/// Value of a unary op; `attr` is elu's alpha or powc's exponent.
template <typename T> T apply_unary(UnaryOp op, T x, double attr) {
  switch (op) {
  case UnaryOp::Neg:
    return -x;
  case UnaryOp::Abs:
    return std::abs(x);
  case UnaryOp::Square:
    return x * x;
  case UnaryOp::Reciprocal:
    return T(1) / x;
  case UnaryOp::Sqrt:
    return std::sqrt(x);
  case UnaryOp::Exp:
    return std::exp(x);
  case UnaryOp::Expm1:
    return std::expm1(x);
  case UnaryOp::Log:
    return std::log(x);
  case UnaryOp::Log1p:
    return std::log1p(x);
  case UnaryOp::Tanh:
    return std::tanh(x);
  case UnaryOp::Sigmoid: {
    if (x >= 0) return T(1) / (T(1) + std::exp(-x));
    const T e = std::exp(x);
    return e / (T(1) + e);
  }
  case UnaryOp::Softplus:
    return (x > 0 ? x : T(0)) + std::log1p(std::exp(-std::abs(x)));
  case UnaryOp::Relu:
    return x > 0 ? x : T(0);
  case UnaryOp::Elu:
    return x > 0 ? x : static_cast<T>(attr) * std::expm1(x);
  case UnaryOp::Step:
    return x > 0 ? T(1) : T(0);
  case UnaryOp::Sign:
    return x > 0 ? T(1) : (x < 0 ? T(-1) : T(0));
  case UnaryOp::Sin:
    return std::sin(x);
  case UnaryOp::Cos:
    return std::cos(x);
  case UnaryOp::PowC:
    return std::pow(x, static_cast<T>(attr));
  }
  return T(0);
}

/// Value of a binary op.
template <typename T> T apply_binary(BinaryOp op, T a, T b) {
  switch (op) {
  case BinaryOp::Add:
    return a + b;
  case BinaryOp::Sub:
    return a - b;
  case BinaryOp::Mul:
    return a * b;
  case BinaryOp::Div:
    return a / b;
  // NaN propagates (a missing observation must not vanish); a + b is NaN.
  case BinaryOp::Min:
    return (std::isnan(a) || std::isnan(b)) ? a + b : (a < b ? a : b);
  case BinaryOp::Max:
    return (std::isnan(a) || std::isnan(b)) ? a + b : (a > b ? a : b);
  }
  return T(0);
}

/// Value of a comparison; NaN compares false except for ne.
template <typename T> bool apply_compare(CompareOp op, T a, T b) {
  switch (op) {
  case CompareOp::Lt:
    return a < b;
  case CompareOp::Le:
    return a <= b;
  case CompareOp::Gt:
    return a > b;
  case CompareOp::Ge:
    return a >= b;
  case CompareOp::Eq:
    return a == b;
  case CompareOp::Ne:
    return a != b;
  }
  return false;
}

} // namespace plastic::loops
