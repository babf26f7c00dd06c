// Helpers shared by the compiler-core tests: random tensors and the
// finite-difference derivative check every VJP/JVP test uses.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "compiler/autodiff/function_ad.h"
#include "compiler/interp/interpreter.h"
#include "compiler/ir/function.h"

namespace plastic::test {

using interp::Tensor;
using Rng = std::mt19937_64;

/// Uniform in [lo, hi]; with `gap` > 0, values closer than `gap` to zero are
/// pushed away from it (to keep relu/abs/step/sign off their kinks).
inline Tensor<double> random_tensor(const ir::Shape& shape, Rng& rng, double lo = -1.0,
                                    double hi = 1.0, double gap = 0.0) {
  std::uniform_real_distribution<double> u(lo, hi);
  Tensor<double> t(shape);
  for (double& v : t.data) {
    v = u(rng);
    if (gap > 0 && std::abs(v) < gap) v = v < 0 ? v - gap : v + gap;
  }
  return t;
}

/// Random tensors matching the inputs of f.
inline std::vector<Tensor<double>> random_inputs(const ir::Function& f, Rng& rng, double lo = -1.0,
                                                 double hi = 1.0) {
  std::vector<Tensor<double>> xs;
  for (const ir::Node* in : f.inputs())
    xs.push_back(random_tensor(in->shape(), rng, lo, hi));
  return xs;
}

inline double dot(const Tensor<double>& a, const Tensor<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.data.size(); ++i)
    s += a.data[i] * b.data[i];
  return s;
}

inline double abs_dot(const Tensor<double>& a, const Tensor<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.data.size(); ++i)
    s += std::abs(a.data[i] * b.data[i]);
  return s;
}

/// Directional derivative of f's outputs at x along v (zero entries of `v`
/// may be empty tensors = no perturbation), by the 4-point central stencil:
/// error O(eps^4), so eps = 1e-3 gives ~1e-12 relative accuracy.
inline std::vector<Tensor<double>> fd_directional(const ir::Function& f,
                                                  const std::vector<Tensor<double>>& x,
                                                  const std::vector<Tensor<double>>& v,
                                                  double eps = 1e-3) {
  auto at = [&](double s) {
    std::vector<Tensor<double>> xs = x;
    for (size_t i = 0; i < xs.size(); ++i)
      if (!v[i].data.empty())
        for (size_t k = 0; k < xs[i].data.size(); ++k)
          xs[i].data[k] += s * v[i].data[k];
    return interp::evaluate(f, xs);
  };
  auto p1 = at(eps), m1 = at(-eps), p2 = at(2 * eps), m2 = at(-2 * eps);
  std::vector<Tensor<double>> d = p1;
  for (size_t o = 0; o < d.size(); ++o)
    for (size_t k = 0; k < d[o].data.size(); ++k)
      d[o].data[k] =
          (8 * (p1[o].data[k] - m1[o].data[k]) - (p2[o].data[k] - m2[o].data[k])) / (12 * eps);
  return d;
}

/// Result of check_derivatives: the worst relative errors seen.
struct DerivativeErrors {
  double vjp = 0; ///< max over inputs of |<g_i, v_i> - <w, J_i v_i>| / Σ|w ⊙ J_i v_i|
  double jvp = 0; ///< max over outputs of ‖Jv - fd‖∞ / ‖fd‖∞
  std::string where;
};

/// Checks the VJP and JVP of `f` at `x` against finite differences along
/// random directions, for the inputs named in `wrt` (empty = all).
inline DerivativeErrors check_derivatives(const ir::Function& f,
                                          const std::vector<Tensor<double>>& x, Rng& rng,
                                          std::vector<std::string> wrt = {}) {
  if (wrt.empty())
    for (const ir::Node* in : f.inputs())
      wrt.push_back(in->name());
  ad::VjpSpec vs;
  vs.wrt = wrt;
  ir::Function vjp = ad::vjp_function(f, vs);
  ad::JvpSpec js;
  js.wrt = wrt;
  ir::Function jvp = ad::jvp_function(f, js);

  std::vector<Tensor<double>> v(x.size()); // directions; empty = not differentiated
  std::vector<Tensor<double>> tangents;
  for (const std::string& name : wrt) {
    size_t i = f.input_index(name);
    v[i] = random_tensor(x[i].shape, rng);
    tangents.push_back(v[i]);
  }
  std::vector<Tensor<double>> w;
  for (const auto& o : f.outputs())
    w.push_back(random_tensor(o.node->shape(), rng));

  DerivativeErrors err;
  // JVP of all directions at once.
  std::vector<Tensor<double>> fd = fd_directional(f, x, v);
  std::vector<Tensor<double>> jin = x;
  jin.insert(jin.end(), tangents.begin(), tangents.end());
  std::vector<Tensor<double>> jv = interp::evaluate(jvp, jin);
  for (size_t o = 0; o < fd.size(); ++o) {
    double diff = 0, scale = 0;
    for (size_t k = 0; k < fd[o].data.size(); ++k) {
      diff = std::max(diff, std::abs(fd[o].data[k] - jv[o].data[k]));
      scale = std::max(scale, std::abs(fd[o].data[k]));
    }
    double rel = diff / std::max(scale, 1e-12);
    if (rel > err.jvp) {
      err.jvp = rel;
      err.where = "jvp of output " + f.outputs()[o].name;
    }
  }
  // VJP, one input at a time so every input's cotangent is tested.
  std::vector<Tensor<double>> vin = x;
  vin.insert(vin.end(), w.begin(), w.end());
  std::vector<Tensor<double>> g = interp::evaluate(vjp, vin);
  for (size_t j = 0; j < wrt.size(); ++j) {
    size_t i = f.input_index(wrt[j]);
    std::vector<Tensor<double>> vi(x.size());
    vi[i] = v[i];
    std::vector<Tensor<double>> fdi = fd_directional(f, x, vi);
    double lhs = dot(g[j], v[i]), rhs = 0, scale = 0;
    for (size_t o = 0; o < fdi.size(); ++o) {
      rhs += dot(w[o], fdi[o]);
      scale += abs_dot(w[o], fdi[o]);
    }
    double rel = std::abs(lhs - rhs) / std::max(scale, 1e-12);
    if (rel > err.vjp) {
      err.vjp = rel;
      err.where = "vjp wrt " + wrt[j];
    }
  }
  return err;
}

} // namespace plastic::test
