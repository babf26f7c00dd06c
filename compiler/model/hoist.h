// The parts of a vector field that do not depend on the state.
//
// A CDE's or a fast weight programmer's field reads its input sample
// through learned projections (W_k dx, W_v u, the input normalisation):
// subexpressions of f(t, z, θ, u) that depend on the time and the inputs
// but not on the state z. A solver evaluates them at every stage of every
// step although they change only with the input sample: rk4 computes them
// at three nodes per step where the next step's first node is this step's
// last. Splitting the field at those subexpressions is the first half of
// hoisting them out of the solve (computing them once per time node for a
// whole tile, as one product over time × samples); this file is that split,
// checked against the unsplit field by the interpreter. Nothing compiles
// the two halves into kernels yet.
//
//   std::optional<HoistedField> split = hoist_state_independent(field);
//   // split->inputs_part(t, θ, u) -> v_0 .. v_{k-1}
//   // split->state_part(t, z, θ, u, v_0 .. v_{k-1}) == field(t, z, θ, u)
#pragma once

#include <optional>
#include <vector>

#include "compiler/ir/function.h"

namespace plastic::model {

struct HoistedField {
  /// (the field's inputs but the state) -> the hoisted values, one output
  /// per value ("v0", "v1", ...).
  ir::Function inputs_part;
  /// The field's inputs, then one Arg leaf per hoisted value
  /// ("field.hoisted.<i>", the value's shape) -> the field's outputs.
  ir::Function state_part;
  /// The field's nodes the hoisted values stand for, in output order.
  std::vector<const ir::Node*> hoisted;
};

/// Splits `field` at its largest subexpressions that read the time or an
/// input but no state leaf, and that a state-dependent node (or an output)
/// reads; values that depend on the parameters alone are left in place.
/// nullopt when there is no such subexpression (a field without inputs).
std::optional<HoistedField> hoist_state_independent(const ir::Function& field);

} // namespace plastic::model
