// The loop IR itself: index algebra, builder checks, verifier diagnostics,
// the printer (golden text) and the C header.
#include <catch2/catch.hpp>

#include "compiler/loops/c_header.h"
#include "compiler/loops/error.h"
#include "compiler/loops/loop_builder.h"
#include "compiler/loops/loop_printer.h"
#include "compiler/loops/loop_verifier.h"
#include "tests/compiler/backend/loop_programs.h"

using namespace plastic::loops;

namespace {

bool mentions(const std::vector<std::string>& problems, const std::string& text) {
  for (const auto& p : problems)
    if (p.find(text) != std::string::npos) return true;
  return false;
}

} // namespace

TEST_CASE("affine indices combine and cancel", "[loops]") {
  Index i = Index::loop(0), j = Index::loop(1);
  Index a = i * 20 + j + 3;
  CHECK(a.offset == 3);
  REQUIRE(a.terms.size() == 2);
  CHECK(a.terms[0].stride == 20);
  CHECK((a + i * -20).terms.size() == 1);
  CHECK((j + i * 2) == (i * 2 + j));
  CHECK((a * 0).is_constant());
  CHECK((a - 3) == i * 20 + j);
}

TEST_CASE("printer shows loops, lane sums and shared subexpressions", "[loops]") {
  Builder b("demo", ElemType::F64);
  b.opaque_param("ctx");
  Expr t = b.scalar_param("t");
  Buffer x = b.varying_param("x", 6, {.readonly = true});
  Buffer th = b.uniform_param("theta", 2, {.readonly = true});
  Buffer tb = b.uniform_param("theta_bar", 2);
  Buffer y = b.varying_param("y", 6, {.nullable = true});
  b.scratch_param();
  Buffer s = b.scratch_buffer("tmp", Lanes::Varying, 3);
  Var acc = b.var("acc", Lanes::Varying);
  b.assign(acc, b.constant(0));
  b.loop("i", 0, 2, [&](Index i) {
    b.loop("j", 0, 3, [&](Index j) {
      Expr e = b.exp(b.mul(b.load(x, i * 3 + j), t));
      b.store(s, j, b.add(e, b.tanh(e)));
      b.assign(acc, b.fma(b.load(th, i), b.load(s, j), b.read(acc)));
    });
    b.accumulate_lanes(tb, i, b.read(acc));
  });
  b.if_present(y, [&] {
    b.comment("only when y is given");
    b.loop("k", 0, 6, [&](Index k) { b.accumulate(y, k * -1 + 5, b.neg(b.read(acc))); });
  });
  const std::string expected =
      "func @demo f64 x4 (ctx: opaque, t: scalar, x: varying[6] readonly, theta: uniform[2] "
      "readonly, "
      "theta_bar: uniform[2], y: varying[6] nullable, scratch: scratch) scratch 128 bytes {\n"
      "  buffer tmp: varying[3] at scratch+0\n"
      "  var acc: varying\n"
      "  acc = 0\n"
      "  for i in 0..2 {\n"
      "    for j in 0..3 {\n"
      "      let %4 = exp(x[3*i + j] * t)\n"
      "      tmp[j] = %4 + tanh(%4)\n"
      "      acc = fma(theta[i], tmp[j], acc)\n"
      "    }\n"
      "    theta_bar[i] += lanesum(acc)\n"
      "  }\n"
      "  if present(y) {\n"
      "    # only when y is given\n"
      "    for k in 0..6 {\n"
      "      y[-k + 5] += -acc\n"
      "    }\n"
      "  }\n"
      "}\n";
  CHECK(print(b.finish()) == expected);
}

TEST_CASE("builder rejects ill-typed programs at the call site", "[loops]") {
  Builder b("bad", ElemType::F32);
  Buffer x = b.varying_param("x", 4, {.readonly = true});
  Buffer th = b.uniform_param("theta", 4);
  Var u = b.var("u", Lanes::Uniform);
  Expr xv = b.load(x, 0);
  CHECK_THROWS_AS(b.store(th, 0, xv), plastic::InternalError);           // varying into uniform
  CHECK_THROWS_AS(b.assign(u, xv), plastic::InternalError);              // varying into uniform var
  CHECK_THROWS_AS(b.store(x, 0, xv), plastic::InternalError);            // read-only
  CHECK_THROWS_AS(b.exp(b.lt(xv, xv)), plastic::InternalError);          // mask as a value
  CHECK_THROWS_AS(b.select(xv, xv, xv), plastic::InternalError);         // value as a mask
  CHECK_THROWS_AS(b.begin_loop("e", 3, 3), plastic::InternalError);      // empty range
  CHECK_THROWS_AS(b.end_loop(), plastic::InternalError);                 // nothing open
  CHECK_THROWS_AS(b.accumulate_lanes(x, 0, xv), plastic::InternalError); // lane sum into varying
  b.accumulate_lanes(th, 0, xv);                                         // the right way
  Index outside;
  b.loop("i", 0, 2, [&](Index i) { outside = i; });
  CHECK_THROWS_AS(b.load(x, outside), plastic::InternalError); // loop variable out of scope
  CHECK_NOTHROW(b.finish());
}

