// Stability-informed initialisation, paper 004 Sec. 4 / Algorithm 1 (see
// stability_informed.h).
//
// Correspondence with the paper, step by step:
//  1. Algorithm 1 (sample_eigenvalues): draw mu ~ U(-R, -0.1) and, while a
//     conjugate pair still fits and use_complex is set, omega ~ U(-R, R);
//     z = mu + j omega is accepted when |R_method(z)| < 1 - epsilon, and then
//     lambda = z / h (and its conjugate) joins the set E, until |E| = d_x.
//     The paper's guard reads "|E| < d_x - 2"; taken literally it would never
//     produce a pair for d_x = 2 although Eq. 10 shows exactly that case, so
//     the guard implemented is "a pair still fits": |E| + 2 <= d_x.
//  2. Eqs. 6–8 (root_blocks): each eigenvalue is spread over the n layers by
//     an n-th root, real ones on the diagonal, pairs as the 2x2 block
//     J = [mu w; -w mu] of Eq. 7. The paper takes the principal root of
//     lambda itself, which for a negative real lambda and even n is not real;
//     here the root is taken of -lambda (positive real for real lambda) and
//     the sign is put on the first layer, so every factor is real and
//     -(root^n) = lambda. (The authors' code does the same for real poles.)
//  3. Eqs. 10 and 12 (lambda_matrix): Lambda_i is the d_hi x d_h(i-1) matrix
//     with the root blocks in its top-left d_x x d_x corner and zeros
//     elsewhere; Lambda_1 also gets the input columns nu ~ U(-zeta, zeta),
//     zeta = mean |mu_k| of the root blocks' diagonal (Eq. 12; the authors'
//     code uses the same mean). The state comes first in the MLP's input
//     (paper: x ⊕ u), so columns d_x .. d_in-1 of W_1 are the inputs.
//  4. Eq. 9: W_1 = Pi_1 Lambda_1, W_i = Pi_i Lambda_i Pi_{i-1}^T,
//     W_n = Lambda_n Pi_{n-1}^T with Pi_i Haar-orthogonal (QR of a Gaussian
//     with sign correction, Mezzadri); n = 1 gives W_1 = Lambda_1.
//  5. Eq. 13: biases ~ U(-1e-4, 1e-4).
//  6. Guard (not in the paper): A = W_n ... W_1 restricted to the state
//     columns (Eq. 5 with kappa = 1: the Jacobian of the MLP at x = 0, biases
//     and activation curvature neglected as in the paper) is recomputed from
//     the stored, rounded weights; its eigenvalues (Eigen::EigenSolver) must
//     satisfy Eq. 3 with half of Algorithm 1's margin, |R_method(h lambda)| <
//     1 - epsilon/2, or the whole network is re-drawn. Half the margin lets
//     round-off (f32 storage) through but rejects a network whose weights
//     underflowed (eigenvalue 0 has |R| = 1, on the boundary: an absurd h in
//     f32). The draws of every attempt count against `tries`.
// Activation slope kappa: the paper scales W_i by 1/kappa_i when the
// activation's slope at 0 is not 1 (Sec. 4.1). The parameter table does not
// say which activation follows a layer, so kappa = 1 is assumed: right for
// ReLU, ELU and tanh, not for sigmoid (1/4) or GELU (1/2), whose eigenvalues
// then come out scaled towards 0 (still inside the region, Sec. 4.1).
#include "runtime/init/stability_informed.h"

#include <algorithm>
#include <cmath>
#include <complex>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "runtime/init/orthogonal.h"
#include "runtime/init/param_dims.h"
#include "runtime/init/stability_polynomial.h"
#include "runtime/solvers/tableau.h"

