// Resolving BatchOptions against the model table.
#include "runtime/batch/batch_options.h"

namespace plastic::rt {

Result<SolverOptions, SolveFailure> resolve_solver(const plastic_model& model,
                                                   const BatchOptions& options) {
  if (options.solver) {
    if (Status<SolveFailure> s = options.solver->check(); !s) return s.error();
    return *options.solver;
  }
  return SolverOptions::from_desc(model.solver);
}

Result<GradientOptions, SolveFailure> resolve_gradient(const plastic_model& model,
                                                       const BatchOptions& options) {
  if (options.gradient) return *options.gradient;
  return GradientOptions::from_desc(model.gradient);
}

} // namespace plastic::rt
