// The one list of IR operations (X-macro).
//
// Every per-op table of the compiler core is generated from this list: the
// Op enum and its spellings (op.cpp), the attribute layout the printer prints
// and the parser expects, the arity the verifier checks. Adding an op here
// and compiling shows every switch that must learn about it; the derivative
// rule table refuses to start without a rule for it (autodiff/rule_table.cpp).
//
//   X(Enum, "spelling", arity, Category, attribute layout)
//
// arity -1 = variadic (at least one operand). Attribute layout flags say
// which parts of ir::Attrs an op uses: S = str, I = ints, R = reals.
#pragma once

// clang-format off
#define PLASTIC_IR_OPS(X)                                                       \
  /* leaves: str = name, ints = {slot} */                                       \
  X(Time,       "time",       0, Leaf,      S | I)                              \
  X(State,      "state",      0, Leaf,      S | I)                              \
  X(Param,      "param",      0, Leaf,      S | I)                              \
  X(Input,      "input",      0, Leaf,      S | I)                              \
  X(Arg,        "arg",        0, Leaf,      S | I)                              \
  /* reals = {splat value} or all numel values, row-major */                    \
  X(Constant,   "constant",   0, Constant,  R)                                  \
  /* elementwise unary */                                                       \
  X(Neg,        "neg",        1, Unary,     0)                                  \
  X(Exp,        "exp",        1, Unary,     0)                                  \
  X(Log,        "log",        1, Unary,     0)                                  \
  X(Tanh,       "tanh",       1, Unary,     0)                                  \
  X(Sigmoid,    "sigmoid",    1, Unary,     0)                                  \
  X(Relu,       "relu",       1, Unary,     0)                                  \
  X(Elu,        "elu",        1, Unary,     0)                                  \
  X(Softplus,   "softplus",   1, Unary,     0)                                  \
  X(Sqrt,       "sqrt",       1, Unary,     0)                                  \
  X(Abs,        "abs",        1, Unary,     0)                                  \
  X(Square,     "square",     1, Unary,     0)                                  \
  X(Reciprocal, "reciprocal", 1, Unary,     0)                                  \
  X(Sin,        "sin",        1, Unary,     0)                                  \
  X(Cos,        "cos",        1, Unary,     0)                                  \
  X(Step,       "step",       1, Unary,     0)                                  \
  X(Sign,       "sign",       1, Unary,     0)                                  \
  /* x^p for a constant exponent p: reals = {p} */                              \
  X(PowC,       "powc",       1, Unary,     R)                                  \
  /* elementwise binary (equal shapes; broadcasts are explicit) */              \
  X(Add,        "add",        2, Binary,    0)                                  \
  X(Sub,        "sub",        2, Binary,    0)                                  \
  X(Mul,        "mul",        2, Binary,    0)                                  \
  X(Div,        "div",        2, Binary,    0)                                  \
  X(Max,        "max",        2, Binary,    0)                                  \
  X(Min,        "min",        2, Binary,    0)                                  \
  /* comparisons: result i1 */                                                  \
  X(Lt,         "lt",         2, Compare,   0)                                  \
  X(Le,         "le",         2, Compare,   0)                                  \
  X(Gt,         "gt",         2, Compare,   0)                                  \
  X(Ge,         "ge",         2, Compare,   0)                                  \
  X(Eq,         "eq",         2, Compare,   0)                                  \
  X(Ne,         "ne",         2, Compare,   0)                                  \
  /* select(cond: i1, a, b) */                                                  \
  X(Select,     "select",     3, Select,    0)                                  \
  /* ints = output axis of each input axis (strictly increasing) */             \
  X(Broadcast,  "broadcast",  1, Broadcast, I)                                  \
  /* ints = reduced axes (sorted); they are removed from the shape */           \
  X(ReduceSum,  "reduce_sum", 1, Reduce,    I)                                  \
  X(ReduceMax,  "reduce_max", 1, Reduce,    I)                                  \
  /* str = einsum spec, e.g. "abc,ac->ab" */                                    \
  X(Contract,   "contract",  -1, Contract,  S)                                  \
  X(Reshape,    "reshape",    1, Reshape,   0)                                  \
  /* ints = start per axis; the node's shape gives the sizes */                 \
  X(Slice,      "slice",      1, Slice,     I)                                  \
  /* zero padding; ints = low per axis, then high per axis */                   \
  X(Pad,        "pad",        1, Pad,       I)                                  \
  /* ints = {axis} */                                                           \
  X(Concat,     "concat",    -1, Concat,    I)                                  \
  /* composites with their own stable forms and derivative rules */             \
  X(Softmax,    "softmax",    1, Composite, I)                                  \
  X(LogSumExp,  "logsumexp",  1, Composite, I)                                  \
  X(LayerNorm,  "layernorm",  1, Composite, I | R)
// clang-format on
