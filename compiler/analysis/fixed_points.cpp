// The fixed-point finder (see fixed_points.h).
#include "compiler/analysis/fixed_points.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <fmt/format.h>

#include "compiler/analysis/field_jacobian.h"
#include "runtime/support/rng.h"

namespace plastic::analysis {

namespace {

// Where one start ended.
struct End {
  Eigen::VectorXd z;
  double speed = std::numeric_limits<double>::infinity();
};

// f at z, or nullopt where it is not finite.
std::optional<Eigen::VectorXd> value_at(const ir::Function& field, TensorMap& leaves,
                                        const Eigen::VectorXd& z) {
  set_state(field, z, leaves);
  try {
    return field_value(field, leaves);
  } catch (const ir::IRError&) {
    return std::nullopt;
  }
}

// Levenberg–Marquardt on q = ½‖f‖² from z0 (see the file comment of
// fixed_points.h). Ends at ‖f‖ ≤ tolerance / 1000, or where no step decreases q
// any more (a local minimum: perhaps a slow point), or after max_iterations.
std::optional<End> minimise(const ir::Function& field, const ir::Function& vjp, TensorMap leaves,
                            const Eigen::VectorXd& z0, const FixedPointOptions& o) {
  End e{z0, 0};
  std::optional<Eigen::VectorXd> f = value_at(field, leaves, e.z);
  if (!f) return std::nullopt;
  e.speed = f->norm();
  double mu = -1;
  // Past the tolerance, to a thousandth of it: ends at a degenerate root
  // (where Newton converges only linearly) then lie close enough to merge.
  const double polished = 1e-3 * o.tolerance;
  for (int64_t it = 0; it < o.max_iterations && e.speed > polished; ++it) {
    set_state(field, e.z, leaves);
    Eigen::MatrixXd J;
    try {
      J = field_jacobian(field, vjp, leaves);
    } catch (const ir::IRError&) {
      return std::nullopt;
    }
    const Eigen::MatrixXd A = J.transpose() * J;
    const Eigen::VectorXd g = J.transpose() * *f;
    if (mu < 0) mu = 1e-6 * std::max(A.diagonal().maxCoeff(), 1e-12);
    bool accepted = false;
    bool stalled = false;
    while (!accepted && !stalled) {
      const Eigen::MatrixXd damped = A + mu * Eigen::MatrixXd::Identity(A.rows(), A.cols());
      const Eigen::VectorXd step = damped.ldlt().solve(-g);
      const Eigen::VectorXd z = e.z + step;
      if (step.allFinite()) {
        if (std::optional<Eigen::VectorXd> fz = value_at(field, leaves, z);
            fz && fz->norm() < e.speed) {
          e.z = z;
          f = fz;
          e.speed = fz->norm();
          mu = std::max(mu / 3, 1e-300);
          accepted = true;
          // A step that no longer moves z: a minimum of q, not a root.
          if (step.norm() <= 1e-15 * (1 + e.z.norm())) stalled = true;
          continue;
        }
      }
      mu *= 4;
      stalled = !(mu < 1e30 * std::max(A.diagonal().maxCoeff(), 1e-12));
    }
    if (stalled) break;
  }
  if (!e.z.allFinite()) return std::nullopt;
  return e;
}

// The starts: states along trajectories of the data (with their own
// inputs), or the origin and standard-normal states.
std::vector<Eigen::VectorXd> starting_states(const model::ModelFunctions& fns,
                                             const abi::ModelLayout& layout,
                                             const std::vector<double>& theta,
                                             const ir::Function& field, int64_t n,
                                             const FixedPointOptions& o) {
  std::vector<Eigen::VectorXd> starts;
  if (o.data) {
    const int64_t samples =
        std::max<int64_t>(1, std::min<int64_t>(o.samples, static_cast<int64_t>(o.data->size())));
    const int64_t per_sample = (o.starts + samples - 1) / samples;
    for (const TrajectoryState& s :
         trajectory_states(fns, layout, theta, *o.data, samples, per_sample))
      if (static_cast<int64_t>(starts.size()) < o.starts)
        starts.push_back(state_vector(field, s.leaves));
    return starts;
  }
  rt::Rng rng(o.seed, 0x66697865); // "fixe": a stream of its own
  if (o.starts > 0) starts.emplace_back(Eigen::VectorXd::Zero(n));
  while (static_cast<int64_t>(starts.size()) < o.starts) {
    Eigen::VectorXd z(n);
    for (Eigen::Index i = 0; i < n; ++i)
      z(i) = rng.normal();
    starts.push_back(z);
  }
  return starts;
}

std::string number(double v) {
  return std::isfinite(v) ? fmt::format("{:.4g}", v) : std::string(v > 0 ? "inf" : "nan");
}

} // namespace

const char* kind_name(FixedPointKind k) {
  switch (k) {
  case FixedPointKind::Stable:
    return "stable";
  case FixedPointKind::Marginal:
    return "marginal";
  case FixedPointKind::Saddle:
    return "saddle";
  case FixedPointKind::Unstable:
    return "unstable";
  }
  return "?";
}

double FixedPoint::spectral_radius() const {
  double r = 0;
  for (std::complex<double> l : lambda)
    r = std::max(r, std::abs(l));
  return r;
}

int64_t FixedPointReport::count(FixedPointKind k, bool slow) const {
  return std::count_if(points.begin(), points.end(),
                       [&](const FixedPoint& p) { return p.kind == k && p.slow == slow; });
}

void classify(FixedPoint& p, double marginal) {
  std::sort(p.lambda.begin(), p.lambda.end(), [](auto a, auto b) { return a.real() > b.real(); });
  const double eps = marginal * p.spectral_radius();
  p.unstable =
      std::count_if(p.lambda.begin(), p.lambda.end(), [&](auto l) { return l.real() > eps; });
  p.marginal = std::count_if(p.lambda.begin(), p.lambda.end(),
                             [&](auto l) { return std::abs(l.real()) <= eps; });
  const auto n = static_cast<int64_t>(p.lambda.size());
  if (p.unstable == 0)
    p.kind = p.marginal > 0 ? FixedPointKind::Marginal : FixedPointKind::Stable;
  else
    p.kind = p.unstable + p.marginal < n ? FixedPointKind::Saddle : FixedPointKind::Unstable;
}

FixedPointReport find_fixed_points(const model::ModelFunctions& fns, const abi::ModelLayout& layout,
                                   const std::vector<double>& theta,
                                   const FixedPointOptions& options) {
  const ir::Function* field = fns.find(model::FnKind::Field);
  const ir::Function* vjp = fns.find(model::FnKind::FieldVjp);
  if (!field || !vjp) throw ir::IRError("the model has no field to analyse");
  const TensorMap held = constant_input_leaves(fns, layout, theta, options.input);
  const Eigen::Index n = state_vector(*field, held).size();

  FixedPointReport r;
  r.input = options.input;
  r.state_size = n;
  std::vector<End> ends;
  for (const Eigen::VectorXd& z0 : starting_states(fns, layout, theta, *field, n, options)) {
    ++r.starts;
    r.start_states.emplace_back(z0.data(), z0.data() + z0.size());
    std::optional<End> e = minimise(*field, *vjp, held, z0, options);
    if (!e || !(e->speed <= options.slow_tolerance)) {
      ++r.to_nowhere;
      continue;
    }
    ++(e->speed <= options.tolerance ? r.to_fixed : r.to_slow);
    ends.push_back(std::move(*e));
  }

  // Merge: the slowest end of a cluster represents it (a fixed point
  // before a slow point near it).
  std::sort(ends.begin(), ends.end(), [](const End& a, const End& b) { return a.speed < b.speed; });
  std::vector<std::pair<End, int64_t>> merged;
  for (End& e : ends) {
    auto same = std::find_if(merged.begin(), merged.end(), [&](const auto& m) {
      return (m.first.z - e.z).norm() <= options.merge * (1 + m.first.z.norm());
    });
    if (same != merged.end())
      ++same->second;
    else
      merged.emplace_back(std::move(e), 1);
  }

  const ir::Function* readout = fns.find(model::FnKind::ObservationOutputs);
  std::optional<TensorMap> readout_leaves;
  if (readout) readout_leaves = constant_input_leaves(fns, *readout, layout, theta, options.input);
  for (const auto& [e, hits] : merged) {
    FixedPoint p;
    if (readout_leaves) {
      set_state(*field, e.z, *readout_leaves);
      CheckedResult out = evaluate_checked(*readout, *readout_leaves);
      for (const Tensor<double>& x : out.outputs)
        p.outputs.insert(p.outputs.end(), x.data.begin(), x.data.end());
    }
    p.z.assign(e.z.data(), e.z.data() + e.z.size());
    p.speed = e.speed;
    p.slow = e.speed > options.tolerance;
    p.hits = hits;
    TensorMap at = held;
    set_state(*field, e.z, at);
    try {
      Eigen::EigenSolver<Eigen::MatrixXd> es(field_jacobian(*field, *vjp, at),
                                             /*computeEigenvectors=*/false);
      for (Eigen::Index i = 0; i < es.eigenvalues().size(); ++i)
        p.lambda.push_back(es.eigenvalues()[i]);
    } catch (const ir::IRError&) {
      continue; // f is finite there but its Jacobian is not: nothing to classify
    }
    classify(p, options.marginal);
    r.points.push_back(std::move(p));
  }
  auto norm = [](const FixedPoint& p) {
    double s = 0;
    for (double v : p.z)
      s += v * v;
    return s;
  };
  std::stable_sort(r.points.begin(), r.points.end(), [&](const FixedPoint& a, const FixedPoint& b) {
    if (a.slow != b.slow) return !a.slow;
    return norm(a) < norm(b);
  });
  return r;
}

std::string format_fixed_points(const FixedPointReport& r) {
  std::string s;
  s += fmt::format("inputs held at       {:g}\n", r.input);
  s += fmt::format("starts               {}: {} to a fixed point, {} to a slow point, {} to "
                   "neither\n",
                   r.starts, r.to_fixed, r.to_slow, r.to_nowhere);
  auto counts = [&](bool slow) {
    return fmt::format(
        "{} stable, {} marginal, {} saddle, {} unstable", r.count(FixedPointKind::Stable, slow),
        r.count(FixedPointKind::Marginal, slow), r.count(FixedPointKind::Saddle, slow),
        r.count(FixedPointKind::Unstable, slow));
  };
  const auto slow =
      std::count_if(r.points.begin(), r.points.end(), [](const FixedPoint& p) { return p.slow; });
  s += fmt::format("fixed points         {} ({})\n", static_cast<int64_t>(r.points.size()) - slow,
                   counts(false));
  s += fmt::format("slow points          {} ({})\n", slow, counts(true));
  if (r.points.empty()) return s;
  s += "\n     # kind      unstable     ‖f‖   max Re λ     max |λ|  hits  z; outputs\n";
  for (size_t i = 0; i < r.points.size(); ++i) {
    const FixedPoint& p = r.points[i];
    std::string z;
    for (size_t k = 0; k < std::min<size_t>(p.z.size(), 6); ++k)
      z += fmt::format("{}{:.3f}", k ? " " : "", p.z[k]);
    if (p.z.size() > 6) z += fmt::format(" … ({} more)", p.z.size() - 6);
    if (!p.outputs.empty()) {
      z += "]; [";
      for (size_t k = 0; k < std::min<size_t>(p.outputs.size(), 6); ++k)
        z += fmt::format("{}{:.3f}", k ? " " : "", p.outputs[k]);
      if (p.outputs.size() > 6) z += " …";
    }
    s += fmt::format("  {:>4} {:<9}{:>9} {:>9} {:>10} {:>11} {:>5}  [{}]\n", i,
                     std::string(kind_name(p.kind)) + (p.slow ? "*" : ""), p.unstable,
                     fmt::format("{:.1e}", p.speed), number(p.spectral_abscissa()),
                     number(p.spectral_radius()), p.hits, z);
  }
  if (slow > 0) s += "  (* a slow point: a local minimum of ½‖f‖² above the tolerance)\n";
  return s;
}

nlohmann::json fixed_points_json(const FixedPointReport& r) {
  nlohmann::json points = nlohmann::json::array();
  for (const FixedPoint& p : r.points) {
    nlohmann::json eig = nlohmann::json::array();
    for (std::complex<double> l : p.lambda)
      eig.push_back({{"re", l.real()}, {"im", l.imag()}});
    points.push_back({{"z", p.z},
                      {"outputs", p.outputs},
                      {"speed", p.speed},
                      {"slow", p.slow},
                      {"kind", kind_name(p.kind)},
                      {"unstable", p.unstable},
                      {"marginal", p.marginal},
                      {"spectral_abscissa", p.spectral_abscissa()},
                      {"spectral_radius", p.spectral_radius()},
                      {"hits", p.hits},
                      {"eigenvalues", eig}});
  }
  nlohmann::json counts;
  for (FixedPointKind k : {FixedPointKind::Stable, FixedPointKind::Marginal, FixedPointKind::Saddle,
                           FixedPointKind::Unstable})
    counts[kind_name(k)] = r.count(k, /*slow=*/false);
  return {{"input", r.input},       {"state_size", r.state_size},
          {"starts", r.starts},     {"to_fixed", r.to_fixed},
          {"to_slow", r.to_slow},   {"to_nowhere", r.to_nowhere},
          {"fixed_points", counts}, {"points", points}};
}

} // namespace plastic::analysis
