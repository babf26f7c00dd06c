// Batch loss and gradient: finite differences, padding, per-sample sums,
// gradient methods, threads, masked per-observation targets, failures.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "runtime/batch/batch_gradient.h"
#include "runtime/batch/predict.h"
#include "tests/runtime/batch/batch_models.h"

using namespace plastic;
using Catch::Matchers::Contains;

namespace {

struct Setup {
  std::unique_ptr<test::CdeModel<double>> model;
  rt::Dataset data;
  rt::PreparedData prepared;
  std::vector<double> theta;
};

Setup make_setup(const test::CdeSpec& spec, const std::vector<int>& lengths, rt::TargetKind kind,
                 int width, unsigned seed) {
  Setup s;
  s.model = test::make_cde<double>(spec);
  s.data = test::make_data(lengths, spec.d, spec.S, kind, width, seed);
  auto p = rt::prepare(s.model->get(), s.data);
  REQUIRE(p);
  s.prepared = std::move(p.value());
  s.theta = test::random_theta(s.model->P(), seed + 100);
  return s;
}

struct Grad {
  rt::BatchLoss r;
  std::vector<double> g;
};

Grad batch_grad(const Setup& s, const std::vector<int64_t>& batch, const rt::BatchOptions& o = {}) {
  Grad out;
  out.g.assign(s.theta.size(), 0.0);
  out.r = rt::loss_and_gradient<double>(s.model->get(), s.prepared, batch, s.theta, out.g, o);
  INFO(out.r.status.describe());
  REQUIRE(out.r.ok());
  return out;
}

double batch_loss(const Setup& s, const std::vector<int64_t>& batch, const std::vector<double>& th,
                  const rt::BatchOptions& o = {}) {
  std::vector<double> g(th.size(), 0.0);
  rt::BatchLoss r = rt::loss_and_gradient<double>(s.model->get(), s.prepared, batch, th, g, o);
  REQUIRE(r.ok());
  return r.loss;
}

/// max |a - b| / max |b|.
double rel_err(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    num = std::max(num, std::abs(a[i] - b[i]));
    den = std::max(den, std::abs(b[i]));
  }
  return num / den;
}

void check_fd(const Setup& s, const std::vector<int64_t>& batch, const rt::BatchOptions& o = {}) {
  const Grad g = batch_grad(s, batch, o);
  std::vector<double> fd(s.theta.size());
  const double eps = 1e-5;
  for (size_t i = 0; i < s.theta.size(); ++i) {
    std::vector<double> th = s.theta;
    th[i] += eps;
    const double fp = batch_loss(s, batch, th, o);
    th[i] -= 2 * eps;
    const double fm = batch_loss(s, batch, th, o);
    fd[i] = (fp - fm) / (2 * eps);
  }
  const double err = rel_err(g.g, fd);
  CAPTURE(err);
  CHECK(err < 1e-6);
}

std::vector<int64_t> first_n(int n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), int64_t{0});
  return v;
}

} // namespace

TEST_CASE("the batch gradient matches central differences (classification, statics)", "[batch]") {
  test::CdeSpec spec;
  spec.S = 2;
  const Setup s =
      make_setup(spec, {6, 4, 7, 5, 3, 6}, rt::TargetKind::Class, spec.o, 11); // L+2: padding
  check_fd(s, first_n(6));
}

TEST_CASE("the batch gradient matches central differences (per-observation regression, "
          "jumps, NaN targets)",
          "[batch]") {
  test::CdeSpec spec;
  spec.task = PLASTIC_TASK_REGRESSION;
  spec.readout = PLASTIC_READOUT_EACH_OBSERVATION;
  spec.jump = true;
  spec.interp = 2; // Hermite
  Setup s = make_setup(spec, {5, 3, 6, 4, 5}, rt::TargetKind::RegressionPerStep, spec.o, 12);
  // Blank out some targets (whole rows and partial rows) and prepare again.
  s.data.samples[0].target[3] = std::nan("");
  for (int c = 0; c < 3; ++c)
    s.data.samples[2].target[static_cast<size_t>(6 + c)] = std::nan("");
  auto p = rt::prepare(s.model->get(), s.data);
  REQUIRE(p);
  s.prepared = std::move(p.value());
  check_fd(s, first_n(5));
}

TEST_CASE("the batch gradient matches central differences (binary, logsig driver, final "
          "readout with jumps)",
          "[batch]") {
  test::CdeSpec spec;
  spec.task = PLASTIC_TASK_BINARY;
  spec.o = 1;
  spec.logsig = true;
  spec.jump = true;
  const Setup s = make_setup(spec, {7, 4, 8, 5, 6}, rt::TargetKind::Binary, 2, 13);
  check_fd(s, first_n(5));
}

