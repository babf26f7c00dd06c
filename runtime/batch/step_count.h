// The step count of a fixed-step solve, checked before any solving.
//
// A fixed-step solver walks a series' whole span in steps of h, so a series
// whose times are in another unit than the step (nanoseconds, a date read as
// a number, 1e307 from a broken export) asks for more steps than the machine
// will ever take: refused here, naming the series, its span and the limit,
// rather than found by a run that never ends. Adaptive solvers choose their
// steps while solving and meet their max_steps there.
#pragma once

#include <string>

#include "runtime/batch/prepared_data.h"
#include "runtime/solvers/problem.h"

namespace plastic::rt {

/// Fails when a fixed-step `solver` needs more than its step limit
/// (`max_steps`, kDefaultMaxSteps by default) to cross `sample`;
/// `label` names the sample in the message.
Status<SolveFailure> check_step_count(const SolverOptions& solver, const PreparedSample& sample,
                                      const std::string& label);

} // namespace plastic::rt
