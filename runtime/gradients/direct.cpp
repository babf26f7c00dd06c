// Direct backpropagation through the solver (discretise-then-optimise):
// store the state before every item of the forward walk, then sweep the
// items backwards through the step and event VJPs. Exact for the computed
// discrete solution; adaptive step sizes are held constant (gradient.h).
// Memory O(N): one state and one item record per accepted step and event.
// The two passes are DirectRecord's (direct_record.h), run back to back.
#include "runtime/gradients/backprop.h"
#include "runtime/gradients/direct_record.h"
#include "runtime/gradients/gradient.h"

namespace plastic::rt {

template <class T>
GradientResult gradient_direct(const TileProblem<T>& problem, const SolverOptions& solver,
                               const T* z0, const GradientOutputs<T>& out) noexcept {
  return guarded([&]() {
    GradientResult r;
    // Checked before the forward pass, which would otherwise run for nothing.
    r.status = check_outputs(problem, out);
    if (!r.ok()) return r;
    DirectRecord<T> record;
    r = record.forward(problem, solver, z0, nullptr, out.loss);
    if (!r.ok()) return r;
    return record.backward(out);
  });
}

template GradientResult gradient_direct<float>(const TileProblem<float>&, const SolverOptions&,
                                               const float*,
                                               const GradientOutputs<float>&) noexcept;
template GradientResult gradient_direct<double>(const TileProblem<double>&, const SolverOptions&,
                                                const double*,
                                                const GradientOutputs<double>&) noexcept;

} // namespace plastic::rt
