// A sample followed through a model in the reference interpreter, every
// node checked for finiteness: what the NaN locator (nonfinite_locator.h)
// re-runs, and what the stability report (stability.h) samples states from.
//
// The run starts from the sample's initial state and steps with the model's
// own solver method (its tableau; fixed step = the model's step, or for an
// adaptive solver the step the failing solve was using, else 1/100 of the
// series), checking the initial-state function, every stage of the field
// and the observation outputs (the forward pass), then walks the stored
// trajectory backwards through the field's VJP (the backward pass) with a
// cotangent kept at unit size, so the derivative's own operations are
// checked, not the growth of the adjoint. It is a reference, not a replay:
// jumps and the loss function are not re-run, and the step grid need not
// match the compiled solver's knots.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/abi/layout.h"
#include "compiler/analysis/checked_eval.h"
#include "compiler/autodiff/names.h"
#include "compiler/model/model_functions.h"
#include "runtime/batch/nonfinite_explainer.h"
#include "runtime/batch/tile.h"
#include "runtime/batch/tile_input.h"
#include "runtime/solvers/tableau.h"

namespace plastic::analysis {

using interp::Tensor;
using TensorMap = std::map<std::string, Tensor<double>>;

/// Where the reference found the first non-finite value.
struct Finding {
  NonFiniteSite site;
  double t = 0;
  rt::NonFinitePass pass = rt::NonFinitePass::Forward;
  int64_t sample = 0;
};

/// One sample followed through the model in the reference interpreter
/// (see the file comment): its inputs, the parameters of `e`, and the
/// model's functions. `e` (its data, parameters and, when known, the
/// failing solve's t and h) must outlive the run.
class ReferenceRun {
public:
  ReferenceRun(const model::ModelFunctions& fns, const abi::ModelLayout& layout,
               const rt::NonFiniteEvent& e, int64_t sample)
      : fns_(fns), layout_(layout), event_(e), sample_(sample),
        tile_(rt::layout_tile(*e.data, std::span<const int64_t>(&sample_, 1), 1)),
        u_(static_cast<size_t>(std::max<int64_t>(layout.n_input, 1))) {
    if (tile_) input_.emplace(*e.data, tile_.value());
  }

  /// Called with every state of the forward pass (before each step).
  std::function<void(double t, const TensorMap& z)> on_state;
  /// Whether run() walks the trajectory backwards through the field's VJP.
  bool backward_pass = true;

  /// The first non-finite value, or nullopt (also when the model cannot be
  /// followed: no field, an unknown tableau).
  std::optional<Finding> run() {
    const ir::Function* field = fns_.find(model::FnKind::Field);
    const rt::ButcherTableau* tab = rt::find_tableau(layout_.solver_method);
    if (!tile_ || !field || !tab) return std::nullopt;
    const rt::PreparedSample& s = event_.data->sample(static_cast<size_t>(sample_));
    TensorMap z;
    if (auto f = initial_state(s.t0, z)) return f;

    double h = layout_.solver.step;
    if (tab->adaptive() || !(h > 0))
      h = std::isfinite(event_.failure.h) && event_.failure.h > 0 ? event_.failure.h
                                                                  : (s.t_end - s.t0) / 100;
    double t_stop = s.t_end;
    if (std::isfinite(event_.failure.t)) t_stop = std::min(t_stop, event_.failure.t + h);
    if (!(h > 0) || !std::isfinite(t_stop)) return std::nullopt;

    std::vector<std::pair<double, TensorMap>> trajectory;
    size_t next_obs = 0;
    for (double t = s.t0; t < t_stop - 1e-12 * std::max(1.0, std::abs(t_stop));) {
      const double step = std::min(h, s.t_end - t) > 0 ? std::min(h, s.t_end - t) : h;
      trajectory.emplace_back(t, z);
      if (on_state) on_state(t, z);
      if (auto f = rk_step(*field, *tab, t, step, z)) return f;
      t += step;
      for (; next_obs < s.observations.size() && s.observations[next_obs].t <= t + 1e-12;
           ++next_obs)
        if (auto f = observe(s.observations[next_obs].t, z)) return f;
    }
    return backward_pass ? backward(trajectory, h) : std::nullopt;
  }

