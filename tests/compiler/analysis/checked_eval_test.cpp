// The checked interpreter (compiler/analysis/checked_eval.h): it names the
// first operation whose finite operands gave a non-finite result, with the
// operand values, and the source location that operation was stamped with.
#include <catch2/catch.hpp>

#include <cmath>

#include "compiler/analysis/checked_eval.h"
#include "compiler/ir/context.h"
#include "compiler/ir/function.h"
#include "compiler/ir/ops.h"

using namespace plastic;
using interp::Tensor;

namespace {

std::map<std::string, Tensor<double>> at(double x) {
  return {{"x", Tensor<double>::scalar(x)}};
}

} // namespace

TEST_CASE("checked evaluation finds the operation that produced a NaN and where", "[analysis]") {
  ir::Context ctx;
  const ir::Node* x = ctx.state("x", {});
  const ir::Node* shifted = ir::add(x, ctx.constant(1.0)); // finite everywhere
  const ir::Node* logged = nullptr;
  {
    ir::LocationScope here(ctx, ctx.location("model.ode", 14, 9));
    logged = ir::log(shifted);
  }
  const ir::Node* y = ir::mul(logged, ctx.constant(2.0)); // spreads the NaN, is not its source
  ir::Function f("f", {x}, {{"y", y}});

  SECTION("finite inputs: outputs, no site") {
    analysis::CheckedResult r = analysis::evaluate_checked(f, at(1.0));
    CHECK_FALSE(r.site);
    REQUIRE(r.outputs.size() == 1);
    CHECK(r.outputs[0].data[0] == Approx(2 * std::log(2.0)));
  }
  SECTION("log of a negative value: the log, at its location, with the operand") {
    analysis::CheckedResult r = analysis::evaluate_checked(f, at(-1.31));
    REQUIRE(r.site);
    CHECK(r.site->node == logged);
    CHECK(r.site->what == "log of a negative value (-0.31)");
    CHECK(r.site->node->loc().line == 14);
    CHECK(r.site->node->loc().col == 9);
    CHECK(r.outputs.empty());
  }
  SECTION("log of zero") {
    analysis::CheckedResult r = analysis::evaluate_checked(f, at(-1.0));
    REQUIRE(r.site);
    CHECK(r.site->what == "log of zero");
  }
  SECTION("an input that is already non-finite is reported as such") {
    analysis::CheckedResult r = analysis::evaluate_checked(f, at(NAN));
    REQUIRE(r.site);
    CHECK(r.site->node == x);
    CHECK(r.site->what == "the x is already non-finite");
  }
}

TEST_CASE("checked evaluation explains division by zero, exp overflow and products", "[analysis]") {
  ir::Context ctx;
  const ir::Node* x = ctx.state("x", {});
  SECTION("division by zero") {
    ir::Function f("f", {x}, {{"y", ir::div(ctx.constant(3.0), x)}});
    auto r = analysis::evaluate_checked(f, at(0.0));
    REQUIRE(r.site);
    CHECK(r.site->what == "division by zero (3 / 0)");
  }
  SECTION("exp overflow") {
    ir::Function f("f", {x}, {{"y", ir::exp(x)}});
    auto r = analysis::evaluate_checked(f, at(800.0));
    REQUIRE(r.site);
    CHECK(r.site->what == "overflow in exp (exp(800))");
    CHECK_FALSE(analysis::evaluate_checked(f, at(700.0)).site);
  }
  SECTION("a product that overflows") {
    const ir::Node* w = ctx.state("w", {});
    ir::Function f("f", {x, w}, {{"y", ir::mul(x, w)}});
    auto r = analysis::evaluate_checked(
        f, {{"x", Tensor<double>::scalar(1e200)}, {"w", Tensor<double>::scalar(-3e200)}});
    REQUIRE(r.site);
    CHECK(r.site->what == "overflow in a product (1e+200 * -3e+200)");
  }
  SECTION("square root of a negative value") {
    ir::Function f("f", {x}, {{"y", ir::sqrt(x)}});
    auto r = analysis::evaluate_checked(f, at(-4.0));
    REQUIRE(r.site);
    CHECK(r.site->what == "square root of a negative value (-4)");
  }
}