namespace plastic::rt::init_detail {

namespace {

using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using cd = std::complex<double>;

struct Args {
  double h = 0.0;
  double radius = 3.0;
  int64_t tries = 0;
  bool use_complex = false;
};

std::string tableau_names() {
  std::string s;
  for (const ButcherTableau& t : all_tableaus())
    s += (s.empty() ? "" : ", ") + std::string(t.name);
  return s;
}

/// Algorithm 1. Returns the accepted eigenvalues lambda = z/h (conjugate pairs
/// adjacent), or an empty vector when `tries` ran out; `draws`/`rejected`
/// accumulate across attempts.
std::vector<cd> sample_eigenvalues(int64_t dx, const Args& a, const std::vector<double>& poly,
                                   Rng& rng, int64_t& draws, int64_t& rejected) {
  std::vector<cd> e;
  while (static_cast<int64_t>(e.size()) < dx) {
    if (draws >= a.tries) return {};
    ++draws;
    // Both coordinates are always drawn so the stream position does not depend
    // on which branch was taken.
    const double mu = rng.uniform(-a.radius, kStabilityMuMax);
    const double w = rng.uniform(-a.radius, a.radius);
    const bool pair_fits = static_cast<int64_t>(e.size()) + 2 <= dx;
    const double omega = (a.use_complex && pair_fits) ? w : 0.0;
    const cd z(mu, omega);
    if (!(amplification(poly, z) < 1.0 - kStabilityMargin)) {
      ++rejected;
      continue;
    }
    e.push_back(z / a.h);
    if (omega != 0.0) e.push_back(std::conj(z) / a.h);
  }
  return e;
}

/// Eqs. 6–8: the d_x x d_x real matrix M with -M^n having eigenvalues `e`.
Mat root_blocks(const std::vector<cd>& e, int64_t n) {
  const auto dx = static_cast<Eigen::Index>(e.size());
  Mat m = Mat::Zero(dx, dx);
  for (Eigen::Index k = 0; k < dx;) {
    const cd root = std::pow(-e[static_cast<size_t>(k)], 1.0 / static_cast<double>(n));
    if (e[static_cast<size_t>(k)].imag() == 0.0) {
      m(k, k) = root.real(); // (-lambda)^(1/n) > 0 for lambda < 0
      k += 1;
    } else {
      // Eq. 7 block [mu w; -w mu] represents the complex number mu + j w;
      // products of such blocks multiply those numbers.
      m(k, k) = m(k + 1, k + 1) = root.real();
      m(k, k + 1) = root.imag();
      m(k + 1, k) = -root.imag();
      k += 2;
    }
  }
  return m;
}

TrainError group_error(const std::string& where, const std::string& what,
                       const std::string& advice = {}) {
  return invalid_argument_error(fmt::format("stability_informed {}: {}", where, what), advice);
}

} // namespace

Result<StabilityGroupReport, TrainError> init_stability_group(int32_t group,
                                                              std::vector<StabilityMember> members,
                                                              const StabilityContext& ctx,
                                                              Rng& rng) {
  // --- Assemble the MLP: weights in init_index order, biases apart.
  std::vector<StabilityMember> weights, biases;
  for (const StabilityMember& m : members) {
    if (m.param->rank == 2)
      weights.push_back(m);
    else if (m.param->rank <= 1)
      biases.push_back(m);
    else
      return group_error(
          param_label(*m.param),
          fmt::format("needs weight matrices [out, in] or bias vectors, got shape {}",
                      shape_string(*m.param)),
          "paper 004 Eq. 4 is a plain MLP; batched weights are not covered");
  }
  const std::string where = group >= 0 ? fmt::format("group {}", group)
                                       : (weights.empty() ? param_label(*members.front().param)
                                                          : param_label(*weights.front().param));
  if (weights.empty())
    return group_error(where, "has no weight matrix (only bias vectors)",
                       "put the MLP's weights in the same init_group as its biases");
  std::stable_sort(weights.begin(), weights.end(), [](const auto& x, const auto& y) {
    return x.param->init_index < y.param->init_index;
  });
  for (size_t i = 1; i < weights.size(); ++i)
    if (weights[i].param->init_index == weights[i - 1].param->init_index)
      return group_error(where,
                         fmt::format("weights {} and {} share init_index {}",
                                     param_label(*weights[i - 1].param),
                                     param_label(*weights[i].param), weights[i].param->init_index),
                         "this is a bug in the compiler's parameter table (layer order)");

  // --- Arguments (from the first layer; every member must agree).
  const plastic_param& first = *weights.front().param;
  for (const StabilityMember& m : members)
    for (int k = 0; k < 4; ++k)
      if (!(m.param->init_args[k] == first.init_args[k] ||
            (std::isnan(m.param->init_args[k]) && std::isnan(first.init_args[k]))))
        return group_error(where,
                           fmt::format("{} and {} disagree on init_args[{}] ({} vs {})",
                                       param_label(first), param_label(*m.param), k,
                                       first.init_args[k], m.param->init_args[k]),
                           "this is a bug in the compiler's parameter table");
  const int64_t n = static_cast<int64_t>(weights.size());
  std::vector<int64_t> rows, cols;
  for (const StabilityMember& w : weights) {
    rows.push_back(w.param->shape[0]);
    cols.push_back(w.param->shape[1]);
  }
  const int64_t dx = rows.back(), din = cols.front();
  for (int64_t i = 1; i < n; ++i)
    if (cols[static_cast<size_t>(i)] != rows[static_cast<size_t>(i - 1)])
      return group_error(where,
                         fmt::format("layers do not chain: {} has shape {} after {} with shape {}",
                                     param_label(*weights[static_cast<size_t>(i)].param),
                                     shape_string(*weights[static_cast<size_t>(i)].param),
                                     param_label(*weights[static_cast<size_t>(i - 1)].param),
                                     shape_string(*weights[static_cast<size_t>(i - 1)].param)),
                         "check the init_index order the compiler assigned");
  if (dx < 1 || din < dx)
    return group_error(where,
                       fmt::format("the first layer takes {} inputs but the state has {} (the "
                                   "field's output width); the input must be [x; u] with x first",
                                   din, dx));
  for (int64_t i = 0; i + 1 < n; ++i)
    if (rows[static_cast<size_t>(i)] < dx)
      return group_error(
          where,
          fmt::format("hidden layer {} has width {} < state dimension {}; paper 004 Sec. 4 assumes "
                      "no layer is narrower than the state, or eigenvalues are lost",
                      param_label(*weights[static_cast<size_t>(i)].param),
                      rows[static_cast<size_t>(i)], dx),
          "widen the hidden layers or use another initialiser (e.g. uniform_fan_in)");

  // --- The method's stability polynomial (Eq. 3 for s = p <= 4).
  if (ctx.solver.empty())
    return group_error(where, "no solver given, so its stability region is unknown",
                       "pass InitOptions::solver or use the model overload (which reads the "
                       "model's `solve` method)");
  const ButcherTableau* tableau = find_tableau(ctx.solver);
  if (!tableau)
    return group_error(where, fmt::format("unknown solver '{}' (known explicit methods: {})",
                                          ctx.solver, tableau_names()));
  const std::vector<double> poly = stability_polynomial(*tableau);

  Args a;
  a.h = first.init_args[0] != 0.0 ? first.init_args[0] : ctx.fallback_step;
  if (!(std::isfinite(a.h) && a.h > 0))
    return group_error(where,
                       fmt::format("the solver step h must be positive and finite, got {}", a.h),
                       "set the step in init_args[0] (the `solve ... step h` of the model) or "
                       "InitOptions::step");
  a.radius = first.init_args[1] != 0.0 ? first.init_args[1] : 3.0;
  if (!(std::isfinite(a.radius) && a.radius > -kStabilityMuMax))
    return group_error(where,
                       fmt::format("the sampling radius (init_args[1]) must exceed {} and be "
                                   "finite, got {}",
                                   -kStabilityMuMax, a.radius));
  const double tries = first.init_args[2];
  if (!(tries >= 0 && tries <= 1e15 && std::floor(tries) == tries))
    return group_error(
        where, fmt::format("tries (init_args[2]) must be a whole number >= 0, got {}", tries));
  a.tries = tries > 0 ? static_cast<int64_t>(tries) : 100 * dx + 100;
  a.use_complex = first.init_args[3] != 0.0;

  StabilityGroupReport report;
  report.group = group;
  report.first_param = first.name ? first.name : "";
  report.solver = ctx.solver;
  report.h = a.h;
  report.state_dim = dx;

  auto round = [&](Mat& w) {
    if (ctx.single_precision)
      for (Eigen::Index k = 0; k < w.size(); ++k)
        w.data()[k] = static_cast<double>(static_cast<float>(w.data()[k]));
  };

  while (true) {
    ++report.attempts;
    const std::vector<cd> e = sample_eigenvalues(dx, a, poly, rng, report.draws, report.rejected);
    if (e.empty())
      return group_error(
          where,
          fmt::format("no stable sample after {} draws of Algorithm 1 ({} outside the region; "
                      "{} built network(s) failed the eigenvalue check) for {} with h = {} and "
                      "d_x = {}",
                      report.draws, report.rejected, report.attempts - 1, ctx.solver, a.h, dx),
          fmt::format("raise tries (init_args[2], now {}) or lower the sampling radius "
                      "(init_args[1], now {}); Algorithm 1 needs at least {} accepted draws",
                      a.tries, a.radius, a.use_complex ? (dx + 1) / 2 : dx));
    const Mat m = root_blocks(e, n);

    // Lambda_i (Eqs. 10, 12) and Pi_i, then W_i by Eq. 9.
    std::vector<Mat> w(static_cast<size_t>(n));
    Mat pi_prev; // Pi_{i-1}
    for (int64_t i = 0; i < n; ++i) {
      const auto r = static_cast<Eigen::Index>(rows[static_cast<size_t>(i)]);
      const auto c = static_cast<Eigen::Index>(cols[static_cast<size_t>(i)]);
      Mat lambda = Mat::Zero(r, c);
      lambda.topLeftCorner(dx, dx) = (i == 0) ? Mat(-m) : m;
      if (i == 0 && din > dx) {
        const double zeta = m.diagonal().cwiseAbs().mean();
        for (Eigen::Index row = 0; row < dx; ++row)
          for (Eigen::Index col = dx; col < c; ++col)
            lambda(row, col) = rng.uniform(-zeta, zeta);
      }
      Mat wi = (i == 0) ? lambda : Mat(lambda * pi_prev.transpose());
      if (i + 1 < n) {
        Mat pi(r, r);
        semi_orthogonal(r, r, 1.0, rng, std::span<double>(pi.data(), static_cast<size_t>(r * r)));
        wi = pi * wi;
        pi_prev = std::move(pi);
      }
      round(wi);
      w[static_cast<size_t>(i)] = std::move(wi);
    }

    // Guard: eigenvalues of A = W_n ... W_1 (state columns), Eq. 5 with kappa = 1.
    Mat prod = w.front().leftCols(dx);
    for (int64_t i = 1; i < n; ++i)
      prod = w[static_cast<size_t>(i)] * prod;
    Eigen::EigenSolver<Eigen::MatrixXd> es(Eigen::MatrixXd(prod), /*computeEigenvectors=*/false);
    if (es.info() != Eigen::Success) continue;
    double worst = 0.0;
    std::vector<cd> ev;
    for (Eigen::Index k = 0; k < es.eigenvalues().size(); ++k) {
      const cd lam = es.eigenvalues()[k];
      ev.push_back(lam);
      worst = std::max(worst, amplification(poly, a.h * lam));
    }
    // Eq. 3 with half the margin violated (or NaN): draw the network again.
    if (!(worst < 1.0 - 0.5 * kStabilityMargin)) continue;

    report.eigenvalues = std::move(ev);
    report.max_amplification = worst;
    for (int64_t i = 0; i < n; ++i) {
      const Mat& wi = w[static_cast<size_t>(i)];
      std::copy(wi.data(), wi.data() + wi.size(), weights[static_cast<size_t>(i)].out.begin());
    }
    break;
  }

  // Eq. 13: b_i ~ U(-eps, eps), eps = 1e-4.
  for (const StabilityMember& b : biases)
    for (double& x : b.out)
      x = rng.uniform(-kStabilityBiasBound, kStabilityBiasBound);
  return report;
}

} // namespace plastic::rt::init_detail