  /// The inputs of `f` (a field, init or output function) at time t in state z.
  TensorMap leaves(const ir::Function& f, double t, const TensorMap& z, double h = 0) {
    TensorMap in;
    for (const ir::Node* leaf : f.inputs())
      if (!in.count(leaf->name())) in[leaf->name()] = leaf_value(leaf, t, z, h);
    return in;
  }

private:
  // u(t) of the sample, as the runtime's kernels would receive it.
  const std::vector<double>& inputs_at(double t) {
    (*input_)(rt::InputRequest{t, t, t}, u_.data());
    return u_;
  }

  // The value of leaf `leaf` (a field, init or output input) at time t.
  Tensor<double> leaf_value(const ir::Node* leaf, double t, const TensorMap& z, double h) {
    const std::string& name = leaf->name();
    auto slice = [&](const std::vector<double>& v, int64_t offset) {
      Tensor<double> x(leaf->shape());
      for (int64_t i = 0; i < x.numel(); ++i)
        x.data[static_cast<size_t>(i)] = v.at(static_cast<size_t>(offset + i));
      return x;
    };
    switch (leaf->op()) {
    case ir::Op::Time:
      return Tensor<double>::scalar(t);
    case ir::Op::State:
      return z.at(name);
    case ir::Op::Param: {
      const abi::ParamEntry* p = layout_.param(name);
      if (!p) throw ir::IRError("no parameter " + name);
      return slice(event_.params, p->c.offset);
    }
    case ir::Op::Input: {
      const dsl::InputInfo& in = fns_.model->inputs.at(static_cast<size_t>(leaf->slot()));
      const abi::InputSlot* slot = nullptr;
      if (in.kind == dsl::InputKind::Static) {
        slot = layout_.static_slot(static_cast<int>(leaf->slot()));
      } else if (in.kind == dsl::InputKind::Path) {
        if (std::optional<bool> d = abi::path_leaf_is_deriv(name, in.name))
          slot = layout_.path_slot(static_cast<int>(leaf->slot()), *d);
      }
      if (!slot) throw ir::IRError("no input slot for " + name);
      return slice(inputs_at(t), slot->c.offset);
    }
    case ir::Op::Arg:
      if (name == "T" || name == "t") return Tensor<double>::scalar(t);
      if (name == ad::kStepSizeName) return Tensor<double>::scalar(h);
      break;
    default:
      break;
    }
    throw ir::IRError("the reference cannot supply " + name);
  }

  std::optional<Finding> found(const CheckedResult& r, double t, rt::NonFinitePass pass) {
    if (!r.site) return std::nullopt;
    return Finding{*r.site, t, pass, sample_};
  }

  std::optional<Finding> initial_state(double t0, TensorMap& z) {
    const ir::Function* init = fns_.find(model::FnKind::Init);
    const ir::Function* field = fns_.find(model::FnKind::Field);
    if (!init) { // no init: the state starts at zero
      for (const ir::Node* leaf : field->inputs())
        if (leaf->op() == ir::Op::State) z[leaf->name()] = Tensor<double>(leaf->shape());
      return std::nullopt;
    }
    CheckedResult r = evaluate_checked(*init, leaves(*init, t0, z));
    if (auto f = found(r, t0, rt::NonFinitePass::Forward)) return f;
    for (size_t i = 0; i < init->outputs().size(); ++i)
      z[init->outputs()[i].name] = r.outputs[i];
    return std::nullopt;
  }

