// Whole functions through the emitter: random DAGs with shared nodes
// (tests/compiler/random_dag.h) and the functions of real example models
// (field, its VJP, the adjoint system, fused solver steps and their VJPs,
// init/outputs/loss), emitted standalone, JIT-compiled and compared lane by
// lane with the interpreter in f64. Also the size of the emitted code
// (proportional to the DAG: nothing unrolled) and the JIT time of the
// largest kernel of the Delta-CDE model at its default dims (printed).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>

#include "compiler/ir/traversal.h"
#include "compiler/loopgen/emit_function.h"
#include "compiler/model/model_functions.h"
#include "tests/compiler/loopgen/loopgen_support.h"
#include "tests/compiler/support/random_dag.h"

using namespace plastic;
using namespace plastic::loopgen::test;

namespace {

std::string example(const std::string& name) {
  return std::string(PLASTIC_SOURCE_DIR) + "/examples/" + name;
}

model::ModelFunctions load(const std::string& file, std::map<std::string, double> overrides) {
  model::BuildOptions opts;
  opts.overrides = std::move(overrides);
  model::BuildStatus status{};
  auto mf = model::build_model_functions(example(file), opts, status);
  REQUIRE(mf.has_value());
  return std::move(*mf);
}

void check_model(const std::string& file, std::map<std::string, double> overrides) {
  model::ModelFunctions mf = load(file, std::move(overrides));
  bool saw_step_vjp = false, saw_adjoint = false;
  for (const model::NamedFunction* f : mf.functions()) {
    saw_step_vjp = saw_step_vjp || f->role.kind == model::FnKind::StepVjp;
    saw_adjoint = saw_adjoint || f->role.kind == model::FnKind::AdjointSystem;
    const std::string name = model::to_string(f->role);
    for (uint64_t seed : {1, 2}) {
      Check c = check_standalone(f->fn, ElemType::F64, seed);
      if (seed == 1)
        fmt::print("  {:<24} {:<22} {:>5} nodes {:>6} stmts  jit {:6.1f} ms  max rel {:.2e}\n",
                   file, name, model::node_count(f->fn), c.statements, c.compile_ms, c.max_rel);
      INFO(file << " " << name << " seed " << seed << ": " << c.where);
      CHECK_FALSE(c.nan_mismatch);
      CHECK(c.max_rel <= 1e-10);
    }
  }
  CHECK(saw_step_vjp);
  CHECK(saw_adjoint);
}

} // namespace

TEST_CASE("emit: random DAGs with shared nodes", "[kernels][dag]") {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    test::Rng rng(seed);
    ir::Context ctx;
    ir::Function f = test::random_dag(ctx, rng, 40);
    // random_dag makes every leaf a param; turn some into per-sample
    // inputs so uniform and varying values meet.
    std::unordered_map<const ir::Node*, const ir::Node*> swap;
    std::vector<const ir::Node*> inputs;
    for (const ir::Node* p : f.inputs()) {
      const ir::Node* n = (rng() % 2) ? ctx.input(p->name() + "v", p->shape()) : p;
      if (n != p) swap[p] = n;
      inputs.push_back(n);
    }
    std::vector<const ir::Node*> roots = ir::substitute(f.output_nodes(), swap);
    std::vector<ir::Output> outs;
    for (size_t j = 0; j < roots.size(); ++j)
      outs.push_back({f.outputs()[j].name, roots[j]});
    ir::Function g("dag", inputs, outs);
    for (ElemType t : {ElemType::F64, ElemType::F32}) {
      Check c = check_standalone(g, t, seed);
      INFO("seed " << seed << " " << loops::elem_type_name(t) << ": " << c.where);
      CHECK_FALSE(c.nan_mismatch);
      CHECK(c.max_rel <= (t == ElemType::F64 ? 1e-10 : 1e-5));
    }
  }
}

TEST_CASE("emit: Delta-CDE fast weight programmer functions", "[kernels][models]") {
  check_model("fwp_delta_cde.ode", {{"d_head", 4}, {"d_ff", 16}});
}

TEST_CASE("emit: neural CDE functions", "[kernels][models]") {
  check_model("ncde_character.ode", {{"hidden", 8}, {"d_f", 16}});
}

TEST_CASE("emit: gated neural ODE functions", "[kernels][models]") {
  check_model("gnode_flipflop.ode", {{"N", 8}, {"H", 8}});
}

TEST_CASE("emit: code size is proportional to the DAG (no unrolling)", "[kernels][models]") {
  // At two sizes of the model, the statements per IR node stay bounded and
  // do not grow with the dims: loops carry the dims, not the code. Both
  // sizes leave the same remainders after the contractions' register
  // blocks of 8 and 4 (20 = 2 x 8 + 4, 44 = 5 x 8 + 4), so that what is
  // compared is growth with the dims, not a block the smaller size lacks.
  std::map<model::FnRole, double> ratio;
  const rt::ButcherTableau* rk4 = rt::find_tableau("rk4");
  for (double d_head : {20.0, 44.0}) {
    model::ModelFunctions mf = load("fwp_delta_cde.ode", {{"d_head", d_head}});
    for (const model::NamedFunction* f : mf.functions()) {
      const bool rk4_step = f->role.method == rk4 && (f->role.kind == model::FnKind::Step ||
                                                      f->role.kind == model::FnKind::StepVjp);
      if (f->role.kind != model::FnKind::Field && !rk4_step) continue;
      const std::string name = model::to_string(f->role);
      loops::Function k = loopgen::emit_standalone(f->fn, ElemType::F64, 0, unique_name(name));
      size_t nodes = model::node_count(f->fn);
      int64_t stmts = count_statements(k);
      double r = static_cast<double>(stmts) / static_cast<double>(nodes);
      fmt::print("  d_head {:>2} {:<16} {:>5} nodes {:>6} statements ({:.2f} per node)\n", d_head,
                 name, nodes, stmts, r);
      INFO(name << " d_head " << d_head);
      CHECK(r <= 8.0);
      if (d_head == 20.0)
        ratio[f->role] = r;
      else
        CHECK(r <= ratio[f->role] * 1.25);
    }
  }
}
