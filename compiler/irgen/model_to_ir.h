// A checked model to IR functions.
//
// One pass over each resolved expression the checker handed over
// (dsl/resolved.h; expr_to_ir.h) turns the model into the functions the
// model ABI is built from: the vector field, the initial state, the jump
// map, the outputs and the loss. Everything else — VJPs, the adjoint system, fused solver steps —
// is derived from these by compiler/autodiff.
//
// Leaves and their names: parameters by qualified name (slot = index in the
// parameter table), states by name, path samples as inputs `x` and `dx`
// (`x@T`, `dx@T`, `x@t0` at the final and first time), static features and
// targets as inputs by name (labels one-hot), outputs (inside the loss) as
// args, the current time as `t`, the final time as the arg `T`.
#pragma once

#include "compiler/ir/ir.h"
#include "dsl/model.h"

#include <optional>

namespace plastic::irgen {

struct ModelIR {
  /// f: inputs t, every state, every parameter, then the path samples and
  /// static features the field reads; one output per state (its derivative).
  ir::Function field;
  /// z0: inputs every parameter, then what the initial values read;
  /// one output per state.
  ir::Function init;
  /// Outputs read at the final time (inputs T, states, parameters, samples).
  std::optional<ir::Function> final_outputs;
  /// Outputs read at every observation (inputs t, states, parameters, samples).
  std::optional<ir::Function> observation_outputs;
  /// The jump map at observation times (outputs: every state, unchanged
  /// where the model declares no jump).
  std::optional<ir::Function> jump;
  /// The loss: inputs the outputs it reads (args) and the targets; output "loss".
  ir::Function loss;
};

/// Builds every function; throws plastic::InternalError if the IR disagrees
/// with the checked model (a bug: checking guarantees irgen succeeds).
ModelIR model_to_ir(const dsl::CheckedModel& model, ir::Context& ctx);

} // namespace plastic::irgen
