// GradientOptions from the spec's `gradient` line, and the dispatch on the method.
#include "runtime/gradients/gradient.h"

#include <fmt/format.h>

namespace plastic::rt {

Result<GradientOptions, SolveFailure>
GradientOptions::from_desc(const plastic_gradient_desc& desc) {
  GradientOptions o;
  switch (desc.kind) {
  case PLASTIC_GRAD_DIRECT:
    o.method = GradientMethod::Direct;
    break;
  case PLASTIC_GRAD_CHECKPOINT:
    o.method = GradientMethod::Checkpoint;
    break;
  case PLASTIC_GRAD_ADJOINT:
    o.method = GradientMethod::Adjoint;
    break;
  case PLASTIC_GRAD_AUTO:
    // Chosen from the budget by memory_plan.h where a run is planned;
    // elsewhere the method whose memory grows slowest without integrating backwards.
    o.method = GradientMethod::Checkpoint;
    break;
  default:
    return invalid_argument(
        fmt::format("unknown gradient method {}", desc.kind),
        "use `gradient direct`, `gradient checkpoint K`, `gradient adjoint` or `gradient auto`");
  }
  if (desc.checkpoint_every < 0 || desc.adjoint_rtol < 0 || desc.adjoint_atol < 0)
    return invalid_argument("checkpoint interval and adjoint tolerances must be >= 0",
                            "0 selects the default");
  o.checkpoint_every = desc.checkpoint_every;
  o.adjoint_rtol = desc.adjoint_rtol;
  o.adjoint_atol = desc.adjoint_atol;
  return o;
}

template <class T>
GradientResult loss_and_gradient(const TileProblem<T>& problem, const SolverOptions& solver,
                                 const GradientOptions& options, const T* z0,
                                 const GradientOutputs<T>& out) noexcept {
  switch (options.method) {
  case GradientMethod::Direct:
    return gradient_direct(problem, solver, z0, out);
  case GradientMethod::Checkpoint:
    return gradient_checkpoint(problem, solver, options, z0, out);
  case GradientMethod::Adjoint:
    return gradient_adjoint(problem, solver, options, z0, out);
  }
  GradientResult r;
  r.status = invalid_argument("unknown gradient method");
  return r;
}

template GradientResult loss_and_gradient<float>(const TileProblem<float>&, const SolverOptions&,
                                                 const GradientOptions&, const float*,
                                                 const GradientOutputs<float>&) noexcept;
template GradientResult loss_and_gradient<double>(const TileProblem<double>&, const SolverOptions&,
                                                  const GradientOptions&, const double*,
                                                  const GradientOutputs<double>&) noexcept;

} // namespace plastic::rt