TEST_CASE("verifier reports bounds, definedness and nullable access", "[loops]") {
  {
    Builder b("oob", ElemType::F64);
    Buffer x = b.varying_param("x", 10, {.readonly = true});
    Buffer y = b.varying_param("y", 10);
    b.loop("i", 0, 5, [&](Index i) { b.store(y, i * 2 + 1, b.load(x, i * 2)); });
    b.loop("i", 0, 5, [&](Index i) { b.store(y, i * 2 + 2, b.load(x, 0)); }); // reaches y[10]
    CHECK_THROWS_WITH(b.finish(), Catch::Contains("spans elements [2, 10] outside [0, 10)"));
  }
  {
    Builder b("prefetch_oob", ElemType::F64);
    Buffer x = b.varying_param("x", 10, {.readonly = true});
    b.loop("i", 0, 11, [&](Index i) { b.prefetch(x, i); }); // reaches x[10]
    CHECK_THROWS_WITH(b.finish(), Catch::Contains("outside [0, 10)"));
  }
  {
    Builder b("undef", ElemType::F64);
    Buffer y = b.varying_param("y", 1);
    Var v = b.var("v", Lanes::Varying);
    b.store(y, 0, b.read(v));
    CHECK_THROWS_WITH(b.finish(), Catch::Contains("read before it is assigned"));
  }
  {
    Builder b("maybe", ElemType::F64);
    Buffer y = b.varying_param("y", 1, {.nullable = true});
    Var v = b.var("v", Lanes::Varying);
    b.if_present(y, [&] { b.assign(v, b.constant(1)); });
    b.store(y, 0, b.read(v)); // v may be unassigned, y may be NULL
    Function f;
    try {
      b.finish();
    } catch (const plastic::InternalError& e) {
      CHECK_THAT(e.what(), Catch::Contains("read before it is assigned"));
      CHECK_THAT(e.what(), Catch::Contains("outside if_present(y)"));
      CHECK_THAT(e.what(), Catch::Contains("bug in Plastic"));
    }
  }
  {
    // Hand-made data that bypasses the builder.
    Function f = plastic::backend::test::matvec(ElemType::F64, 4, 2, 3);
    f.name = "not an identifier";
    f.exprs.back().lanes = Lanes::Uniform;
    auto problems = verify(f);
    CHECK(mentions(problems, "not a C identifier"));
    CHECK(mentions(problems, "operands make it varying"));
  }
  {
    Module m{"dup",
             {plastic::backend::test::softmax(ElemType::F64, 4, 3),
              plastic::backend::test::softmax(ElemType::F32, 8, 3)}};
    CHECK(mentions(verify(m), "duplicate function 'softmax'"));
  }
}

TEST_CASE("all test programs verify and print", "[loops]") {
  using namespace plastic::backend::test;
  for (ElemType t : {ElemType::F64, ElemType::F32}) {
    for (const Function& f : {elementwise_chain(t, 0, 5), matvec(t, 0, 2, 3),
                              delta_update(t, 0, 2, 3), softmax(t, 0, 4), linear_vjp(t, 0, 2, 3),
                              shared_weight_grad(t, 0, 2, 3), delta_field(t, 0, 3, 2, 3)}) {
      CHECK(verify(f).empty());
      CHECK(print(f).find("func @" + f.name) == 0);
    }
    CHECK_THAT(print(matvec(t, 0, 2, 3)), Catch::Contains("prefetch W[p]"));
  }
}

TEST_CASE("C header declares ABI-compatible prototypes", "[loops]") {
  using namespace plastic::backend::test;
  Module m{"delta", {delta_field(ElemType::F32, 0, 3, 2, 4)}};
  const std::string h = c_header(m);
  CHECK_THAT(h, Catch::Contains("#ifndef PLASTIC_KERNELS_DELTA_H"));
  CHECK_THAT(h, Catch::Contains(
                    "void delta_field(const void* ctx, double t, const void* z, const void* theta, "
                    "const void* u, void* dz, void* scratch);"));
  CHECK_THAT(h,
             Catch::Contains("enum { delta_field_lanes = 8, delta_field_scratch_bytes = 256 };"));
  CHECK_THAT(h, Catch::Contains("z: varying[32] = 256 floats, read-only"));
}
