// The abstract syntax tree of a model file.
//
// A faithful, unchecked picture of the source: every node keeps its span for
// diagnostics. Expressions are one node type with a kind (like clox and Toy,
// small enough that a switch beats a class hierarchy); declarations are a
// variant of small structs, kept in source order so the printer can
// reproduce the file. Meaning (names, dims, shapes) is added by the checker
// in check.h, not here.
#pragma once

#include "dsl/source.h"

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace plastic::dsl {

enum class ExprKind {
  Number,   ///< 1.5
  String,   ///< "ij,j->i"            text = contents without quotes
  Name,     ///< W, x, t, T, t0       text = the name
  Unary,    ///< -a                   unary_op, children = [a]
  Binary,   ///< a + b                binary_op, children = [a, b]
  Call,     ///< f(a, axis = -1)      children = [callee], args
  Index,    ///< a[0:2, ...]          children = [base, item...]
  Slice,    ///< lo:hi inside an Index; children = [lo, hi], each may be null
  Ellipsis, ///< ... inside an Index
  List,     ///< [a, b]               children = items
  Block,    ///< let x = a  <NL>  e   children = [a, ..., e], lets name all but the last
};

/// The operators of a Unary expression (only negation: `-a`).
enum class UnaryOp { Neg };

/// The operators of a Binary expression: + - * / ^ @.
enum class BinaryOp { Add, Sub, Mul, Div, Pow, MatMul };

/// The operator as written in source ("-"; "+", "-", "*", "/", "^", "@"),
/// for the printer and for diagnostics.
std::string_view to_string(UnaryOp op);
std::string_view to_string(BinaryOp op);

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

/// A name with the span it was written at.
struct Ident {
  std::string name;
  Span span;
};

/// One argument of a call: positional (name empty) or named (`axis = -1`).
struct Arg {
  Ident name;
  ExprPtr value;
};

struct Expr {
  ExprKind kind = ExprKind::Number;
  Span span;
  std::string text; ///< String and Name only
  double number = 0;
  UnaryOp unary_op = UnaryOp::Neg;    ///< Unary only
  BinaryOp binary_op = BinaryOp::Add; ///< Binary only
  std::vector<ExprPtr> children;
  std::vector<Arg> args;   ///< Call only
  std::vector<Ident> lets; ///< Block only: names bound to children[0..n-2]

  const Expr& child(size_t i) const { return *children[i]; }
};

// ---- declarations ----------------------------------------------------------

/// How `plastic tune` draws a value from a range.
enum class TuneScale { Log, Linear, Choice };

/// `tune log(0.003, 0.3)`, `tune (0, 1)` or `tune [16, 32, 64]` after a
/// dim's or const's value: the range `plastic tune` searches.
struct TuneDecl {
  TuneScale scale = TuneScale::Linear;
  std::vector<ExprPtr> values; ///< the two bounds, or the choices
  Span span;                   ///< from `tune` to the closing bracket
};

/// `dim a = 3, b = a * 2` or `const tau = 0.5` (one entry per name).
struct DimDecl {
  Ident name;
  ExprPtr value;         ///< from_data: the value without data (`else N`), may be null
  bool is_const = false; ///< a real `const`, not an integer `dim`
  /// `dim d from data.channels`: the data's quantity ("channels" or
  /// "classes"), named by the span of `data.channels`; empty otherwise.
  std::optional<Ident> from_data;
  std::optional<TuneDecl> tune; ///< a plain dim or const's search range
};

enum class InputKind { Path, Static, Label, Target };
enum class Interpolation { Cubic, Hermite, Linear, Rectilinear, LogSig };

struct InputDecl {
  Ident name;
  InputKind kind = InputKind::Path;
  Span kind_span;
  std::vector<ExprPtr> sizes; ///< channels, features, classes or target shape
  Interpolation interp = Interpolation::Cubic;
  Span interp_span;
  ExprPtr logsig_depth, logsig_step; ///< LogSig only
  bool per_observation = false;      ///< Target only
  /// Path only: `with time` (the data layer prepends the time channel) and
  /// `with unit_increments` (it scales the measured channels so their
  /// per-step increments have unit RMS over the training split).
  bool with_time = false, unit_increments = false;
};

/// `init NAME(args)`, `mlp[n, m, width = 4]`: a name with arguments.
struct Invocation {
  Ident name;
  std::vector<Arg> args;
  Span span; ///< the whole invocation
};

struct ParamDecl {
  Ident name;
  std::vector<ExprPtr> shape; ///< tensor parameters
  Span shape_span;
  std::optional<Invocation> init;  ///< tensor parameters; absent = default
  std::optional<Invocation> layer; ///< layer instances
};

struct StateDecl {
  Ident name;
  std::vector<ExprPtr> shape;
  Span shape_span;
  ExprPtr init;
};

/// `fn name(a, b) = body`; inside a layer, `apply(x) = body` has name "apply".
struct FnDecl {
  Ident name;
  std::vector<Ident> params;
  ExprPtr body;
  bool is_apply = false;
};

struct LayerDecl {
  Ident name;
  std::vector<Ident> args; ///< integer arguments, dims inside the layer
  std::vector<ParamDecl> params;
  std::vector<FnDecl> fns; ///< includes `apply`
};

struct FlowDecl {
  Ident state;
  ExprPtr body;
};

struct JumpDecl {
  Ident state;
  ExprPtr body;
};

struct OutputDecl {
  Ident name;
  ExprPtr body;
  bool per_observation = false;
};

struct LossDecl {
  Span keyword;
  ExprPtr body;
};

/// `step 1.0`, `rtol 1e-4`: an option of `solve` or `gradient`.
struct Option {
  Ident name;
  ExprPtr value;
  Ident unit; ///< `budget 512 MB`: the unit after the value (empty for other options)
};

struct SolveDecl {
  Ident method;
  std::vector<Option> options;
};

struct GradientDecl {
  Ident method;
  ExprPtr count; ///< `checkpoint 16`
  std::vector<Option> options;
};

using Decl = std::variant<DimDecl, InputDecl, ParamDecl, StateDecl, FnDecl, LayerDecl, FlowDecl,
                          JumpDecl, OutputDecl, LossDecl, SolveDecl, GradientDecl>;

/// One parsed file: a model, or a library of layers and fns (the prelude).
struct Module {
  SourceFilePtr source;
  Ident model; ///< empty name for a library
  std::vector<Decl> decls;
};

// ---- small helpers ---------------------------------------------------------

std::string_view to_string(InputKind kind);
std::string_view to_string(Interpolation interp);

} // namespace plastic::dsl
