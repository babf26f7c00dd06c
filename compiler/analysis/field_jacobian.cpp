// The field as a function of the state (see field_jacobian.h).
#include "compiler/analysis/field_jacobian.h"

#include <algorithm>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace plastic::analysis {

namespace {

// Whether input leaf `leaf` is the derivative of a path (zero when the path
// is held constant).
bool is_path_derivative(const model::ModelFunctions& fns, const ir::Node* leaf) {
  const dsl::InputInfo& in = fns.model->inputs.at(static_cast<size_t>(leaf->slot()));
  if (in.kind != dsl::InputKind::Path) return false;
  return abi::path_leaf_is_deriv(leaf->name(), in.name).value_or(false);
}

// The field's outputs (one per state variable) and their sizes.
std::vector<std::pair<std::string, int64_t>> state_sizes(const ir::Function& field) {
  std::vector<std::pair<std::string, int64_t>> states;
  for (const auto& out : field.outputs())
    states.emplace_back(out.name, out.node->numel());
  return states;
}

} // namespace

int64_t state_size(const ir::Function& field) {
  int64_t n = 0;
  for (const auto& out : field.outputs())
    n += out.node->numel();
  return n;
}

TensorMap constant_input_leaves(const model::ModelFunctions& fns, const abi::ModelLayout& layout,
                                const std::vector<double>& theta, double input) {
  const ir::Function* field = fns.find(model::FnKind::Field);
  if (!field) throw ir::IRError("the model has no field to analyse");
  return constant_input_leaves(fns, *field, layout, theta, input);
}

TensorMap constant_input_leaves(const model::ModelFunctions& fns, const ir::Function& f,
                                const abi::ModelLayout& layout, const std::vector<double>& theta,
                                double input) {
  TensorMap in;
  for (const ir::Node* leaf : f.inputs()) {
    Tensor<double> x(leaf->shape());
    if (leaf->op() == ir::Op::Param) {
      const abi::ParamEntry* p = layout.param(leaf->name());
      if (!p) throw ir::IRError("no parameter " + leaf->name());
      for (size_t i = 0; i < x.data.size(); ++i)
        x.data[i] = theta.at(static_cast<size_t>(p->c.offset) + i);
    } else if (leaf->op() == ir::Op::Input && !is_path_derivative(fns, leaf)) {
      std::fill(x.data.begin(), x.data.end(), input);
    }
    in[leaf->name()] = x;
  }
  return in;
}

Eigen::VectorXd state_vector(const ir::Function& field, const TensorMap& leaves) {
  Eigen::VectorXd z(state_size(field));
  Eigen::Index k = 0;
  for (const auto& [name, size] : state_sizes(field)) {
    const Tensor<double>& x = leaves.at(name);
    for (int64_t e = 0; e < size; ++e)
      z(k++) = x.data[static_cast<size_t>(e)];
  }
  return z;
}

void set_state(const ir::Function& field, const Eigen::VectorXd& z, TensorMap& leaves) {
  Eigen::Index k = 0;
  for (const auto& out : field.outputs()) {
    Tensor<double>& x = leaves[out.name];
    if (x.data.size() != static_cast<size_t>(out.node->numel()))
      x = Tensor<double>(out.node->shape());
    for (double& v : x.data)
      v = z(k++);
  }
}

Eigen::VectorXd field_value(const ir::Function& field, const TensorMap& leaves) {
  CheckedResult r = evaluate_checked(field, leaves);
  if (r.site) throw ir::IRError(fmt::format("the field is not finite here: {}", r.site->what));
  Eigen::VectorXd f(state_size(field));
  Eigen::Index k = 0;
  for (const Tensor<double>& x : r.outputs)
    for (double v : x.data)
      f(k++) = v;
  return f;
}

Eigen::MatrixXd field_jacobian(const ir::Function& field, const ir::Function& vjp,
                               TensorMap leaves) {
  const auto states = state_sizes(field);
  const int64_t n = state_size(field);
  Eigen::MatrixXd J(n, n);
  for (int64_t row = 0; row < n; ++row) {
    int64_t offset = 0;
    for (const auto& out : field.outputs()) {
      Tensor<double> ct(out.node->shape());
      if (row >= offset && row < offset + out.node->numel())
        ct.data[static_cast<size_t>(row - offset)] = 1.0;
      leaves[ad::derived_name(ad::Derived::Cotangent, out.name)] = ct;
      offset += out.node->numel();
    }
    CheckedResult r = evaluate_checked(vjp, leaves);
    if (r.site) throw ir::IRError(fmt::format("the Jacobian is not finite here: {}", r.site->what));
    int64_t col = 0;
    for (const auto& [name, size] : states) {
      bool found = false;
      for (size_t o = 0; o < vjp.outputs().size(); ++o)
        if (vjp.outputs()[o].name == ad::derived_name(ad::Derived::Gradient, name)) {
          for (int64_t e = 0; e < size; ++e)
            J(row, col + e) = r.outputs[o].data[static_cast<size_t>(e)];
          found = true;
        }
      if (!found) throw ir::IRError("the field's VJP has no derivative for state " + name);
      col += size;
    }
  }
  return J;
}

std::vector<TrajectoryState> sample_states(const model::ModelFunctions& fns,
                                           const abi::ModelLayout& layout,
                                           const std::vector<double>& theta,
                                           const rt::PreparedData& data, int64_t sample,
                                           int64_t per_sample) {
  const ir::Function* field = fns.find(model::FnKind::Field);
  if (!field) throw ir::IRError("the model has no field to analyse");
  rt::NonFiniteEvent e;
  e.data = &data;
  e.params = theta;
  ReferenceRun run(fns, layout, e, sample);
  run.backward_pass = false;
  std::vector<std::pair<double, TensorMap>> states;
  run.on_state = [&](double t, const TensorMap& z) { states.emplace_back(t, z); };
  // A sample that blows up still has its states up to the blow-up.
  (void)run.run();
  const auto total = static_cast<int64_t>(states.size());
  const int64_t picks = per_sample > 0 ? std::min<int64_t>(per_sample, total) : total;
  std::vector<TrajectoryState> out;
  for (int64_t k = 0; k < picks; ++k) {
    const auto& [t, z] = states[static_cast<size_t>(k * total / std::max<int64_t>(picks, 1))];
    out.push_back({sample, t, run.leaves(*field, t, z)});
  }
  return out;
}

std::vector<TrajectoryState> trajectory_states(const model::ModelFunctions& fns,
                                               const abi::ModelLayout& layout,
                                               const std::vector<double>& theta,
                                               const rt::PreparedData& data, int64_t samples,
                                               int64_t per_sample) {
  std::vector<TrajectoryState> out;
  const int64_t n = std::min<int64_t>(samples, static_cast<int64_t>(data.size()));
  for (int64_t s = 0; s < n; ++s)
    for (TrajectoryState& state : sample_states(fns, layout, theta, data, s, per_sample))
      out.push_back(std::move(state));
  return out;
}

} // namespace plastic::analysis
