// Every op's VJP and JVP against central finite differences, at random
// points and random shapes, many seeds, in f64 (relative error < 1e-7).
// Points are sampled away from the kinks of relu/abs/step/sign/max/min and
// from ties of reduce_max, so the finite differences are well defined.
#include <catch2/catch.hpp>

#include <functional>

#include <fmt/format.h>

#include "compiler/autodiff/rules.h"
#include "compiler/ir/ops.h"
#include "compiler/ir/printer.h"
#include "tests/compiler/support/ir_test_util.h"
#include "tests/compiler/support/random_dag.h"

using namespace plastic;
using namespace plastic::ir;
using plastic::test::Rng;
using plastic::test::Tensor;

namespace {

constexpr double kTol = 1e-7;
constexpr int kSeeds = 12;

Shape random_shape(Rng& rng, int min_rank = 0, int max_rank = 3) {
  std::uniform_int_distribution<int> r(min_rank, max_rank), d(1, 4);
  Shape s(static_cast<size_t>(r(rng)));
  for (auto& v : s)
    v = d(rng);
  return s;
}

using Builder = std::function<Function(Context&, Rng&)>;
using Sampler = std::function<std::vector<Tensor<double>>(const Function&, Rng&)>;

// Uniform inputs in [lo, hi], kept `gap` away from zero.
Sampler uniform(double lo, double hi, double gap = 0.0) {
  return [=](const Function& f, Rng& rng) {
    std::vector<Tensor<double>> xs;
    for (const Node* in : f.inputs())
      xs.push_back(test::random_tensor(in->shape(), rng, lo, hi, gap));
    return xs;
  };
}

void run_case(const std::string& name, const Builder& build, const Sampler& sample,
              int seeds = kSeeds) {
  for (int seed = 0; seed < seeds; ++seed) {
    Rng rng(static_cast<uint64_t>(seed) * 7919 + std::hash<std::string>{}(name));
    Context ctx;
    Function f = build(ctx, rng);
    std::vector<Tensor<double>> x = sample(f, rng);
    test::DerivativeErrors e = test::check_derivatives(f, x, rng);
    INFO(name << " seed " << seed << " (" << e.where << ")\n" << f);
    CHECK(e.vjp < kTol);
    CHECK(e.jvp < kTol);
  }
}

Function unary_fn(Context& ctx, Rng& rng, Op op, double p = 0) {
  const Node* x = ctx.param("x", random_shape(rng));
  return Function("f", {x}, {{"y", unary(op, x, p)}});
}

} // namespace

TEST_CASE("unary ops: VJP and JVP match finite differences", "[autodiff]") {
  struct U {
    Op op;
    double lo, hi, gap;
  };
  for (U u :
       {U{Op::Neg, -2, 2, 0}, U{Op::Exp, -2, 2, 0}, U{Op::Log, 0.2, 3, 0}, U{Op::Tanh, -2, 2, 0},
        U{Op::Sigmoid, -3, 3, 0}, U{Op::Relu, -1, 1, 0.05}, U{Op::Elu, -1, 1, 0.05},
        U{Op::Softplus, -3, 3, 0}, U{Op::Sqrt, 0.2, 3, 0}, U{Op::Abs, -1, 1, 0.05},
        U{Op::Square, -2, 2, 0}, U{Op::Reciprocal, -2, 2, 0.3}, U{Op::Sin, -3, 3, 0},
        U{Op::Cos, -3, 3, 0}, U{Op::Step, -1, 1, 0.05}, U{Op::Sign, -1, 1, 0.05}})
    run_case(
        std::string(op_name(u.op)),
        [&](Context& ctx, Rng& rng) { return unary_fn(ctx, rng, u.op); },
        uniform(u.lo, u.hi, u.gap));
  for (double p : {2.5, -1.5, 3.0, 0.3})
    run_case(
        fmt::format("powc {}", p),
        [&](Context& ctx, Rng& rng) { return unary_fn(ctx, rng, Op::PowC, p); }, uniform(0.3, 2.0));
}

