// Shared helpers of the solver tests: inputs, parameters, exact solutions,
// finite differences. Test kernels and helpers allocate freely; runtime
// kernels must not.
#pragma once

#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include <Eigen/Dense>
#include <unsupported/Eigen/MatrixFunctions>

#include "runtime/solvers/problem.h"
#include "runtime/solvers/solve.h"
#include "tests/runtime/solvers/test_models.h"

namespace plastic::test {

/// Deterministic pseudo-random numbers in [lo, hi).
inline std::vector<double> random_values(size_t count, unsigned seed, double lo = -1,
                                         double hi = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(count);
  for (double& x : v)
    x = dist(gen);
  return v;
}

template <class T> std::vector<T> cast_values(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

/// A = a fixed, well-conditioned 3x3 with complex eigenvalues (rotation plus decay); B random.
inline std::vector<double> linear_theta(int n, int m, unsigned seed = 7) {
  std::vector<double> th = random_values(static_cast<size_t>(n * n + n * m), seed, -0.6, 0.6);
  for (int i = 0; i < n; ++i)
    th[static_cast<size_t>(i * n + i)] -= 0.4; // decay
  if (n >= 2) {
    th[1] += 1.0;                      // A(0,1)
    th[static_cast<size_t>(n)] -= 1.0; // A(1,0): rotation
  }
  return th;
}

/// u = (cos t, sin t) for every lane.
template <class T> rt::InputFn<T> cos_sin_input(int L) {
  return [L](const rt::InputRequest& r, T* u) {
    for (int l = 0; l < L; ++l) {
      u[l] = static_cast<T>(std::cos(r.t));
      u[L + l] = static_cast<T>(std::sin(r.t));
    }
  };
}

/// Exact z(t1) of z' = A z + B (cos t, sin t) from z(t0) = z0 (one lane), via the
/// matrix exponential of the augmented linear system [z; cos t; sin t].
inline Eigen::VectorXd linear_exact(const std::vector<double>& theta, int n,
                                    const Eigen::VectorXd& z0, double t0, double t1) {
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n + 2, n + 2);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      M(i, j) = theta[static_cast<size_t>(i * n + j)];
    for (int k = 0; k < 2; ++k)
      M(i, n + k) = theta[static_cast<size_t>(n * n + i * 2 + k)];
  }
  M(n, n + 1) = -1.0; // (cos t)' = -sin t
  M(n + 1, n) = 1.0;  // (sin t)' = cos t
  Eigen::VectorXd w0(n + 2);
  w0.head(n) = z0;
  w0(n) = std::cos(t0);
  w0(n + 1) = std::sin(t0);
  const Eigen::MatrixXd E = (M * (t1 - t0)).exp();
  return (E * w0).head(n);
}

/// Lane l of an interleaved tile.
template <class T> Eigen::VectorXd lane_of(const std::vector<T>& tile, int n, int L, int l) {
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i)
    v(i) = static_cast<double>(tile[static_cast<size_t>(i * L + l)]);
  return v;
}

/// u_x(t) = sin(w_x t + 0.3 (l + first_lane)) + 0.2 x, the Delta model's input path
/// (per-lane phase; first_lane lets a one-lane solve reproduce lane l of a tile).
template <class T>
rt::InputFn<T> wave_input(int L, int d_in, double amplitude = 1.0, int first_lane = 0) {
  return [L, d_in, amplitude, first_lane](const rt::InputRequest& r, T* u) {
    for (int x = 0; x < d_in; ++x)
      for (int l = 0; l < L; ++l)
        u[x * L + l] = static_cast<T>(
            amplitude * std::sin((1.3 - 0.6 * x) * r.t + 0.3 * (l + first_lane)) + 0.2 * x);
  };
}

/// Central finite difference of f at x along coordinate i.
inline double central_difference(const std::function<double(const std::vector<double>&)>& f,
                                 std::vector<double> x, size_t i, double eps) {
  const double x0 = x[i];
  x[i] = x0 + eps;
  const double fp = f(x);
  x[i] = x0 - eps;
  const double fm = f(x);
  return (fp - fm) / (2 * eps);
}

/// Least-squares slope of log(err) against log(h).
inline double loglog_slope(const std::vector<double>& h, const std::vector<double>& err) {
  double mx = 0, my = 0;
  const double n = static_cast<double>(h.size());
  for (size_t i = 0; i < h.size(); ++i) {
    mx += std::log(h[i]) / n;
    my += std::log(err[i]) / n;
  }
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    sxy += (std::log(h[i]) - mx) * (std::log(err[i]) - my);
    sxx += (std::log(h[i]) - mx) * (std::log(h[i]) - mx);
  }
  return sxy / sxx;
}

} // namespace plastic::test
