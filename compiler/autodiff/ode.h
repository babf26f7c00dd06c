// Builders of the ODE functions the model ABI needs, from a vector field.
//
// The field contract. A vector field f(t, z, θ, u) is an ir::Function whose
// inputs are leaves classified by kind:
//   Op::Time  — t (at most one; scalar),
//   Op::State — the state tensors z_1..z_m (coupled ODEs: several states),
//   Op::Param — the slow weights θ,
//   Op::Input — samples of the control path u(t) (x(t), dx(t), ...) and
//               static per-sample features,
//   Op::Arg   — anything else, passed through undifferentiated;
// and whose outputs are the time derivatives dz_i/dt, one per state, in the
// order of the State inputs and with their shapes. States are kept as
// separate tensors (no flattening): every builder below works per tensor.
//
// The runtime passes control values at each time a kernel needs them;
// kernels never interpolate. A fused RK step therefore takes one copy of
// every time-varying control per distinct stage node c_i.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/function.h"
#include "runtime/solvers/tableau.h"

namespace plastic::ad {

/// A field's inputs split by role (see the file comment).
struct FieldSignature {
  const ir::Node* time = nullptr;        ///< null if the field does not take t
  std::vector<const ir::Node*> states;   ///< z_i, in input order
  std::vector<const ir::Node*> params;   ///< θ, in input order
  std::vector<const ir::Node*> controls; ///< Input leaves, in input order
  std::vector<const ir::Node*> others;   ///< Arg leaves
};

/// Classifies the inputs of `field` and checks the field contract; throws
/// IRError if the outputs do not match the states one to one.
FieldSignature field_signature(const ir::Function& field);

/// VJP of the field with respect to its states, params and controls:
/// inputs = field inputs + "ct.<output>" per output; outputs = "d.<name>"
/// for every state, then every param, then every control.
ir::Function field_vjp(const ir::Function& field);

/// The continuous adjoint system [f, −aᵀ∂f/∂z, −aᵀ∂f/∂θ] for backsolve
/// adjoints. Inputs: the field's inputs (a time leaf "t" is added first if
/// the field has none), then one adjoint "a.<state>" per state. Outputs: the
/// field's outputs (same names), then "adj.<state>" = −aᵀ∂f/∂z_i for each
/// state, then "adj.<param>" = −aᵀ∂f/∂θ_k for each param.
ir::Function adjoint_system(const ir::Function& field);

/// Options of build_rk_step.
struct RkStepOptions {
  /// Input leaves that do not vary along the path (static features): passed
  /// once instead of once per stage node.
  std::vector<std::string> static_inputs;
  /// Name of the function; empty = "<field>.step.<tableau>".
  std::string name;
  /// First Same As Last, for an FSAL embedded pair (dopri5) stepped by an
  /// adaptive solver: the first stage's rates are inputs "k_first.<state>"
  /// (f(t, z_n), the previous step's last stage) instead of a field
  /// evaluation, and the last stage's rates are outputs "k_last.<state>"
  /// (f(t + h, z_{n+1})) after the error estimates: s - 1 field evaluations
  /// per step instead of s + 1 (the first recomputed, the last again at z1).
  bool fsal = false;
};

/// One whole explicit Runge–Kutta step, all stages fused in one function.
struct RkStep {
  /// Inputs, in ABI order: t (the field's time leaf, or a new "t"), the
  /// step size "step.h" (Arg, scalar), the states z_n, the params, the
  /// static inputs, then for every distinct node k (in `nodes` order) one copy
  /// of every time-varying control named "<control>@<k>" = u(t + nodes[k]·h).
  /// Outputs: z_{n+1} per state, named after the state; for embedded pairs
  /// then "err.<state>" = h Σ e_i k_i (the local error estimate).
  ir::Function fn;
  std::vector<double> nodes;         ///< distinct stage nodes c, in first-use order
  std::vector<int> stage_node;       ///< stage i evaluates its controls at nodes[stage_node[i]]
  std::vector<std::string> states;   ///< state names = the z_{n+1} outputs
  std::vector<std::string> controls; ///< names of the per-node control inputs, all nodes
  std::vector<std::string> params;   ///< param names
  /// Outputs integrated along the step but never fed back into the stages
  /// (build_adjoint_step's "adj.<param>" = h Σ_i b_i Q_i), after the states.
  std::vector<std::string> quadratures;
  bool adaptive = false;
};

/// Fuses the s stages of `tableau` applied to `field` into one function:
///   k_i = f(t + c_i h, z_n + h Σ_j a_ij k_j, θ, u(t + c_i h)),
///   z_{n+1} = z_n + h Σ_i b_i k_i,  err = h Σ_i e_i k_i.
/// Zero tableau entries build no terms. Unless options.fsal, the fused step
/// recomputes the first stage (the step and its VJP must not depend on a
/// given one).
RkStep build_rk_step(const ir::Function& field, const rt::ButcherTableau& tableau,
                     const RkStepOptions& options = {});

/// One whole explicit RK step of the continuous adjoint's augmented system
/// (adjoint_system), all stages fused, for the backward solve (h < 0):
///   [z; a]' = [f(t, z, θ, u); −aᵀ∂f/∂z]  integrated as states, and
///   g' = −aᵀ∂f/∂θ  as quadratures (summed along the step, never fed back).
/// Inputs: t, "step.h", the states z_i, the adjoints "a.<state>", the params,
/// the static inputs, then the per-node controls as build_rk_step. Outputs:
/// z_{n+1} per state (named after it), a_{n+1} per state ("a.<state>"), then
/// "adj.<param>" = h Σ_i b_i (−aᵀ∂f/∂θ)(stage i) per param the field reads;
/// for embedded pairs then "err.<name>" of each of those.
RkStep build_adjoint_step(const ir::Function& field, const rt::ButcherTableau& tableau,
                          const RkStepOptions& options = {});

/// The VJP of a fused step (discretise-then-optimise): inputs = step inputs
/// + "ct.<state>" per state (cotangents of z_{n+1}); outputs = "d.<state>"
/// per state (cotangent of z_n), then "d.<param>" per param, then
/// "d.<control>@<k>" per per-node control input. The error estimate is not
/// differentiated (step-size control is not part of the gradient), nor are
/// t, h, static inputs and Arg leaves (use vjp_function directly for those).
ir::Function build_step_vjp(const RkStep& step);

} // namespace plastic::ad