TEST_CASE("padding lanes contribute nothing: a batch is the mean of its samples", "[batch]") {
  test::CdeSpec spec;
  spec.S = 1;
  const int L = spec.L;
  std::vector<int> lengths;
  for (int i = 0; i < 3 * L + 2; ++i)
    lengths.push_back(3 + (i * 5) % 6);
  const Setup s = make_setup(spec, lengths, rt::TargetKind::Class, spec.o, 21);
  // Per-sample gradients, one sample per call (L-1 padding lanes each).
  std::vector<Grad> single;
  for (size_t i = 0; i < lengths.size(); ++i)
    single.push_back(batch_grad(s, {int64_t(i)}));
  for (int B : {1, L - 1, L + 1, 3 * L + 2}) {
    const std::vector<int64_t> batch = first_n(B);
    const Grad g = batch_grad(s, batch);
    std::vector<double> mean(s.theta.size(), 0.0);
    double loss = 0;
    for (int i = 0; i < B; ++i) {
      loss += single[static_cast<size_t>(i)].r.loss / B;
      for (size_t k = 0; k < mean.size(); ++k)
        mean[k] += single[static_cast<size_t>(i)].g[k] / B;
    }
    INFO("B = " << B);
    CHECK(g.r.samples == B);
    CHECK(g.r.terms == B);
    CHECK(g.r.tiles == (B + L - 1) / L);
    CHECK(g.r.loss == Approx(loss).epsilon(1e-12));
    CHECK(rel_err(g.g, mean) < 1e-12);
  }
}

TEST_CASE("direct, checkpoint and adjoint gradients agree on a batch", "[batch]") {
  test::CdeSpec spec;
  spec.S = 2;
  spec.method = "dopri5";
  spec.step_size = 0;
  const Setup s = make_setup(spec, {6, 4, 7, 5, 3}, rt::TargetKind::Class, spec.o, 31);
  rt::BatchOptions o;
  rt::SolverOptions solver;
  solver.tableau = rt::find_tableau("dopri5");
  solver.rtol = 1e-10;
  solver.atol = 1e-12;
  o.solver = solver;
  o.gradient = rt::GradientOptions{};
  o.gradient->method = rt::GradientMethod::Direct;
  const Grad direct = batch_grad(s, first_n(5), o);
  o.gradient->method = rt::GradientMethod::Checkpoint;
  const Grad checkpoint = batch_grad(s, first_n(5), o);
  o.gradient->method = rt::GradientMethod::Adjoint;
  const Grad adjoint = batch_grad(s, first_n(5), o);
  CHECK(rel_err(checkpoint.g, direct.g) < 1e-12);
  CHECK(checkpoint.r.loss == direct.r.loss);
  CHECK(rel_err(adjoint.g, direct.g) < 1e-6);
  CHECK(adjoint.r.loss == Approx(direct.r.loss).epsilon(1e-12));
}

TEST_CASE("the batch result is bitwise the same for 1, 2 and 3 threads", "[batch]") {
  test::CdeSpec spec;
  spec.S = 1;
  std::vector<int> lengths;
  for (int i = 0; i < 23; ++i)
    lengths.push_back(3 + (i * 7) % 9);
  const Setup s = make_setup(spec, lengths, rt::TargetKind::Class, spec.o, 41);
  rt::BatchOptions o;
  o.threads = 1;
  const Grad one = batch_grad(s, first_n(23), o);
  for (int threads : {2, 3}) {
    o.threads = threads;
    const Grad many = batch_grad(s, first_n(23), o);
    CHECK(many.r.loss == one.r.loss);
    CHECK(many.g == one.g);
  }
}

TEST_CASE("per-observation regression masks NaN targets", "[batch]") {
  test::CdeSpec spec;
  spec.task = PLASTIC_TASK_REGRESSION;
  spec.readout = PLASTIC_READOUT_EACH_OBSERVATION;
  Setup s = make_setup(spec, {5, 3, 6}, rt::TargetKind::RegressionPerStep, spec.o, 51);
  for (int c = 0; c < 3; ++c) {
    s.data.samples[0].target[static_cast<size_t>(3 * 1 + c)] = std::nan("");
    s.data.samples[2].target[static_cast<size_t>(3 * 4 + c)] = std::nan("");
  }
  s.data.samples[1].target[3 * 2 + 1] = std::nan(""); // partly missing row
  auto p = rt::prepare(s.model->get(), s.data);
  REQUIRE(p);
  s.prepared = std::move(p.value());
  const Grad g = batch_grad(s, first_n(3));
  CHECK(g.r.terms == 4 + 2 + 5);
  for (double x : g.g)
    CHECK(std::isfinite(x));
  // The loss is the mean of 1/2 |y - target|^2 over the observed rows only.
  auto pred = rt::predict<double>(s.model->get(), s.prepared, first_n(3), s.theta);
  REQUIRE(pred);
  double sum = 0;
  int64_t terms = 0;
  for (size_t i = 0; i < 3; ++i) {
    const rt::Sample& smp = s.data.samples[i];
    for (size_t k = 0; k < smp.length(); ++k) {
      bool observed = true;
      for (int c = 0; c < 3; ++c)
        observed = observed && !std::isnan(smp.target[k * 3 + size_t(c)]);
      if (!observed) continue;
      auto y = pred.value().row(pred.value().first_row[i] + k);
      for (int c = 0; c < 3; ++c) {
        const double d = y[size_t(c)] - smp.target[k * 3 + size_t(c)];
        sum += 0.5 * d * d;
      }
      ++terms;
    }
  }
  CHECK(terms == g.r.terms);
  CHECK(g.r.loss == Approx(sum / double(terms)).epsilon(1e-12));
}

