// A small training-like problem for the gradient tests: the Delta-rule
// model on a tile of L lanes, with an input path, observations carrying
// targets (one with a jump) and optional per-lane series lengths; plus the
// loss as a function of (theta, z0) for finite differences.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/gradients/gradient.h"
#include "runtime/solvers/solve.h"
#include "tests/runtime/solvers/test_support.h"

namespace plastic::test {

struct GradientCase {
  int L = 2;
  TestModel<double> model = delta_model<double>(2);
  std::vector<double> theta, z0;
  std::vector<double> t_end{2.0};
  std::vector<double> obs_times{0.7, 1.3, 2.0};
  std::vector<bool> obs_jump{true, false, false};
  std::vector<rt::LaneMask> obs_lanes{~rt::LaneMask{0}, ~rt::LaneMask{0}, ~rt::LaneMask{0}};
  std::vector<std::vector<double>> targets;
  double input_scale = 1.0;
  std::vector<double> knots;

  explicit GradientCase(int lanes = 2) : L(lanes), model(delta_model<double>(lanes)) {
    const plastic_model& m = *model.get();
    theta = random_values(static_cast<size_t>(m.n_params), 101, -0.9, 0.9);
    z0 = random_values(static_cast<size_t>(m.n_state * L), 102, -0.5, 0.5);
    for (size_t k = 0; k < obs_times.size(); ++k)
      targets.push_back(random_values(static_cast<size_t>(m.n_outputs * L),
                                      103 + static_cast<unsigned>(k), -0.5, 0.5));
  }

  /// Observations pointing into `targets`; valid while this object lives.
  std::vector<rt::Observation<double>> observations() const {
    std::vector<rt::Observation<double>> obs;
    for (size_t k = 0; k < obs_times.size(); ++k)
      obs.push_back(
          {obs_times[k], obs_lanes[k], targets[k].data(), static_cast<bool>(obs_jump[k])});
    return obs;
  }

  rt::TileProblem<double> problem(const std::vector<double>& th,
                                  const std::vector<rt::Observation<double>>& obs) const {
    rt::TileProblem<double> p;
    p.model = model.get();
    p.theta = th.data();
    p.t0 = 0.0;
    p.t_end = t_end;
    p.observations = obs;
    p.knots = knots;
    const rt::InputFn<double> wave = wave_input<double>(L, model.ctx->d_in);
    const double scale = input_scale;
    const int m = model.ctx->d_in * L;
    p.input = [wave, scale, m](const rt::InputRequest& r, double* u) {
      wave(r, u);
      for (int i = 0; i < m; ++i)
        u[i] *= scale;
    };
    return p;
  }

  /// Total loss (all lanes) of a forward solve.
  double loss(const rt::SolverOptions& o, const std::vector<double>& th,
              const std::vector<double>& z) const {
    const auto obs = observations();
    const rt::TileProblem<double> p = problem(th, obs);
    std::vector<double> state = z, lane_loss(static_cast<size_t>(L), 0.0);
    const rt::SolveResult r = rt::solve(p, o, state.data(), nullptr, lane_loss.data());
    if (!r.ok()) return NAN;
    double s = 0;
    for (double x : lane_loss)
      s += x;
    return s;
  }

  struct Gradient {
    std::vector<double> theta_bar, z0_bar, loss;
    rt::GradientResult result;
    double total_loss() const {
      double s = 0;
      for (double x : loss)
        s += x;
      return s;
    }
  };

  Gradient gradient(const rt::SolverOptions& o, const rt::GradientOptions& g) const {
    const auto obs = observations();
    const rt::TileProblem<double> p = problem(theta, obs);
    Gradient out;
    out.theta_bar.assign(theta.size(), 0.0);
    out.z0_bar.assign(z0.size(), 0.0);
    out.loss.assign(static_cast<size_t>(L), 0.0);
    rt::GradientOutputs<double> buffers;
    buffers.theta_bar = out.theta_bar.data();
    buffers.z0_bar = out.z0_bar.data();
    buffers.loss = out.loss.data();
    out.result = rt::loss_and_gradient(p, o, g, z0.data(), buffers);
    return out;
  }

  /// Central differences of the total loss w.r.t. theta and z0 (concatenated).
  std::vector<double> finite_differences(const rt::SolverOptions& o, double eps) const {
    std::vector<double> fd;
    for (size_t i = 0; i < theta.size(); ++i)
      fd.push_back(central_difference(
          [&](const std::vector<double>& th) { return loss(o, th, z0); }, theta, i, eps));
    for (size_t i = 0; i < z0.size(); ++i)
      fd.push_back(central_difference(
          [&](const std::vector<double>& z) { return loss(o, theta, z); }, z0, i, eps));
    return fd;
  }
};

/// [theta_bar, z0_bar] of a gradient.
inline std::vector<double> concat(const GradientCase::Gradient& g) {
  std::vector<double> v = g.theta_bar;
  v.insert(v.end(), g.z0_bar.begin(), g.z0_bar.end());
  return v;
}

/// max |x - ref| / max |ref|.
inline double relative_error(const std::vector<double>& x, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    num = std::max(num, std::abs(x[i] - ref[i]));
    den = std::max(den, std::abs(ref[i]));
  }
  return num / den;
}

inline rt::GradientOptions method(rt::GradientMethod m, int64_t every = 0) {
  rt::GradientOptions g;
  g.method = m;
  g.checkpoint_every = every;
  return g;
}

} // namespace plastic::test