  // One explicit Runge–Kutta step of the model's tableau, every stage checked.
  std::optional<Finding> rk_step(const ir::Function& field, const rt::ButcherTableau& tab, double t,
                                 double h, TensorMap& z) {
    std::vector<TensorMap> k;
    for (int i = 0; i < tab.stages; ++i) {
      TensorMap zi = z;
      for (auto& [name, x] : zi)
        for (int j = 0; j < i; ++j)
          if (tab.A(i, j) != 0)
            for (size_t e = 0; e < x.data.size(); ++e)
              x.data[e] += h * tab.A(i, j) * k[static_cast<size_t>(j)].at(name).data[e];
      const double ti = t + tab.c[static_cast<size_t>(i)] * h;
      CheckedResult r = evaluate_checked(field, leaves(field, ti, zi));
      if (auto f = found(r, ti, rt::NonFinitePass::Forward)) return f;
      TensorMap ki;
      for (size_t o = 0; o < field.outputs().size(); ++o)
        ki[field.outputs()[o].name] = r.outputs[o];
      k.push_back(std::move(ki));
    }
    for (auto& [name, x] : z)
      for (int i = 0; i < tab.stages; ++i)
        for (size_t e = 0; e < x.data.size(); ++e)
          x.data[e] +=
              h * tab.b[static_cast<size_t>(i)] * k[static_cast<size_t>(i)].at(name).data[e];
    return std::nullopt;
  }

  std::optional<Finding> observe(double t, const TensorMap& z) {
    const ir::Function* out = fns_.find(model::FnKind::ObservationOutputs);
    if (!out) return std::nullopt;
    return found(evaluate_checked(*out, leaves(*out, t, z)), t, rt::NonFinitePass::Forward);
  }

  // The field's VJP along the trajectory, latest step first, with a unit
  // cotangent propagated by the adjoint equation a' = −aᵀ ∂f/∂z.
  std::optional<Finding> backward(const std::vector<std::pair<double, TensorMap>>& trajectory,
                                  double h) {
    const ir::Function* vjp = fns_.find(model::FnKind::FieldVjp);
    const ir::Function* field = fns_.find(model::FnKind::Field);
    if (!vjp || trajectory.empty()) return std::nullopt;
    TensorMap a;
    for (const auto& out : field->outputs()) {
      Tensor<double> ones(out.node->shape());
      std::fill(ones.data.begin(), ones.data.end(), 1.0);
      a[out.name] = ones;
    }
    for (auto it = trajectory.rbegin(); it != trajectory.rend(); ++it) {
      const auto& [t, z] = *it;
      TensorMap in;
      for (const ir::Node* leaf : vjp->inputs()) {
        if (auto of = ad::derived_from(ad::Derived::Cotangent, leaf->name()))
          in[leaf->name()] = a.at(std::string(*of));
        else
          in[leaf->name()] = leaf_value(leaf, t, z, h);
      }
      CheckedResult r = evaluate_checked(*vjp, in);
      if (auto f = found(r, t, rt::NonFinitePass::Backward)) return f;
      for (size_t o = 0; o < vjp->outputs().size(); ++o) {
        auto of = ad::derived_from(ad::Derived::Gradient, vjp->outputs()[o].name);
        if (!of || !a.count(std::string(*of))) continue;
        Tensor<double>& x = a.at(std::string(*of));
        double scale = 0;
        for (size_t e = 0; e < x.data.size(); ++e) {
          x.data[e] += h * r.outputs[o].data[e];
          scale = std::max(scale, std::abs(x.data[e]));
        }
        if (scale > 0 && std::isfinite(scale)) // keep the direction, not the growth
          for (double& v : x.data)
            v /= scale;
      }
    }
    return std::nullopt;
  }

  const model::ModelFunctions& fns_;
  const abi::ModelLayout& layout_;
  const rt::NonFiniteEvent& event_;
  int64_t sample_;
  Result<rt::TileLayout, rt::SolveFailure> tile_;
  std::optional<rt::TileInput<double>> input_;
  std::vector<double> u_;
};

} // namespace plastic::analysis
