// The LLVM JIT against the reference interpreter on hand-built loop programs
// (programs.h), in f64 and f32, at the default tile width and at others.
// Inputs are random per element and lane, so every lane of a tile differs.
//
// Tolerances: f64 1e-12, f32 1e-5, relative to max(|ref|, floor * max|ref|
// of the buffer), floor 1e-3 (f64) / 1e-2 (f32) — support.h explains why;
// the plain relative error is printed too. The interpreter computes in f64,
// so the f32 numbers measure f32 rounding (amplified where sums cancel) plus
// the approximations; the f64 numbers measure the lowering itself.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "compiler/loops/loop_interpreter.h"
#include "runtime/abi.h"
#include "tests/compiler/backend/jit_support.h"
#include "tests/compiler/backend/loop_programs.h"

using namespace plastic::loops;
using namespace plastic::backend;
using namespace plastic::backend::test;

namespace {

double tolerance(ElemType t) {
  return t == ElemType::F64 ? 1e-12 : 1e-5;
}

void check(const Function& fn, const std::vector<std::pair<std::string, ArgSpec>>& specs,
           MathMode mode = MathMode::Polynomial) {
  for (uint64_t seed : {1, 2, 3}) {
    Comparison c = run_both(fn, specs, seed, mode);
    if (seed == 1)
      fmt::print("  {:<20} {} L={:<2} {}: max rel {:.2e} (plain {:.2e})\n", fn.name,
                 elem_type_name(fn.type), fn.lanes, mode == MathMode::Polynomial ? "poly" : "libm",
                 c.max_rel, c.max_pure);
    INFO(fn.name << " " << elem_type_name(fn.type) << " L=" << fn.lanes << " seed " << seed << ": "
                 << c.where);
    CHECK_FALSE(c.nan_mismatch);
    CHECK(c.max_rel <= tolerance(fn.type));
  }
}

const ElemType kTypes[] = {ElemType::F64, ElemType::F32};

} // namespace

TEST_CASE("JIT matches the interpreter: elementwise chain", "[backend][jit]") {
  for (ElemType t : kTypes) {
    check(elementwise_chain(t, 0, 37), {{"x", {-4, 4}}, {"theta", {-2, 2}}, {"t", {0, 0, 0.3}}});
    check(elementwise_chain(t, 0, 37), {{"x", {-4, 4}}, {"theta", {-2, 2}}, {"t", {0, 0, 0.3}}},
          MathMode::Libm);
  }
}

TEST_CASE("JIT matches the interpreter: multi-head matvec", "[backend][jit]") {
  for (ElemType t : kTypes) {
    check(matvec(t, 0, 4, 20), {});
    check(matvec(t, 0, 2, 7), {});
  }
  check(matvec(ElemType::F32, 16, 4, 20), {}); // a 512-bit tile
  check(matvec(ElemType::F64, 1, 3, 5), {});   // scalar "tile"
  check(matvec(ElemType::F64, 3, 2, 5), {});   // a width no ISA has
}

TEST_CASE("JIT matches the interpreter: delta-rule outer-product update", "[backend][jit]") {
  // Keys as the delta rule produces them (softmax: positive, summing to ~1).
  // With k in [-1, 1] the residual v - W k is a 16-term dot product whose f32
  // rounding (~2e-7 absolute) exceeds the f32 floor of compare(); f64 is
  // checked at 1e-12 on both distributions.
  for (ElemType t : kTypes)
    check(delta_update(t, 0, 4, 16),
          {{"beta", {0, 0, 0.37}}, {"k", {0, 2.0 / 16}}, {"W", {-0.5, 0.5}}});
  check(delta_update(ElemType::F64, 0, 4, 16), {{"beta", {0, 0, 0.37}}});
}

TEST_CASE("JIT matches the interpreter: softmax reduction", "[backend][jit]") {
  for (ElemType t : kTypes) {
    check(softmax(t, 0, 33), {{"x", {-20, 20}}});
    check(softmax(t, 0, 1), {{"x", {-20, 20}}});
  }
}

TEST_CASE("JIT matches the interpreter: parameter gradients summed over lanes", "[backend][jit]") {
  for (ElemType t : kTypes) {
    check(linear_vjp(t, 0, 9, 13), {});
    check(shared_weight_grad(t, 0, 4, 12), {});
  }
}

