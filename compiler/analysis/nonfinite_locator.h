// NaN and inf traced to the model's source: re-runs a sample that met a
// non-finite value in the reference interpreter, checking every node, and
// says which DSL expression produced it.
//
// The re-run is reference_run.h's: forward through the initial state, the
// field's stages and the outputs, then backward through the field's VJP. A
// derived node carries its primal's location, so an inf in the backward
// pass of `sqrt(z)` points at `sqrt(z)`. The re-run may find nothing (a
// NaN from a jump or the loss function itself, or one the compiled
// solver's step grid met and the reference's did not); the explainer then
// returns "".
#pragma once

#include "compiler/model/model_functions.h"
#include "runtime/batch/nonfinite_explainer.h"

namespace plastic::analysis {

/// An explainer for `fns`' model (which must outlive it) that renders its
/// diagnostics with carets, in colour when `color`.
rt::NonFiniteExplainer make_nonfinite_explainer(const model::ModelFunctions& fns,
                                                bool color = false);

} // namespace plastic::analysis