TEST_CASE("binary ops: VJP and JVP match finite differences", "[autodiff]") {
  for (Op op : {Op::Add, Op::Sub, Op::Mul, Op::Div})
    run_case(
        std::string(op_name(op)),
        [&](Context& ctx, Rng& rng) {
          Shape s = random_shape(rng);
          const Node *a = ctx.param("a", s), *b = ctx.param("b", s);
          return Function("f", {a, b}, {{"y", binary(op, a, b)}});
        },
        uniform(-2, 2, 0.3));
  // max/min: the operands differ by at least 0.1 everywhere.
  Sampler separated = [](const Function& f, Rng& rng) {
    Tensor<double> a = test::random_tensor(f.inputs()[0]->shape(), rng, -1, 1);
    Tensor<double> d = test::random_tensor(a.shape, rng, -1, 1, 0.1);
    Tensor<double> b = a;
    for (size_t i = 0; i < b.data.size(); ++i)
      b.data[i] += d.data[i];
    return std::vector<Tensor<double>>{a, b};
  };
  for (Op op : {Op::Max, Op::Min})
    run_case(
        std::string(op_name(op)),
        [&](Context& ctx, Rng& rng) {
          Shape s = random_shape(rng);
          const Node *a = ctx.param("a", s), *b = ctx.param("b", s);
          return Function("f", {a, b}, {{"y", binary(op, a, b)}});
        },
        separated);
  // select routed by a comparison of the operands themselves.
  for (Op cmp : {Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Eq, Op::Ne})
    run_case(
        fmt::format("select/{}", op_name(cmp)),
        [&](Context& ctx, Rng& rng) {
          Shape s = random_shape(rng);
          const Node *a = ctx.param("a", s), *b = ctx.param("b", s);
          const Node* y = select(compare(cmp, a, b), mul(a, b), exp(a));
          return Function("f", {a, b}, {{"y", y}});
        },
        separated);
}

TEST_CASE("broadcasts and reductions: VJP and JVP match finite differences", "[autodiff]") {
  run_case(
      "broadcast",
      [](Context& ctx, Rng& rng) {
        Shape out = random_shape(rng, 1, 4);
        std::vector<int64_t> axes;
        Shape in;
        for (int64_t a = 0; a < static_cast<int64_t>(out.size()); ++a)
          if (rng() % 2) {
            axes.push_back(a);
            in.push_back(out[static_cast<size_t>(a)]);
          }
        const Node* x = ctx.param("x", in);
        return Function("f", {x}, {{"y", broadcast(x, out, axes)}});
      },
      uniform(-1, 1));
  run_case(
      "numpy add",
      [](Context& ctx, Rng&) {
        const Node *a = ctx.param("a", {3, 1}), *b = ctx.param("b", {2, 1, 4});
        return Function("f", {a, b}, {{"y", mul(a, b, Broadcasting::Numpy)}});
      },
      uniform(-1, 1));
  for (Op op : {Op::ReduceSum, Op::ReduceMax})
    run_case(
        std::string(op_name(op)),
        [&](Context& ctx, Rng& rng) {
          Shape s = random_shape(rng, 1, 3);
          std::vector<int64_t> axes;
          for (int64_t a = 0; a < static_cast<int64_t>(s.size()); ++a)
            if (rng() % 2) axes.push_back(a);
          const Node* x = ctx.param("x", s);
          const Node* y = op == Op::ReduceSum ? reduce_sum(x, axes) : reduce_max(x, axes);
          return Function("f", {x}, {{"y", y}});
        },
        // distinct values 0.05 apart: no ties, and no perturbation reorders them
        [](const Function& f, Rng& rng) {
          Tensor<double> x(f.inputs()[0]->shape());
          for (size_t i = 0; i < x.data.size(); ++i)
            x.data[i] = 0.05 * static_cast<double>(i);
          std::shuffle(x.data.begin(), x.data.end(), rng);
          return std::vector<Tensor<double>>{x};
        });
  run_case(
      "mean",
      [](Context& ctx, Rng& rng) {
        const Node* x = ctx.param("x", random_shape(rng, 2, 3));
        return Function("f", {x}, {{"y", mean(x, {0, 1})}});
      },
      uniform(-1, 1));
}

