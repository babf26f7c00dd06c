// solve(): validation, then the forward walk of integrator.h over the tile.
#include "runtime/solvers/solve.h"

#include <exception>
#include <new>
#include <string>

#include <fmt/format.h>

#include "runtime/solvers/integrator.h"
#include "runtime/solvers/tile_ops.h"
#include "runtime/solvers/timeline.h"

namespace plastic::rt {

template <class T>
Status<SolveFailure> check_problem(const TileProblem<T>& p, const SolverOptions& options,
                                   const GradientMethod* gradient) {
  if (!p.model) return invalid_argument("the problem has no model");
  if (Status<SolveFailure> s = validate_model(*p.model, dtype_of<T>()); !s) return s;
  if (Status<SolveFailure> s = options.check(); !s) return s;
  if (p.model->n_params > 0 && !p.theta)
    return invalid_argument("the problem has no parameters (theta is null)");
  if (p.model->n_input > 0 && !p.input)
    return invalid_argument(
        fmt::format("the model reads {} input channels but the problem has no input function",
                    p.model->n_input),
        "set TileProblem::input to the control path of this tile");
  bool targets = false, jumps = false;
  for (const Observation<T>& o : p.observations) {
    targets = targets || o.target || o.output_bar;
    jumps = jumps || o.jump;
  }
  return check_kernels(*p.model, options, gradient, targets, jumps);
}

template <class T> Status<SolveFailure> check_initial_state(const TileProblem<T>& p, const T* z0) {
  const plastic_model& m = *p.model;
  if (!z0) return invalid_argument("no initial state given");
  if (int lane = tile::first_nonfinite_lane(m.n_state, m.lanes, all_lanes(m.lanes), z0);
      lane >= 0) {
    SolveFailure f;
    f.kind = FailureKind::NonFiniteState;
    f.lane = lane;
    f.sample = p.first_sample + lane;
    f.t = p.t0;
    f.message = "the initial state holds inf or NaN";
    f.advice =
        "check this sample's static features and the parameters of the initial-state network";
    return f;
  }
  return {};
}

template <class T>
SolveResult solve(const TileProblem<T>& problem, const SolverOptions& options, T* z,
                  std::type_identity_t<T>* outputs, double* loss) noexcept {
  SolveResult r;
  try {
    r.status = check_problem<T>(problem, options, nullptr);
    if (r.status) r.status = check_initial_state(problem, z);
    if (!r.status) return r;
    const ModelView<T> view(*problem.model);
    Result<Timeline, SolveFailure> timeline = build_timeline(problem, view.lanes, nullptr);
    if (!timeline) {
      r.status = timeline.status();
      return r;
    }
    Scratch scratch(max_scratch_bytes(*problem.model), nullptr);
    Integrator<T> walk(view, problem, timeline.value(), options, scratch.data(), nullptr);
    walk.collect(outputs, loss);
    typename Integrator<T>::Cursor c = walk.start();
    typename Integrator<T>::Item item;
    while (!walk.finished(c))
      if (Status<SolveFailure> s = walk.advance(c, z, item); !s) {
        r.status = std::move(s);
        break;
      }
    r.stats = walk.stats;
  } catch (const std::bad_alloc&) {
    r.status = internal_failure("out of memory while solving");
  } catch (const std::exception& e) {
    r.status = internal_failure(std::string("exception escaped a callback: ") + e.what());
  } catch (...) {
    r.status = internal_failure("unknown exception escaped a callback");
  }
  return r;
}

template Status<SolveFailure> check_problem<float>(const TileProblem<float>&, const SolverOptions&,
                                                   const GradientMethod*);
template Status<SolveFailure> check_problem<double>(const TileProblem<double>&,
                                                    const SolverOptions&, const GradientMethod*);
template Status<SolveFailure> check_initial_state<float>(const TileProblem<float>&, const float*);
template Status<SolveFailure> check_initial_state<double>(const TileProblem<double>&,
                                                          const double*);
template SolveResult solve<float>(const TileProblem<float>&, const SolverOptions&, float*, float*,
                                  double*) noexcept;
template SolveResult solve<double>(const TileProblem<double>&, const SolverOptions&, double*,
                                   double*, double*) noexcept;

} // namespace plastic::rt
