// The passes on random DAGs with shared nodes (Halide's fuzz/cse habit):
// every pass, and the standard pipeline, leaves the interpreter's values
// unchanged, keeps the IR verifiable, and the result round-trips through
// the printer. Plus targeted checks of each pass.
#include <catch2/catch.hpp>

#include <sstream>

#include <fmt/format.h>

#include "compiler/ir/ops.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/traversal.h"
#include "compiler/ir/verifier.h"
#include "compiler/passes/constant_fold.h"
#include "compiler/passes/dce.h"
#include "compiler/passes/factor.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/reassociate.h"
#include "compiler/passes/simplify.h"
#include "tests/compiler/support/ir_test_util.h"
#include "tests/compiler/support/random_dag.h"

using namespace plastic;
using namespace plastic::ir;
using interp::Tensor;

namespace {

void check_same_values(const Function& a, const Function& b, const std::vector<Tensor<double>>& x,
                       const std::string& what) {
  std::vector<Tensor<double>> va = interp::evaluate(a, x), vb = interp::evaluate(b, x);
  REQUIRE(va.size() == vb.size());
  for (size_t o = 0; o < va.size(); ++o) {
    double scale = 0;
    for (double v : va[o].data)
      scale = std::max(scale, std::abs(v));
    for (size_t i = 0; i < va[o].data.size(); ++i) {
      INFO(what << ", output " << o << "\n" << print(a) << print(b));
      CHECK(std::abs(va[o].data[i] - vb[o].data[i]) <= 1e-12 * (1 + scale));
    }
  }
}

} // namespace

TEST_CASE("random DAGs: every pass preserves values", "[passes][fuzz]") {
  for (int seed = 0; seed < 300; ++seed) {
    test::Rng rng(static_cast<uint64_t>(seed));
    Context ctx;
    Function f = test::random_dag(ctx, rng, 30);
    std::vector<Tensor<double>> x = test::random_inputs(f, rng);
    INFO("seed " << seed);
    const std::pair<const char*, passes::PassFn> each[] = {
        {"simplify", passes::simplify},
        {"reassociate", passes::reassociate_contractions},
        {"factor", passes::factor_shared_operands},
        {"constant-fold", [](const Function& g) { return passes::constant_fold(g); }},
        {"dce", [](const Function& g) { return passes::eliminate_dead_code(g); }},
    };
    for (const auto& [name, pass] : each) {
      Function g = pass(f);
      REQUIRE(verify_error(g).empty());
      check_same_values(f, g, x, name);
    }
    Function all = passes::PassPipeline::standard().run(f);
    check_same_values(f, all, x, "pipeline");
    Context other;
    CHECK(print(parse_function(other, print(all))) == print(all));
  }
}

TEST_CASE("constant folding folds whole constant subexpressions", "[passes]") {
  Context ctx;
  const Node* A = ctx.constant({1, 2, 3, 4}, {2, 2});
  const Node* v = ctx.constant({1, 0}, {2}); // A v = [1, 3]
  const Node* z = ctx.state("z", {2});
  const Node* y = add(z, softmax(matvec(A, v), 0));
  Function f("f", {z}, {{"y", y}});
  Function g = passes::constant_fold(f);
  CHECK(g.outputs()[0].node->op() == Op::Add);
  const Node* c = g.outputs()[0].node->operand(1);
  REQUIRE(c->is_constant());
  double e2 = std::exp(2.0);
  CHECK(c->attrs().reals[0] == Approx(1 / (1 + e2)).epsilon(1e-15));
  CHECK(c->attrs().reals[1] == Approx(e2 / (1 + e2)).epsilon(1e-15));
}

TEST_CASE("simplify moves work onto small tensors", "[passes]") {
  Context ctx;
  const Node* s = ctx.param("s", {4});
  const Node* b = broadcast(s, {3, 4}, {1});
  const Node* y = reduce_sum(tanh(b), {0}); // Σ_3 of a broadcast = 3·tanh(s)
  Function f("f", {s}, {{"y", y}});
  Function g = passes::simplify(f);
  std::vector<const Node*> roots = g.output_nodes();
  for (const Node* n : topo_order(roots))
    CHECK(n->rank() <= 1);
  test::Rng rng(3);
  std::vector<Tensor<double>> x = test::random_inputs(f, rng);
  check_same_values(f, g, x, "simplify");
}

TEST_CASE("reassociation contracts through an outer product", "[passes]") {
  Context ctx;
  const int64_t d = 32;
  const Node* a = ctx.param("a", {d});
  const Node* b = ctx.param("b", {d}, 1);
  const Node* c = ctx.param("c", {d}, 2);
  // (a ⊗ b) · c, O(d²), becomes a (b · c), O(d)
  Function f("f", {a, b, c}, {{"y", matvec(outer(a, b), c)}});
  Function g = passes::reassociate_contractions(f);
  for (const Node* n : topo_order(g.output_nodes()))
    CHECK(n->numel() <= d);
  test::Rng rng(5);
  std::vector<Tensor<double>> x = test::random_inputs(f, rng);
  check_same_values(f, g, x, "reassociate");
}

