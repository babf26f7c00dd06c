// The longest solver walk a training step will take on a data set: the
// number of steps and events (observations, knots, series ends) of its
// longest series under the model's solver, which sizes the gradient
// methods' tapes (runtime/gradients/memory_estimate.h).
//
// Fixed-step solvers: exact for a tile whose series share their times (the
// grid cut at every event, as the integrator walks it). Adaptive solvers
// choose their steps while solving, so the caller says which bound it wants:
// the fewest steps (one per interval between events; to refuse only what
// cannot fit whatever the steps) or the most (`max_steps`; to choose a
// gradient method that fits even then).
#pragma once

#include "runtime/abi.h"
#include "runtime/batch/prepared_data.h"
#include "runtime/gradients/memory_estimate.h"

namespace plastic::rt {

enum class StepBound { Fewest, Most };

WalkLength longest_walk(const plastic_model& model, const PreparedData& data, StepBound bound);

} // namespace plastic::rt
