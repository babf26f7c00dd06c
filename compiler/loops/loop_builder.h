// Builder: the one way to make a loop function (loop_ir.h).
//
// The lowering from the tensor IR targets this API. A typical kernel:
//
//   Builder b("matvec", ElemType::F64);          // lanes = default_lanes(f64) = 4
//   b.opaque_param("ctx");
//   Buffer W = b.varying_param("W", H * D * D, {.readonly = true});
//   Buffer k = b.varying_param("k", H * D, {.readonly = true});
//   Buffer y = b.varying_param("y", H * D);
//   b.scratch_param();
//   Var acc = b.var("acc", Lanes::Varying);
//   b.loop("h", 0, H, [&](Index h) {
//     b.loop("i", 0, D, [&](Index i) {
//       b.assign(acc, b.constant(0));
//       b.loop("j", 0, D, [&](Index j) {
//         b.assign(acc, b.fma(b.load(W, h * (D * D) + i * D + j), b.load(k, h * D + j),
//         b.read(acc)));
//       });
//       b.store(y, h * D + i, b.read(acc));
//     });
//   });
//   Function f = b.finish();                     // verified
//
// Parameters are declared in C-signature order. Expressions are pure; the
// builder classifies each as uniform or varying (varying if any operand is)
// and rejects ill-typed nodes at once, so a lowering bug points at its call
// site. finish() runs the full verifier (scopes, bounds, definedness).
// Misuse throws InternalError: a malformed program is a bug in the caller.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/loops/loop_ir.h"

namespace plastic::loops {

/// Options of a pointer parameter.
struct BufferOptions {
  bool readonly = false;  ///< the kernel only reads it (`const void*`)
  bool nullable = false;  ///< the caller may pass NULL; use only inside if_present
  bool may_alias = false; ///< may overlap another pointer parameter (e.g. the ABI's z1 = z0)
};

class Builder {
public:
  /// `lanes` = 0 picks default_lanes(type) (8 for f32, 4 for f64).
  Builder(std::string name, ElemType type, int lanes = 0);

  ElemType type() const { return fn_.type; }
  int lanes() const { return fn_.lanes; }

  // ---- parameters, in C-signature order ----------------------------------

  /// A per-sample buffer of `size` elements per sample (size*L in memory).
  Buffer varying_param(std::string name, int64_t size, BufferOptions opts = {});
  /// A shared buffer of `size` elements (θ, θ̄): scalar loads, broadcast on use.
  Buffer uniform_param(std::string name, int64_t size, BufferOptions opts = {});
  /// A `double` parameter (t, h); its value as a uniform expression.
  Expr scalar_param(std::string name);
  /// A pointer the kernel never touches (the ABI's ctx).
  void opaque_param(std::string name);
  /// The scratch arena pointer; needed when scratch buffers are declared.
  void scratch_param(std::string name = "scratch");

  // ---- locals --------------------------------------------------------------

  /// A buffer in the scratch arena (at a 64-byte aligned offset); `size`
  /// elements per sample when varying. Its contents are undefined on entry.
  Buffer scratch_buffer(std::string name, Lanes lanes, int64_t size);
  /// A local variable. A uniform variable cannot hold a varying value.
  Var var(std::string name, Lanes lanes);

  // ---- expressions -----------------------------------------------------------

  Expr constant(double value);
  /// buf[index]: a vector load (varying buffer) or a scalar load (uniform).
  Expr load(Buffer buf, const Index& index);
  /// The current value of a variable.
  Expr read(Var v);
  /// `attr` is elu's alpha or powc's exponent (see loop_ops.h).
  Expr unary(UnaryOp op, Expr a, double attr = 0);
  Expr binary(BinaryOp op, Expr a, Expr b);
  /// A mask: usable only as a select condition.
  Expr compare(CompareOp op, Expr a, Expr b);
  /// a * b + c.
  Expr fma(Expr a, Expr b, Expr c);
  /// mask ? a : b, per lane.
  Expr select(Expr mask, Expr a, Expr b);

