// Finite-difference checks of symbolic derivatives (see gradcheck.h).
#include "compiler/model/gradcheck.h"

#include "compiler/autodiff/names.h"
#include "compiler/interp/interpreter.h"

#include <cmath>
#include <map>
#include <random>

namespace plastic::model {

namespace {

using Tensor = interp::Tensor<double>;

double inner(const Tensor& a, const Tensor& b) {
  double s = 0;
  for (size_t i = 0; i < a.data.size(); ++i)
    s += a.data[i] * b.data[i];
  return s;
}

Tensor random_tensor(const ir::Shape& shape, std::mt19937_64& rng, double scale) {
  Tensor t(shape);
  std::normal_distribution<double> normal(0.0, scale);
  for (double& x : t.data)
    x = normal(rng);
  return t;
}

double max_abs(const std::vector<Tensor>& ts) {
  double m = 0;
  for (const Tensor& t : ts)
    for (double x : t.data)
      m = std::max(m, std::abs(x));
  return m;
}

// A fused solver step of a stiff field (tau = 10 ms in the flip-flop
// models) at h = 0.01 sits outside the method's stability region: its
// outputs are orders of magnitude larger than its inputs, and the finite
// differences of such a pairing drown in round-off. A user's solver would
// not take that step either, so the check shrinks h until the step is a
// modest change of the state (outputs within 10x of the inputs).
void shrink_step_until_stable(const ir::Function& f, std::vector<Tensor>& inputs) {
  size_t h_index = f.inputs().size();
  for (size_t i = 0; i < f.inputs().size(); ++i)
    if (f.inputs()[i]->name() == ad::kStepSizeName) h_index = i;
  if (h_index == f.inputs().size()) return;
  double bound = 10 * (1 + max_abs(inputs));
  for (int tries = 0; tries < 12; ++tries) {
    double out = max_abs(interp::evaluate<double>(f, inputs));
    if (std::isfinite(out) && out <= bound) return;
    for (double& h : inputs[h_index].data)
      h /= 4;
  }
}

} // namespace

std::vector<GradcheckEntry> gradcheck(const ir::Function& f, const ir::Function& vjp,
                                      const GradcheckOptions& options) {
  std::mt19937_64 rng(options.seed);
  std::vector<Tensor> inputs;
  for (const ir::Node* in : f.inputs()) {
    Tensor t = random_tensor(in->shape(), rng, options.scale);
    // Times and step sizes: small positive values, where fields are defined.
    if (in->op() == ir::Op::Time) t.data.assign(t.data.size(), 0.25);
    if (in->name() == ad::kStepSizeName) t.data.assign(t.data.size(), 0.01);
    inputs.push_back(std::move(t));
  }
  shrink_step_until_stable(f, inputs);
  // Seed the outputs the VJP takes a cotangent for ("ct.<output>" inputs,
  // after f's own inputs); others (an error estimate) are not differentiated.
  std::vector<Tensor> cotangents(f.outputs().size());
  std::vector<bool> seeded(f.outputs().size(), false);
  std::vector<Tensor> ct_in_vjp_order;
  for (size_t k = f.inputs().size(); k < vjp.inputs().size(); ++k) {
    const std::string& name = vjp.inputs()[k]->name();
    std::optional<std::string_view> seeds = ad::derived_from(ad::Derived::Cotangent, name);
    size_t o = 0;
    while (o < f.outputs().size() && seeds != f.outputs()[o].name)
      ++o;
    if (o == f.outputs().size())
      throw ir::IRError("gradcheck: VJP input '" + name + "' seeds no output of " + f.name());
    cotangents[o] = random_tensor(f.outputs()[o].node->shape(), rng, 1.0);
    seeded[o] = true;
    ct_in_vjp_order.push_back(cotangents[o]);
  }

  auto pairing = [&](const std::vector<Tensor>& x) {
    std::vector<Tensor> y = interp::evaluate<double>(f, x);
    double s = 0;
    for (size_t i = 0; i < y.size(); ++i)
      if (seeded[i]) s += inner(y[i], cotangents[i]);
    return s;
  };

  std::vector<Tensor> vjp_inputs = inputs;
  vjp_inputs.insert(vjp_inputs.end(), ct_in_vjp_order.begin(), ct_in_vjp_order.end());
  std::vector<Tensor> grads = interp::evaluate<double>(vjp, vjp_inputs);
  std::map<std::string, const Tensor*> by_name;
  for (size_t i = 0; i < vjp.outputs().size(); ++i)
    by_name[vjp.outputs()[i].name] = &grads[i];

  std::vector<GradcheckEntry> entries;
  for (size_t i = 0; i < f.inputs().size(); ++i) {
    const ir::Node* in = f.inputs()[i];
    auto it = by_name.find(ad::derived_name(ad::Derived::Gradient, in->name()));
    if (it == by_name.end()) continue;
    GradcheckEntry worst{f.name(), in->name(), 0, 0, 0};
    for (int d = 0; d < options.directions; ++d) {
      Tensor v = random_tensor(in->shape(), rng, 1.0);
      double ad = inner(*it->second, v);
      double fd = 0, error = INFINITY;
      auto central = [&](double eps) {
        std::vector<Tensor> plus = inputs, minus = inputs;
        for (size_t k = 0; k < v.data.size(); ++k) {
          plus[i].data[k] += eps * v.data[k];
          minus[i].data[k] -= eps * v.data[k];
        }
        return (pairing(plus) - pairing(minus)) / (2 * eps);
      };
      for (double eps : options.eps) {
        // Richardson extrapolation of two central differences cancels their
        // O(eps^2) error terms: accurate to O(eps^4) at step sizes large
        // enough that round-off stays small. The plain quotients are kept
        // as candidates too (they win near a kink of relu/max).
        double coarse = central(eps), fine = central(eps / 2);
        for (double q : {(4 * fine - coarse) / 3, fine, coarse}) {
          double e = std::abs(ad - q) / std::max({std::abs(ad), std::abs(q), options.floor});
          if (std::isfinite(e) && e < error) error = e, fd = q;
        }
      }
      if (error >= worst.error) worst = {f.name(), in->name(), ad, fd, error};
    }
    entries.push_back(worst);
  }
  return entries;
}

} // namespace plastic::model