TEST_CASE("factoring merges rank-1 terms that share a key", "[passes]") {
  Context ctx;
  const int64_t d = 6;
  const Node* z = ctx.state("z", {d, d});
  const Node* e1 = ctx.param("e1", {d});
  const Node* e2 = ctx.param("e2", {d}, 1);
  const Node* e3 = ctx.param("e3", {d}, 2);
  const Node* k = ctx.param("k", {d}, 3);
  const Node* k4 = ctx.param("k4", {d}, 4);
  // rk4's update with stages 2 and 3 at one time node: z + e1⊗k − e2⊗k + e3⊗k4
  // → z + (e1 − e2)⊗k + e3⊗k4, one outer product fewer.
  const Node* y = add(sub(add(z, outer(e1, k)), outer(e2, k)), outer(e3, k4));
  Function f("f", {z, e1, e2, e3, k, k4}, {{"y", y}});
  Function g = passes::factor_shared_operands(f);
  int outers = 0;
  for (const Node* n : topo_order(g.output_nodes()))
    outers += n->op() == Op::Contract && n->numel() == d * d;
  CHECK(outers == 2);
  test::Rng rng(7);
  std::vector<Tensor<double>> x = test::random_inputs(f, rng);
  check_same_values(f, g, x, "factor");
  // A sum whose products share nothing is left as it was, node for node.
  Function h("h", {z, e1, e3, k, k4}, {{"y", add(add(z, outer(e1, k)), outer(e3, k4))}});
  CHECK(passes::factor_shared_operands(h).output_nodes() == h.output_nodes());
}

TEST_CASE("factoring does not duplicate a shared partial sum", "[passes]") {
  Context ctx;
  const int64_t d = 5;
  const Node* e1 = ctx.param("e1", {d});
  const Node* e2 = ctx.param("e2", {d}, 1);
  const Node* k = ctx.param("k", {d}, 2);
  const Node* z = ctx.state("z", {d, d});
  const Node* partial = add(outer(e1, k), z); // used twice below
  const Node* y = sub(partial, outer(e2, k));
  Function f("f", {z, e1, e2, k}, {{"y", y}, {"p", partial}});
  Function g = passes::factor_shared_operands(f);
  // The shared partial sum stays a term: e1⊗k and e2⊗k cannot merge
  // without computing e1⊗k twice.
  CHECK(g.output_nodes() == f.output_nodes());
}

TEST_CASE("factoring leaves a product that is needed elsewhere", "[passes]") {
  Context ctx;
  const int64_t d = 5;
  const Node* e1 = ctx.param("e1", {d});
  const Node* e2 = ctx.param("e2", {d}, 1);
  const Node* k = ctx.param("k", {d}, 2);
  const Node* kept = outer(e1, k); // an output of its own too
  Function f("f", {e1, e2, k}, {{"y", add(kept, outer(e2, k))}, {"p", kept}});
  // Merged, (e1 + e2)⊗k would be computed beside e1⊗k: one product more.
  CHECK(passes::factor_shared_operands(f).output_nodes() == f.output_nodes());
}

TEST_CASE("factoring factors the merged operands too", "[passes]") {
  Context ctx;
  const int64_t d = 4;
  const Node* e1 = ctx.param("e1", {d});
  const Node* e2 = ctx.param("e2", {d}, 1);
  const Node* s = ctx.param("s", {d}, 2);
  const Node* k = ctx.param("k", {d}, 3);
  // (e1 ⊙ s)⊗k + (e2 ⊙ s)⊗k → ((e1 + e2) ⊙ s)⊗k: rk4's stages at one node
  // scaled by the same step.
  const Node* y = add(outer(mul(e1, s), k), outer(mul(e2, s), k));
  Function f("f", {e1, e2, s, k}, {{"y", y}});
  Function g = passes::factor_shared_operands(f);
  int products = 0;
  for (const Node* n : topo_order(g.output_nodes()))
    products += n->op() == Op::Mul || n->op() == Op::Contract;
  CHECK(products == 2);
  test::Rng rng(11);
  std::vector<Tensor<double>> x = test::random_inputs(f, rng);
  check_same_values(f, g, x, "factor");
}

TEST_CASE("dce prunes unused inputs only when asked / compaction copies live nodes", "[passes]") {
  Context ctx;
  const Node* a = ctx.param("a", {2});
  const Node* b = ctx.param("b", {2}, 1);
  for (int i = 0; i < 100; ++i)
    exp(scale(a, i)); // garbage in the arena
  Function f("f", {a, b}, {{"y", tanh(a)}});
  CHECK(passes::eliminate_dead_code(f).inputs().size() == 2);
  passes::DceOptions prune;
  prune.prune_inputs = true;
  CHECK(passes::eliminate_dead_code(f, prune).inputs().size() == 1);
  Context fresh;
  Function g = passes::compact_into(f, fresh);
  CHECK(fresh.size() == 3);
  CHECK(print(g) == print(f));
}

TEST_CASE("print-after-all shows the IR after every pass", "[passes]") {
  Context ctx;
  const Node* a = ctx.param("a", {2});
  Function f("f", {a}, {{"y", add(neg(neg(a)), zeros_like(a))}});
  std::ostringstream out;
  passes::PipelineOptions opts;
  opts.after_pass = passes::print_after_all(out);
  passes::PassPipeline::standard().run(f, opts);
  std::string text = out.str();
  for (const std::string& name : passes::PassPipeline::standard().names())
    CHECK(text.find("// ----- IR after " + name + " ----- //") != std::string::npos);
}
