// The one list of loop-IR operations (X-macros).
//
// Every per-op table of the loop IR is generated from these lists: the op
// enums and their spellings (loop_ir.cpp), the printer, the reference
// interpreter's dispatch, the LLVM lowering's switch. Adding an op here and
// compiling shows every switch that must learn about it (-Wswitch).
//
// The ops and their scalar semantics mirror the tensor IR's elementwise ops
// (compiler/ir/op_list.h, compiler/ir/scalar_math.h) one to one, so that the
// lowering from the tensor IR is a renaming; loop_scalar_math.h restates the
// semantics for this layer.
//
//   X(Enum, "spelling", has_attribute)
//
// has_attribute: the op carries one constant double (elu: alpha; powc: the
// exponent p). Every other op ignores the attribute.
#pragma once

// clang-format off
#define PLASTIC_LOOP_UNARY_OPS(X)    \
  X(Neg,        "neg",        false) \
  X(Abs,        "abs",        false) \
  X(Square,     "square",     false) \
  X(Reciprocal, "reciprocal", false) \
  X(Sqrt,       "sqrt",       false) \
  X(Exp,        "exp",        false) \
  X(Expm1,      "expm1",      false) \
  X(Log,        "log",        false) \
  X(Log1p,      "log1p",      false) \
  X(Tanh,       "tanh",       false) \
  X(Sigmoid,    "sigmoid",    false) \
  X(Softplus,   "softplus",   false) \
  X(Relu,       "relu",       false) \
  X(Elu,        "elu",        true)  \
  X(Step,       "step",       false) \
  X(Sign,       "sign",       false) \
  X(Sin,        "sin",        false) \
  X(Cos,        "cos",        false) \
  X(PowC,       "powc",       true)

#define PLASTIC_LOOP_BINARY_OPS(X) \
  X(Add, "add", false)             \
  X(Sub, "sub", false)             \
  X(Mul, "mul", false)             \
  X(Div, "div", false)             \
  X(Min, "min", false)             \
  X(Max, "max", false)

/* Comparisons give a mask (one bit per lane); NaN compares false except ne. */
#define PLASTIC_LOOP_COMPARE_OPS(X) \
  X(Lt, "lt", false)                \
  X(Le, "le", false)                \
  X(Gt, "gt", false)                \
  X(Ge, "ge", false)                \
  X(Eq, "eq", false)                \
  X(Ne, "ne", false)
// clang-format on
