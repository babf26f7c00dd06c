// A realistic case: the multi-head Delta-rule fast-weight field
//   W' = σ(β) · (v − W k) ⊗ k,  k = softmax(Wk·dx),  v = tanh(Wv·x),
//   β = wb·x (one gate per head),  W : [H, d, d]
// (Irie et al., Eq. 24). Its VJP against finite differences, and the RK4
// step VJP after the standard pipeline: equal values, cheaper contractions,
// and no duplicated subexpression in the printed text.
#include <catch2/catch.hpp>

#include <set>
#include <sstream>

#include "compiler/autodiff/function_ad.h"
#include "compiler/autodiff/ode.h"
#include "compiler/ir/einsum.h"
#include "compiler/ir/ops.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/traversal.h"
#include "compiler/passes/pipeline.h"
#include "tests/compiler/support/ir_test_util.h"

using namespace plastic;
using namespace plastic::ir;
using interp::Tensor;

namespace {

Function delta_field(Context& ctx, int64_t H, int64_t d, int64_t din) {
  const Node* t = ctx.time();
  const Node* W = ctx.state("W", {H, d, d});
  const Node* Wk = ctx.param("Wk", {H, d, din});
  const Node* Wv = ctx.param("Wv", {H, d, din}, 1);
  const Node* wb = ctx.param("wb", {H, din}, 2);
  const Node* x = ctx.input("x", {din});
  const Node* dx = ctx.input("dx", {din}, 1);
  const Node* xb = broadcast(x, {H, din}, {1});
  const Node* k = softmax(matvec(Wk, broadcast(dx, {H, din}, {1})), 1);
  const Node* v = tanh(matvec(Wv, xb));
  const Node* beta = sigmoid(reduce_sum(mul(wb, xb), {1}));
  const Node* dW = mul(broadcast(beta, {H, d, d}, {0}), outer(sub(v, matvec(W, k)), k, 1));
  return Function("delta", {t, W, Wk, Wv, wb, x, dx}, {{"dW", dW}});
}

// A flop estimate: loop-space sizes of contractions plus elements computed
// by every other arithmetic op (broadcasts and reshapes are free).
double work(const Function& f) {
  double total = 0;
  for (const Node* n : topo_order(f.output_nodes())) {
    if (n->is_leaf() || n->is_constant() || n->op() == Op::Broadcast || n->op() == Op::Reshape)
      continue;
    if (n->op() != Op::Contract) {
      total += static_cast<double>(n->op() == Op::ReduceSum ? n->operand(0)->numel() : n->numel());
      continue;
    }
    EinsumSpec s = EinsumSpec::parse(n->attrs().str);
    std::vector<int64_t> size(static_cast<size_t>(s.label_bound()), 1);
    for (size_t k = 0; k < s.inputs.size(); ++k)
      for (size_t a = 0; a < s.inputs[k].size(); ++a)
        size[static_cast<size_t>(s.inputs[k][a])] = n->operand(k)->shape()[a];
    double loop = 1;
    for (int64_t v : size)
      loop *= static_cast<double>(v);
    total += loop;
  }
  return total;
}

} // namespace

TEST_CASE("Delta-rule field: VJP and JVP match finite differences", "[fastweight]") {
  for (int seed = 0; seed < 6; ++seed) {
    Context ctx;
    Function f = delta_field(ctx, 2, 4, 5);
    test::Rng rng(static_cast<uint64_t>(seed));
    std::vector<Tensor<double>> x = test::random_inputs(f, rng);
    test::DerivativeErrors e = test::check_derivatives(f, x, rng);
    INFO("seed " << seed << " " << e.where);
    CHECK(e.vjp < 1e-7);
    CHECK(e.jvp < 1e-7);
  }
}

TEST_CASE("Delta-rule RK4 step: VJP and JVP match finite differences", "[fastweight]") {
  for (int seed = 0; seed < 3; ++seed) {
    Context ctx;
    Function field = delta_field(ctx, 2, 3, 4);
    ad::RkStep step = ad::build_rk_step(field, *rt::find_tableau("rk4"));
    test::Rng rng(static_cast<uint64_t>(seed) + 50);
    std::vector<Tensor<double>> x = test::random_inputs(step.fn, rng);
    x[step.fn.input_index("step.h")] = Tensor<double>::scalar(0.3);
    std::vector<std::string> wrt{"W", "Wk", "Wv", "wb"};
    wrt.insert(wrt.end(), step.controls.begin(), step.controls.end());
    test::DerivativeErrors e = test::check_derivatives(step.fn, x, rng, wrt);
    INFO("seed " << seed << " " << e.where);
    CHECK(e.vjp < 1e-7);
    CHECK(e.jvp < 1e-7);
  }
}

TEST_CASE("Delta-rule RK4 step VJP: simplified, cheaper, and free of duplicates", "[fastweight]") {
  Context ctx;
  const int64_t H = 2, d = 16, din = 5;
  Function field = delta_field(ctx, H, d, din);
  ad::RkStep step = ad::build_rk_step(field, *rt::find_tableau("rk4"));
  Function vjp = ad::build_step_vjp(step);

  std::ostringstream trace;
  passes::PipelineOptions opts;
  opts.after_pass = passes::print_after_all(trace);
  Function simple = passes::PassPipeline::standard().run(vjp, opts);

  // Same values.
  test::Rng rng(7);
  std::vector<Tensor<double>> x = test::random_inputs(vjp, rng);
  std::vector<Tensor<double>> a = interp::evaluate(vjp, x), b = interp::evaluate(simple, x);
  REQUIRE(a.size() == b.size());
  for (size_t o = 0; o < a.size(); ++o)
    for (size_t i = 0; i < a[o].data.size(); ++i)
      CHECK(b[o].data[i] == Approx(a[o].data[i]).epsilon(1e-12).margin(1e-13));

  // Contracting through outer products made the contractions cheaper.
  double before = work(vjp), after = work(simple);
  INFO("work before " << before << ", after " << after);
  CHECK(after < 0.7 * before);

  // No two distinct nodes print the same text.
  std::string text = print(simple);
  std::istringstream lines(text);
  std::set<std::string> seen;
  std::string line;
  int instructions = 0;
  while (std::getline(lines, line)) {
    size_t eq = line.find(" = ");
    if (line.rfind("  %", 0) != 0 || eq == std::string::npos) continue;
    ++instructions;
    std::string rhs = line.substr(eq + 3);
    INFO(line);
    CHECK(seen.insert(rhs).second);
  }
  CHECK(instructions > 50);

  // print-after-all produced one parseable function per pass.
  Context other;
  std::vector<Function> traced = parse_functions(other, trace.str());
  CHECK(traced.size() == passes::PassPipeline::standard().names().size());
  CHECK(print(traced.back()) == text);
}
