// The printer's canonical text and the parser's round trip.
#include <catch2/catch.hpp>

#include "compiler/autodiff/function_ad.h"
#include "compiler/autodiff/ode.h"
#include "compiler/ir/error.h"
#include "compiler/ir/ops.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"

using namespace plastic;
using namespace plastic::ir;

namespace {

Function small_field(Context& ctx) {
  const Node* t = ctx.time();
  const Node* z = ctx.state("z", {3});
  const Node* W = ctx.param("W", {3, 3});
  const Node* b = ctx.param("b", {3}, 1);
  const Node* x = ctx.input("x", {3});
  const Node* pre = add(add(matvec(W, z), b), mul(x, broadcast(t, {3}, {})));
  return Function("field", {t, z, W, b, x}, {{"dz", sub(tanh(pre), scale(z, 0.5))}});
}

std::vector<Function> sample_functions(Context& ctx) {
  std::vector<Function> fs;
  fs.push_back(small_field(ctx));
  fs.push_back(ad::vjp_function(fs[0]));
  fs.push_back(ad::jvp_function(fs[0]));
  fs.push_back(ad::build_rk_step(fs[0], *rt::find_tableau("rk4")).fn);
  const Node* q = ctx.param("q", {2, 4});
  const Node* r = ctx.input("r", {2, 4});
  fs.push_back(Function(
      "misc", {q, r},
      {{"a", layernorm(concat({q, slice(r, {0, 1}, {2, 3})}, 1), 1, 1e-5)},
       {"b", logsumexp(pad(softmax(q, 0), {1, 0}, {0, 2}), 1)},
       {"c", select(lt(q, r), q, ctx.constant({0.1, -2, 3.25, 1e-300, 7, 8, 9, 10}, {2, 4}))},
       {"e", reduce_max(r, {0, 1})},
       {"d", reshape(powc(abs(q), 1.5), {8})}}));
  return fs;
}

} // namespace

TEST_CASE("golden text of a small function", "[printer]") {
  Context ctx;
  Function f = small_field(ctx);
  const char* golden = R"(func @field {
  %0 = time "t" [0] : f64[]
  %1 = state "z" [0] : f64[3]
  %2 = param "W" [0] : f64[3,3]
  %3 = param "b" [1] : f64[3]
  %4 = input "x" [0] : f64[3]
  %5 = contract "ab,b->a" %2, %1 : f64[3]
  %6 = add %5, %3 : f64[3]
  %7 = broadcast [] %0 : f64[3]
  %8 = mul %4, %7 : f64[3]
  %9 = add %6, %8 : f64[3]
  %10 = tanh %9 : f64[3]
  %11 = constant (0.5) : f64[3]
  %12 = mul %1, %11 : f64[3]
  %13 = sub %10, %12 : f64[3]
  return "dz" = %13
}
)";
  CHECK(print(f) == golden);
}

TEST_CASE("printed functions parse back to the same function", "[printer][parser]") {
  Context ctx;
  for (const Function& f : sample_functions(ctx)) {
    std::string text = print(f);
    INFO(text);
    // into a fresh Context: the same text
    Context other;
    Function g = parse_function(other, text);
    CHECK(print(g) == text);
    // into the same Context: the very same nodes (hash-consing)
    Function h = parse_function(ctx, text);
    CHECK(h.output_nodes() == f.output_nodes());
    CHECK(h.inputs() == f.inputs());
  }
}

TEST_CASE("locations print and parse back", "[printer][parser]") {
  Context ctx;
  const Node* z = ctx.state("z", {2});
  const Node* y;
  {
    LocationScope at(ctx, ctx.location("model \"x\".ode", 3, 14));
    y = exp(z);
  }
  Function f("f", {z}, {{"y", y}});
  std::string text = print(f, {.locations = true});
  CHECK(text.find("loc(\"model \\\"x\\\".ode\":3:14)") != std::string::npos);
  Context other;
  Function g = parse_function(other, text);
  CHECK(print(g, {.locations = true}) == text);
  CHECK(g.outputs()[0].node->loc().line == 3);
  CHECK(g.outputs()[0].node->loc().file == "model \"x\".ode");
}

TEST_CASE("the parser reports malformed text with a location", "[parser]") {
  Context ctx;
  auto fails = [&](const char* text, const char* what) {
    try {
      parse_function(ctx, text);
      FAIL("no error for: " << text);
    } catch (const IRError& e) {
      INFO(e.describe());
      CHECK(std::string(e.what()).find(what) != std::string::npos);
      CHECK(e.loc().valid());
    }
  };
  fails(
      "func @f {\n  %0 = state \"z\" [0] : f64[3]\n  %1 = frob %0 : f64[3]\n  return \"y\" = %1\n}",
      "unknown op 'frob'");
  fails(
      "func @f {\n  %0 = state \"z\" [0] : f64[3]\n  %1 = exp %0 : f64[4]\n  return \"y\" = %1\n}",
      "not the declared");
  fails(
      "func @f {\n  %0 = state \"z\" [0] : f64[3]\n  %1 = exp %2 : f64[3]\n  return \"y\" = %1\n}",
      "used before it is defined");
  fails(
      "func @f {\n  %0 = state \"z\" [0] : f64[3]\n  %1 = add %0 : f64[3]\n  return \"y\" = %1\n}",
      "takes 2 operands");
  fails("func @f {\n  %0 = state \"z\" [0] : f64[3]\n  return \"y\" = %0\n", "expected '}'");
  // Found by tests/fuzz/ir_parser_fuzzer.cpp: a negative size reached
  // Context::make and ended in an internal error.
  fails("func @f {\n  %0 = param \"b\" [0] : f64[-2]\n  return \"y\" = %0\n",
        "dimension -2 of [-2] is negative");
  fails("func @f {\n  %0 = param \"b\" [0] : f64[4294967296,4294967296]\n  return \"y\" = "
        "%0\n}",
        "more elements than an int64 counts");
}