TEST_CASE("a solver failure names the data set sample", "[batch]") {
  test::CdeSpec spec;
  spec.S = 1;
  spec.q = 1.0; // z' = z^2 + ...: blows up from z0 near 1 before t = 1.5
  Setup s = make_setup(spec, {6, 6, 6, 6, 6, 6, 6, 6}, rt::TargetKind::Class, spec.o, 61);
  std::fill(s.theta.begin(), s.theta.end(), 0.0);
  auto& c = *s.model->ctx;
  for (int i = 0; i < c.n; ++i)
    s.theta[static_cast<size_t>(c.E + i * (c.d + c.S) + c.d)] = 3.0;
  for (size_t i = 0; i < s.data.size(); ++i)
    s.data.samples[i].statics[0] = -1.0;
  s.data.samples[6].statics[0] = 2.0; // z0 = tanh(6): blows up near t = 1
  s.data.samples[6].id = "patient-0042";
  auto p = rt::prepare(s.model->get(), s.data);
  REQUIRE(p);
  s.prepared = std::move(p.value());
  std::vector<double> g(s.theta.size(), 0.0);
  const std::vector<int64_t> batch = {0, 1, 2, 3, 4, 5, 6, 7};
  for (int threads : {1, 2}) {
    rt::BatchOptions o;
    o.threads = threads;
    rt::BatchLoss r =
        rt::loss_and_gradient<double>(s.model->get(), s.prepared, batch, s.theta, g, o);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status.error().kind == rt::FailureKind::NonFiniteState);
    CHECK(r.status.error().sample == 6);
    CHECK(r.status.error().t > 0.9);
    CHECK(r.status.error().t <= 2.0); // fixed rk4 steps of 0.25 overflow a little after t = 1
    CHECK_THAT(r.status.describe(), Contains("in sample 6") && Contains("patient-0042"));
    for (double x : g)
      CHECK(x == 0.0); // untouched
  }
  auto pr = rt::predict<double>(s.model->get(), s.prepared, batch, s.theta);
  REQUIRE_FALSE(pr);
  CHECK(pr.error().sample == 6);
}

TEST_CASE("an f32 model's batch gradient is close to the f64 one", "[batch]") {
  test::CdeSpec spec;
  spec.S = 2;
  const Setup s = make_setup(spec, {6, 4, 7, 5, 3}, rt::TargetKind::Class, spec.o, 71);
  const Grad g64 = batch_grad(s, first_n(5));
  auto m32 = test::make_cde<float>(spec);
  auto p32 = rt::prepare(m32->get(), s.data);
  REQUIRE(p32);
  std::vector<float> th32(s.theta.begin(), s.theta.end()), g32(th32.size(), 0.0f);
  const std::vector<int64_t> batch = first_n(5);
  rt::BatchLoss r = rt::loss_and_gradient<float>(m32->get(), p32.value(), batch, th32, g32);
  REQUIRE(r.ok());
  CHECK(r.loss == Approx(g64.r.loss).epsilon(1e-5));
  std::vector<double> g(g32.begin(), g32.end());
  CHECK(rel_err(g, g64.g) < 1e-4);
}

TEST_CASE("lanes that jump without a target add no loss (final readout with jumps)", "[batch]") {
  // Lane ends fall on other lanes' data times, where those lanes jump but have no target.
  test::CdeSpec spec;
  spec.task = PLASTIC_TASK_BINARY;
  spec.o = 1;
  spec.jump = true;
  const Setup s = make_setup(spec, {7, 4, 8, 5, 6}, rt::TargetKind::Binary, 2, 14);
  const Grad batch = batch_grad(s, first_n(5));
  double loss = 0;
  std::vector<double> mean(s.theta.size(), 0.0);
  for (int64_t i = 0; i < 5; ++i) {
    const Grad one = batch_grad(s, {i});
    loss += one.r.loss / 5;
    for (size_t k = 0; k < mean.size(); ++k)
      mean[k] += one.g[k] / 5;
  }
  CHECK(batch.r.terms == 5);
  CHECK(batch.r.loss == Approx(loss).epsilon(1e-12));
  CHECK(rel_err(batch.g, mean) < 1e-12);
}