TEST_CASE("JIT matches the interpreter: negative strides, transposes, negative loop bounds",
          "[backend][jit]") {
  for (ElemType t : kTypes) {
    const int64_t d = 7;
    Builder b("strides", t);
    Buffer W = b.varying_param("W", d * d, {.readonly = true});
    Buffer x = b.varying_param("x", d, {.readonly = true});
    Buffer y = b.varying_param("y", 2 * d);
    Var acc = b.var("acc", Lanes::Varying);
    b.loop("i", 0, d, [&](Index i) {
      b.assign(acc, b.constant(0));
      b.loop("j", 0, d, [&](Index j) { // (W^T x)[i], x read backwards
        b.assign(acc, b.fma(b.load(W, j * d + i), b.load(x, j * -1 + (d - 1)), b.read(acc)));
      });
      b.store(y, i * -1 + (d - 1), b.read(acc));
    });
    b.loop("k", -3, 4, [&](Index k) {
      b.store(y, k + (d + 3), b.mul(b.load(x, k + 3), b.load(x, k * -1 + 3)));
    });
    check(b.finish(), {});
  }
}

TEST_CASE("nullable buffers are skipped when NULL", "[backend][jit]") {
  const Function fn = linear_vjp(ElemType::F64, 0, 3, 4);
  JitModule jm = test_jit().add(Module{"nullable", {fn}});
  Frame f = make_frame(fn, {}, 7);
  f.buffers[5] = HostBuffer(); // x_bar = NULL
  Frame ref = f.clone();
  jm.packed("linear_vjp")(f.args().data());
  plastic::loops::interpret(fn, ref.args());
  Comparison c = compare(fn, f, ref);
  CHECK(c.max_rel <= 1e-12);
}

TEST_CASE("JIT matches the interpreter: fused Delta-rule CDE field", "[backend][jit]") {
  for (ElemType t : kTypes)
    check(delta_field(t, 0, 21, 4, 20),
          {{"z", {-0.5, 0.5}}, {"theta", {-0.3, 0.3}}, {"u", {-1, 1}}});
}

TEST_CASE("special values propagate through the JIT like the interpreter", "[backend][jit]") {
  // NaN through min/max (propagating), relu/step (0 at NaN) and the math.
  Builder b("specials", ElemType::F64);
  Buffer x = b.varying_param("x", 1, {.readonly = true});
  Buffer y = b.varying_param("y", 9);
  Expr xi = b.load(x, 0);
  b.store(y, 0, b.max(xi, b.constant(0)));
  b.store(y, 1, b.min(b.constant(0), xi));
  b.store(y, 2, b.relu(xi));
  b.store(y, 3, b.step(xi));
  b.store(y, 4, b.exp(xi));
  b.store(y, 5, b.tanh(xi));
  b.store(y, 6, b.sigmoid(xi));
  b.store(y, 7, b.log(xi));
  b.store(y, 8, b.softplus(xi));
  const Function fn = b.finish();
  JitModule jm = test_jit().add(Module{"specials", {fn}});
  const double in[4] = {NAN, INFINITY, -INFINITY, -0.0};
  double out[36], ref[36];
  Args a, r;
  a.ptr(in).ptr(out);
  r.ptr(in).ptr(ref);
  jm.packed("specials")(a.data());
  plastic::loops::interpret(fn, r);
  for (int i = 0; i < 36; ++i) {
    INFO("output " << i / 4 << " lane " << i % 4 << ": jit " << out[i] << " ref " << ref[i]);
    if (std::isnan(ref[i]))
      CHECK(std::isnan(out[i]));
    else
      CHECK(out[i] == ref[i]);
  }
}

TEST_CASE("a kernel with the ABI's field signature is a plastic_field_fn", "[backend][jit]") {
  const Function fn = delta_field(ElemType::F64, 0, 5, 2, 4);
  JitModule jm = test_jit().add(Module{"abi", {fn}});
  plastic_field_fn field = jm.get<plastic_field_fn>("delta_field");
  Frame f = make_frame(fn, {{"t", {0, 0, 0.5}}}, 11);
  Frame ref = f.clone();
  const Args a = f.args();
  field(nullptr, 0.5, a.pointer_at(2), a.pointer_at(3), a.pointer_at(4), a.pointer_at(5),
        a.pointer_at(6));
  plastic::loops::interpret(fn, ref.args());
  CHECK(compare(fn, f, ref).max_rel <= 1e-12);
  plastic_kernels table{};
  table.field = field;
  CHECK(table.field != nullptr);
}
