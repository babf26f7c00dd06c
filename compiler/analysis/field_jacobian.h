// The field f(z, x(t)) of a model as a function of its state alone, for
// the analyses that linearise it: the stability report (stability.h) and
// the fixed-point finder (fixed_points.h).
//
// The field is evaluated in the reference interpreter from a map of its
// inputs (the "leaves": states, parameters, inputs, time). A state is the
// concatenation of the field's outputs (one per state variable, in the
// field's order), so the Jacobian ∂f/∂z is square. The Jacobian comes from
// the field's symbolic VJP, one row per unit cotangent.
//
// States come from two places: along reference trajectories of real
// samples (reference_run.h), where the inputs are the sample's; or with the
// inputs held at one constant value (the autonomous field a fixed point is
// a root of: paper 003 App. F.4 takes x(t) = 0).
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "compiler/abi/layout.h"
#include "compiler/analysis/reference_run.h"
#include "compiler/model/model_functions.h"
#include "runtime/batch/prepared_data.h"

namespace plastic::analysis {

/// The field's inputs with every input leaf held at `input` (a path's
/// derivative at 0, since the path is constant), the time at 0, the states
/// at zero and the parameters from `theta`.
/// Throws ir::IRError when the model has no field.
TensorMap constant_input_leaves(const model::ModelFunctions& fns, const abi::ModelLayout& layout,
                                const std::vector<double>& theta, double input);
/// The same for the inputs of `f` (another function of the state: the
/// observation outputs).
TensorMap constant_input_leaves(const model::ModelFunctions& fns, const ir::Function& f,
                                const abi::ModelLayout& layout, const std::vector<double>& theta,
                                double input);

/// The number of state entries: the Jacobian is state_size × state_size.
int64_t state_size(const ir::Function& field);

/// The state in `leaves`, flattened in the field's output order.
Eigen::VectorXd state_vector(const ir::Function& field, const TensorMap& leaves);
/// Writes `z` (flattened as state_vector) into the state leaves.
void set_state(const ir::Function& field, const Eigen::VectorXd& z, TensorMap& leaves);

/// f at `leaves`, flattened as the state; throws ir::IRError when a value
/// is not finite.
Eigen::VectorXd field_value(const ir::Function& field, const TensorMap& leaves);

/// ∂f/∂z at `leaves` (rows: outputs, columns: states, flattened as the
/// state); throws ir::IRError when a value is not finite.
Eigen::MatrixXd field_jacobian(const ir::Function& field, const ir::Function& vjp,
                               TensorMap leaves);

/// One state of a reference trajectory: the field's inputs there.
struct TrajectoryState {
  int64_t sample = 0;
  double t = 0;
  TensorMap leaves;
};

/// The states of training sample `sample` of `data`, followed in the
/// reference interpreter with its own inputs; `per_sample` states evenly
/// spaced along it (0: every step), up to a blow-up.
std::vector<TrajectoryState> sample_states(const model::ModelFunctions& fns,
                                           const abi::ModelLayout& layout,
                                           const std::vector<double>& theta,
                                           const rt::PreparedData& data, int64_t sample,
                                           int64_t per_sample);

/// The states of the first `samples` training samples of `data`, followed
/// in the reference interpreter with their own inputs; `per_sample` states
/// evenly spaced along each (0: every step). A sample whose run blows up
/// keeps its states up to the blow-up.
std::vector<TrajectoryState> trajectory_states(const model::ModelFunctions& fns,
                                               const abi::ModelLayout& layout,
                                               const std::vector<double>& theta,
                                               const rt::PreparedData& data, int64_t samples,
                                               int64_t per_sample);

} // namespace plastic::analysis
