// The IR core: hash-consing, checked factories (errors, folding,
// canonicalisation), Functions and the verifier.
#include <catch2/catch.hpp>

#include "compiler/ir/error.h"
#include "compiler/ir/function.h"
#include "compiler/ir/ops.h"
#include "compiler/ir/traversal.h"
#include "compiler/ir/verifier.h"

using namespace plastic::ir;

TEST_CASE("identical requests give the same node", "[ir]") {
  Context ctx;
  const Node* W = ctx.param("W", {3, 4});
  const Node* x = ctx.state("x", {4});
  CHECK(ctx.param("W", {3, 4}) == W);
  CHECK(ctx.param("W", {3, 4}, 1) != W); // slot is part of a leaf's identity
  CHECK(ctx.state("W", {3, 4}) != W);    // so is its kind
  const Node* a = tanh(matvec(W, x));
  const Node* b = tanh(contract("ij,j->i", {W, x}));
  CHECK(a == b);
  CHECK(a->operand(0)->attrs().str == "ab,b->a");
  // commutative operands are ordered canonically
  const Node* y = ctx.state("y", {3});
  CHECK(add(a, y) == add(y, a));
  CHECK(mul(a, y) == mul(y, a));
  CHECK(outer(a, x) == transpose(outer(x, a), {1, 0}));
  CHECK(transpose(transpose(W, {1, 0}), {1, 0}) == W);
}

TEST_CASE("matmul spells batched products as contractions", "[ir]") {
  Context ctx;
  const Node* W = ctx.state("W", {4, 20, 20});
  const Node* k = ctx.param("k", {4, 20});
  const Node* Wk = ctx.param("Wk", {4, 20, 21});
  const Node* dx = ctx.input("dx", {21});
  CHECK(matmul(W, k)->attrs().str == "abc,ac->ab"); // multi-head matvec
  CHECK(matmul(W, k)->shape() == Shape{4, 20});
  CHECK(matmul(Wk, dx)->attrs().str == "abc,c->ab"); // one vector for all heads
  CHECK(matmul(Wk, dx)->shape() == Shape{4, 20});
  CHECK(matmul(W, W)->attrs().str == "abc,acd->abd");
  CHECK(matmul(Wk, ctx.param("M", {21, 3}))->shape() == Shape{4, 20, 3});
  CHECK(matmul(dx, ctx.param("N", {21, 2}))->shape() == Shape{2});
  CHECK(matmul(dx, dx)->shape() == Shape{});
  CHECK_THROWS_AS(matmul(Wk, W), IRError);
}

TEST_CASE("structural hashes do not depend on construction order", "[ir]") {
  Context c1, c2;
  const Node* x1 = c1.state("x", {3});
  const Node* y1 = c1.state("y", {3});
  const Node* e1 = exp(add(x1, y1));
  const Node* y2 = c2.state("y", {3}); // created in the other order
  const Node* x2 = c2.state("x", {3});
  const Node* e2 = exp(add(y2, x2));
  CHECK(e1->hash() == e2->hash());
  CHECK(e1->operand(0)->operand(0)->name() == e2->operand(0)->operand(0)->name());
}

TEST_CASE("factories fold constants and apply exact identities", "[ir]") {
  Context ctx;
  const Node* x = ctx.state("x", {2});
  const Node* two = ctx.constant(2.0, {2});
  CHECK(add(x, zeros_like(x)) == x);
  CHECK(mul(x, splat_like(x, 1.0)) == x);
  CHECK(mul(splat_like(x, 1.0), x) == x);
  CHECK(neg(neg(x)) == x);
  CHECK(sub(x, neg(x)) == add(x, x));
  CHECK(mul(two, ctx.constant(3.0, {2}))->is_splat_of(6.0));
  CHECK(exp(ctx.constant(0.0, {2}))->is_splat_of(1.0));
  CHECK(reduce_sum(ctx.constant(1.5, {2, 3}), {1})->is_splat_of(4.5));
  // x * 0 is not folded: it is NaN for x = inf
  CHECK(mul(x, zeros_like(x))->op() == Op::Mul);
  // dense constants fold elementwise
  const Node* c = add(ctx.constant({1, 2}, {2}), ctx.constant({10, 20}, {2}));
  REQUIRE(c->is_constant());
  CHECK(c->attrs().reals == std::vector<double>{11, 22});
  // a dense constant with equal values is a splat
  CHECK(ctx.constant({3, 3}, {2}) == ctx.constant(3.0, {2}));
  // reshape/broadcast chains collapse
  const Node* W = ctx.param("W", {2, 3});
  CHECK(reshape(reshape(W, {3, 2}), {6}) == reshape(W, {6}));
  const Node* b = broadcast(broadcast(x, {2, 4}, {0}), {5, 2, 4}, {1, 2});
  CHECK(b->op() == Op::Broadcast);
  CHECK(b->operand(0) == x);
  CHECK(b->attrs().ints == std::vector<int64_t>{1});
  CHECK(select(ctx.constant(1.0, {2}, DType::I1), x, two) == x);
}

