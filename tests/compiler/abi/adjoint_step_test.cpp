// The fused adjoint step in the runtime: a training step's adjoint gradient
// through the model's adjoint_step kernel equals the stage-by-stage one
// (adjoint_field per stage, the runtime's stage sums) to rounding, on the
// Delta CDE, the Delta NODE and the depth-2 NRDE in f64 (and f32), and with
// dopri5's error estimates on the NCDE; and the
// kernel is really the one called (a counting wrapper in the table), and only
// when fused solver kernels are allowed. The
// kernel itself is checked against the interpreter stage by stage in
// kernels_test (kernel_cases.cpp, "adjoint_step").
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>

#include "compiler/backend/compiled_model.h"
#include "runtime/app/synthetic_data.h"
#include "runtime/batch/batch_gradient.h"
#include "runtime/init/init.h"
#include "tests/compiler/abi/model_fixture.h"

using namespace plastic;

namespace {

// The table's adjoint_step behind a counter: proves which path ran.
std::atomic<int64_t> g_fused_calls{0};
plastic_adjoint_step_fn g_real_adjoint_step = nullptr;

void counting_adjoint_step(const void* ctx, double t, double h, const void* z0, const void* a0,
                           const void* theta, const void* u_stages, void* z1, void* a1,
                           void* dtheta, void* err, void* dtheta_err, void* scratch) {
  ++g_fused_calls;
  g_real_adjoint_step(ctx, t, h, z0, a0, theta, u_stages, z1, a1, dtheta, err, dtheta_err, scratch);
}

template <class T> struct Gradient {
  double loss = 0;
  std::vector<T> g;
};

template <class T>
Gradient<T> adjoint_gradient(const plastic_model& m, const rt::PreparedData& data,
                             const std::vector<T>& theta, bool fused) {
  rt::BatchOptions o;
  rt::SolverOptions solver = rt::resolve_solver(m, o).value();
  solver.use_fused_kernels = fused;
  o.solver = solver;
  o.gradient = rt::GradientOptions{};
  o.gradient->method = rt::GradientMethod::Adjoint;
  Gradient<T> out;
  out.g.assign(theta.size(), T(0));
  std::vector<int64_t> batch;
  for (int64_t i = 0; i < static_cast<int64_t>(data.size()); ++i)
    batch.push_back(i);
  rt::BatchLoss r = rt::loss_and_gradient<T>(m, data, batch, theta, out.g, o);
  INFO(r.status.describe());
  REQUIRE(r.ok());
  out.loss = r.loss;
  return out;
}

template <class T>
void check_model(const std::string& file, const std::map<std::string, double>& dims,
                 loops::ElemType type, double tol) {
  INFO(file << (type == loops::ElemType::F64 ? " f64" : " f32"));
  const model::ModelFunctions fns = test::load_example(file, dims);
  backend::CompiledModel cm = backend::compile_model(fns, type, 0, {});
  plastic_model table = cm.table();
  REQUIRE(table.kernels.adjoint_step != nullptr);
  g_real_adjoint_step = table.kernels.adjoint_step;
  table.kernels.adjoint_step = &counting_adjoint_step;
  // Two tiles, the second padded: frozen and padding lanes go through it too.
  const rt::Dataset data = rt::synthetic_dataset(table, table.lanes + 3, 12, 5);
  auto prepared = rt::prepare(table, data);
  REQUIRE(prepared);
  std::vector<T> theta(static_cast<size_t>(table.n_params));
  REQUIRE(rt::initialise_parameters<T>(table, theta, 3));

  g_fused_calls = 0;
  const Gradient<T> fused = adjoint_gradient<T>(table, prepared.value(), theta, true);
  CHECK(g_fused_calls > 0);
  const int64_t calls = g_fused_calls;
  // Without the fused solver kernels (forward and backward) it is not called.
  const Gradient<T> unfused = adjoint_gradient<T>(table, prepared.value(), theta, false);
  CHECK(g_fused_calls == calls);
  CHECK(unfused.loss == Approx(fused.loss).epsilon(1e-5));
  // The reference: the same table without adjoint_step, so the forward solve
  // (fused step kernels) is the same and only the backward sweep differs.
  plastic_model staged_table = table;
  staged_table.kernels.adjoint_step = nullptr;
  const Gradient<T> staged = adjoint_gradient<T>(staged_table, prepared.value(), theta, true);
  CHECK(fused.loss == staged.loss);
  double num = 0, den = 0;
  for (size_t i = 0; i < theta.size(); ++i) {
    REQUIRE(std::isfinite(static_cast<double>(fused.g[i])));
    num = std::max(num, std::abs(static_cast<double>(fused.g[i]) - staged.g[i]));
    den = std::max(den, std::abs(static_cast<double>(staged.g[i])));
  }
  REQUIRE(den > 0);
  CAPTURE(num / den);
  CHECK(num / den < tol);
}

} // namespace

TEST_CASE("the fused adjoint step gives the stage-by-stage adjoint gradient (f64)",
          "[model][kernels][adjoint]") {
  check_model<double>("fwp_delta_cde.ode", {{"d_head", 4}, {"d_ff", 16}}, loops::ElemType::F64,
                      1e-12);
  check_model<double>("nrde_depth2.ode", {}, loops::ElemType::F64, 1e-12);
  check_model<double>("fwp_delta_node.ode", {}, loops::ElemType::F64, 1e-12);
}

TEST_CASE("the fused adaptive adjoint step gives the stage-by-stage adjoint gradient (f64)",
          "[model][kernels][adjoint]") {
  // dopri5 both ways: the same error estimates, so the same accepted and
  // rejected steps, up to rounding near the controller's thresholds.
  check_model<double>("ncde_character.ode", {}, loops::ElemType::F64, 1e-9);
}

TEST_CASE("the fused adjoint step gives the stage-by-stage adjoint gradient (f32)",
          "[model][kernels][adjoint]") {
  // Different summation orders of the same terms: f32 rounding, relative to
  // the largest gradient entry, accumulated over the backward steps.
  check_model<float>("fwp_delta_cde.ode", {{"d_head", 4}, {"d_ff", 16}}, loops::ElemType::F32,
                     1e-4);
}
