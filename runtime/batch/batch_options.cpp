// Resolving BatchOptions against the model table.
#include "runtime/batch/batch_options.h"

namespace plastic::rt {

Expected<SolverOptions> resolve_solver(const plastic_model& model, const BatchOptions& options) {
  if (options.solver) {
    if (Status s = options.solver->check(); !s) return s.failure();
    return *options.solver;
  }
  return SolverOptions::from_desc(model.solver);
}

Expected<GradientOptions> resolve_gradient(const plastic_model& model,
                                           const BatchOptions& options) {
  if (options.gradient) return *options.gradient;
  return GradientOptions::from_desc(model.gradient);
}

} // namespace plastic::rt