TEST_CASE("contractions: VJP and JVP match finite differences", "[autodiff]") {
  struct C {
    const char* spec;
    std::vector<Shape> shapes;
  };
  for (const C& c : std::vector<C>{
           {"ab,b->a", {{3, 4}, {4}}},                 // matvec
           {"ab,bc->ac", {{2, 3}, {3, 4}}},            // matmul
           {"a,b->ab", {{3}, {2}}},                    // outer
           {"abc,ac->ab", {{2, 3, 4}, {2, 4}}},        // multi-head matvec
           {"ab,ac->abc", {{2, 3}, {2, 4}}},           // multi-head outer
           {"abc->cab", {{2, 3, 4}}},                  // transpose
           {"ab,ab->", {{3, 2}, {3, 2}}},              // Frobenius product
           {"ab,c->c", {{2, 3}, {4}}},                 // a label summed inside one operand
           {"ab,bc,cd->ad", {{2, 3}, {3, 2}, {2, 4}}}, // three operands
           {"abc->b", {{2, 3, 2}}},                    // sum as a contraction
           {"a,->a", {{3}, {}}},                       // scaling by a scalar
       })
    run_case(
        fmt::format("contract {}", c.spec),
        [&](Context& ctx, Rng&) {
          std::vector<const Node*> ops;
          for (size_t i = 0; i < c.shapes.size(); ++i)
            ops.push_back(ctx.param(fmt::format("x{}", i), c.shapes[i]));
          return Function("f", ops, {{"y", contract(c.spec, ops)}});
        },
        uniform(-1, 1));
}

TEST_CASE("shape ops: VJP and JVP match finite differences", "[autodiff]") {
  run_case(
      "reshape",
      [](Context& ctx, Rng&) {
        const Node* x = ctx.param("x", {2, 3, 4});
        return Function("f", {x}, {{"y", reshape(x, {4, 6})}});
      },
      uniform(-1, 1));
  run_case(
      "slice",
      [](Context& ctx, Rng& rng) {
        Shape s = random_shape(rng, 1, 3), sizes = s;
        std::vector<int64_t> starts;
        for (size_t i = 0; i < s.size(); ++i) {
          starts.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(s[i])));
          sizes[i] = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(s[i] - starts[i]));
        }
        const Node* x = ctx.param("x", s);
        return Function("f", {x}, {{"y", slice(x, starts, sizes)}});
      },
      uniform(-1, 1));
  run_case(
      "pad",
      [](Context& ctx, Rng&) {
        const Node* x = ctx.param("x", {2, 3});
        return Function("f", {x}, {{"y", pad(x, {1, 0}, {2, 1})}});
      },
      uniform(-1, 1));
  run_case(
      "concat",
      [](Context& ctx, Rng&) {
        const Node *a = ctx.param("a", {2, 3}), *b = ctx.param("b", {2, 1}),
                   *c = ctx.param("c", {2, 2});
        return Function("f", {a, b, c}, {{"y", concat({a, b, c}, 1)}});
      },
      uniform(-1, 1));
}

TEST_CASE("composites: VJP and JVP match finite differences", "[autodiff]") {
  for (Op op : {Op::Softmax, Op::LogSumExp, Op::LayerNorm})
    run_case(
        std::string(op_name(op)),
        [&](Context& ctx, Rng& rng) {
          Shape s = random_shape(rng, 1, 3);
          if (s[0] == 1) s[0] = 3; // layernorm of one element is constant
          int64_t axis = static_cast<int64_t>(rng() % s.size());
          if (op == Op::LayerNorm) s[static_cast<size_t>(axis)] += 2;
          const Node* x = ctx.param("x", s);
          const Node* y = op == Op::Softmax     ? softmax(x, axis)
                          : op == Op::LogSumExp ? logsumexp(x, axis)
                                                : layernorm(x, axis, 1e-5);
          return Function("f", {x}, {{"y", y}});
        },
        uniform(-2, 2));
}

TEST_CASE("every non-leaf op has a derivative rule", "[autodiff]") {
  // The rule table checks completeness when first used; this forces that.
  for (int i = 0; i < kNumOps; ++i) {
    Op op = static_cast<Op>(i);
    if (op_is_leaf(op) || op == Op::Constant) continue;
    CHECK_NOTHROW(plastic::ad::diff_rule(op));
  }
}

TEST_CASE("random compositions: VJP and JVP match finite differences", "[autodiff][fuzz]") {
  for (int seed = 0; seed < 60; ++seed) {
    Rng rng(static_cast<uint64_t>(seed) + 1000);
    Context ctx;
    Function f = test::random_dag(ctx, rng, 20);
    std::vector<Tensor<double>> x = test::random_inputs(f, rng);
    test::DerivativeErrors e = test::check_derivatives(f, x, rng);
    INFO("seed " << seed << " (" << e.where << ")\n" << f);
    CHECK(e.vjp < kTol);
    CHECK(e.jvp < kTol);
  }
}
