// NaN and inf traced to the model's source: re-runs a sample that met a
// non-finite value in the reference interpreter, checking every node, and
// says which DSL expression produced it.
//
// The re-run follows the sample from its initial state with the model's
// own solver method (its tableau; fixed step = the model's step, or for an
// adaptive solver the step the failing solve was using), checking the
// initial-state function, every stage of the field and the observation
// outputs (the forward pass), then walks the stored trajectory backwards
// through the field's VJP (the backward pass) with a cotangent kept at unit
// size, so the derivative's own operations are checked, not the growth of
// the adjoint. A derived node carries its primal's location, so an inf in
// the backward pass of `sqrt(z)` points at `sqrt(z)`. It is a reference,
// not a replay: jumps and the loss function itself are not re-run, and the
// step grid need not match the compiled solver's knots, so it may find
// nothing (the explainer then returns "").
#pragma once

#include "compiler/model/model_functions.h"
#include "runtime/batch/nonfinite_explainer.h"

namespace plastic::analysis {

/// An explainer for `fns`' model (which must outlive it) that renders its
/// diagnostics with carets, in colour when `color`.
rt::NonFiniteExplainer make_nonfinite_explainer(const model::ModelFunctions& fns,
                                                bool color = false);

} // namespace plastic::analysis