TEST_CASE("factories reject ill-typed requests with clear errors", "[ir]") {
  Context ctx;
  const Node* W = ctx.param("W", {4, 20, 20});
  const Node* k = ctx.state("k", {4, 21});
  SourceLoc at = ctx.location("model.ode", 12, 17);
  LocationScope scope(ctx, at);
  try {
    matvec(W, k);
    FAIL("matvec of mismatched shapes did not throw");
  } catch (const IRError& e) {
    CHECK(std::string(e.what()).find("do not contract") != std::string::npos);
    CHECK(e.describe().rfind("model.ode:12:17: error:", 0) == 0);
  }
  CHECK_THROWS_AS(add(W, k), IRError);
  CHECK_THROWS_WITH(add(W, ctx.state("z", {4, 20, 21})),
                    Catch::Contains("equal shapes (broadcasts are explicit)"));
  CHECK_THROWS_AS(reshape(W, {7}), IRError);
  CHECK_THROWS_AS(slice(k, {0, 20}, {4, 2}), IRError);
  CHECK_THROWS_AS(softmax(k, 2), IRError);
  CHECK_THROWS_AS(contract("ab,bc->ad", {k, k}), IRError);
  CHECK_THROWS_AS(contract("aa->a", {ctx.param("S", {3, 3})}), IRError);
  CHECK_THROWS_AS(broadcast_to(k, {4, 20}), IRError);
  CHECK_THROWS_AS(select(k, k, k), IRError); // condition must be i1
  CHECK_THROWS_AS(exp(lt(k, k)), IRError);   // arithmetic on masks
  // numpy broadcasting on request
  const Node* s = add(ctx.param("b", {20, 1}), W, Broadcasting::Numpy);
  CHECK(s->shape() == Shape{4, 20, 20});
}

TEST_CASE("internal errors say they are bugs", "[ir]") {
  Context ctx;
  try {
    ctx.make(Op::Exp, DType::F64, {2}, {}, {});
    FAIL("make with a wrong operand count did not throw");
  } catch (const plastic::InternalError& e) {
    CHECK(std::string(e.what()).find("bug in Plastic") != std::string::npos);
  }
}

TEST_CASE("functions check their inputs and the verifier checks nodes", "[ir]") {
  Context ctx;
  const Node* x = ctx.state("x", {3});
  const Node* W = ctx.param("W", {3, 3});
  const Node* y = tanh(matvec(W, x));
  CHECK_THROWS_WITH(Function("f", {x}, {{"y", y}}), Catch::Contains("not an input"));
  CHECK_THROWS_AS(Function("f", {x, W}, {{"y", y}, {"y", x}}), IRError);
  Function f("f", {x, W}, {{"y", y}});
  CHECK(verify_error(f).empty());
  // a node made by hand with a wrong type is caught by the verifier
  const Node* bad = ctx.make(Op::Tanh, DType::F64, {4}, {x}, {});
  Function g("g", {x}, {{"y", bad}});
  CHECK_THROWS_AS(verify(g, "some-pass"), plastic::InternalError);
  CHECK_THROWS_WITH(verify(g, "some-pass"), Catch::Contains("after pass 'some-pass'"));
}

TEST_CASE("deep graphs are walked without recursion", "[ir]") {
  Context ctx;
  const Node* x = ctx.state("x", {2});
  const Node* y = x;
  for (int i = 0; i < 200000; ++i)
    y = add(tanh(y), x);
  std::vector<const Node*> roots{y};
  CHECK(topo_order(roots).size() == 400001);
  Function f("deep", {x}, {{"y", y}});
  CHECK(verify_error(f).empty());
}