  Expr add(Expr a, Expr b) { return binary(BinaryOp::Add, a, b); }
  Expr sub(Expr a, Expr b) { return binary(BinaryOp::Sub, a, b); }
  Expr mul(Expr a, Expr b) { return binary(BinaryOp::Mul, a, b); }
  Expr div(Expr a, Expr b) { return binary(BinaryOp::Div, a, b); }
  /// NaN-propagating (as the tensor IR's min/max).
  Expr min(Expr a, Expr b) { return binary(BinaryOp::Min, a, b); }
  Expr max(Expr a, Expr b) { return binary(BinaryOp::Max, a, b); }
  Expr neg(Expr a) { return unary(UnaryOp::Neg, a); }
  Expr abs(Expr a) { return unary(UnaryOp::Abs, a); }
  Expr square(Expr a) { return unary(UnaryOp::Square, a); }
  Expr reciprocal(Expr a) { return unary(UnaryOp::Reciprocal, a); }
  Expr sqrt(Expr a) { return unary(UnaryOp::Sqrt, a); }
  Expr exp(Expr a) { return unary(UnaryOp::Exp, a); }
  Expr expm1(Expr a) { return unary(UnaryOp::Expm1, a); }
  Expr log(Expr a) { return unary(UnaryOp::Log, a); }
  Expr log1p(Expr a) { return unary(UnaryOp::Log1p, a); }
  Expr tanh(Expr a) { return unary(UnaryOp::Tanh, a); }
  Expr sigmoid(Expr a) { return unary(UnaryOp::Sigmoid, a); }
  Expr softplus(Expr a) { return unary(UnaryOp::Softplus, a); }
  Expr relu(Expr a) { return unary(UnaryOp::Relu, a); }
  Expr elu(Expr a, double alpha = 1.0) { return unary(UnaryOp::Elu, a, alpha); }
  Expr step(Expr a) { return unary(UnaryOp::Step, a); }
  Expr sign(Expr a) { return unary(UnaryOp::Sign, a); }
  Expr sin(Expr a) { return unary(UnaryOp::Sin, a); }
  Expr cos(Expr a) { return unary(UnaryOp::Cos, a); }
  Expr powc(Expr a, double p) { return unary(UnaryOp::PowC, a, p); }
  Expr lt(Expr a, Expr b) { return compare(CompareOp::Lt, a, b); }
  Expr le(Expr a, Expr b) { return compare(CompareOp::Le, a, b); }
  Expr gt(Expr a, Expr b) { return compare(CompareOp::Gt, a, b); }
  Expr ge(Expr a, Expr b) { return compare(CompareOp::Ge, a, b); }
  Expr eq(Expr a, Expr b) { return compare(CompareOp::Eq, a, b); }
  Expr ne(Expr a, Expr b) { return compare(CompareOp::Ne, a, b); }

  /// Uniform or varying.
  Lanes lanes_of(Expr e) const;

  // ---- statements --------------------------------------------------------------

  void assign(Var v, Expr value);
  /// buf[index] = value. A uniform buffer needs a uniform value.
  void store(Buffer buf, const Index& index, Expr value);
  /// buf[index] += value. A uniform buffer needs a uniform value; to add a
  /// varying value into a uniform buffer use accumulate_lanes.
  void accumulate(Buffer buf, const Index& index, Expr value);
  /// Uniform buf[index] += sum over the L lanes of value (θ gradients). One
  /// horizontal reduction per execution: for large gradients accumulate into
  /// a varying scratch buffer first and reduce once at the end.
  void accumulate_lanes(Buffer buf, const Index& index, Expr value);
  /// A comment kept in the printed loop IR; `source_line` (0 = none) is the
  /// model file's line the code after it comes from (the C++ backend quotes it).
  void comment(std::string text, int source_line = 0);
  /// Asks the caches for buf[index] ahead of its first read (no effect on
  /// values; the index must be in bounds like a load's).
  void prefetch(Buffer buf, const Index& index);

  /// Opens `for name in [begin, end)`; returns its induction variable.
  Index begin_loop(std::string name, int64_t begin, int64_t end);
  void end_loop();
  /// Opens a block executed only when the nullable buffer is non-NULL.
  void begin_if_present(Buffer buf);
  void end_if_present();

  template <class Body> void loop(std::string name, int64_t begin, int64_t end, Body&& body) {
    Index i = begin_loop(std::move(name), begin, end);
    body(i);
    end_loop();
  }
  template <class Body> void if_present(Buffer buf, Body&& body) {
    begin_if_present(buf);
    body();
    end_if_present();
  }

  /// The function so far (for inspection).
  const Function& function() const { return fn_; }
  /// Verifies and returns the function; the builder must not be used after.
  Function finish();

private:
  Expr push(ExprNode node);
  const ExprNode& node(Expr e, std::string_view what) const;
  const ExprNode& value_node(Expr e, std::string_view what) const;
  const BufferDecl& buffer_decl(Buffer b, const char* what) const;
  uint32_t add_index(const Index& index, const char* what);
  void add_store(Buffer buf, const Index& index, Expr value, StoreMode mode);
  Buffer add_buffer(std::string name, Lanes lanes, int64_t size, BufferOptions opts, bool param);
  std::vector<Stmt>& current();

  Function fn_;
  std::vector<Stmt*> open_; // enclosing loop / if-present statements
  std::vector<uint32_t> open_loops_;
  bool finished_ = false;
};

} // namespace plastic::loops
