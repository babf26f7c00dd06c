// The direct method's two halves as one object that lives between them:
// forward() walks the tile once, storing the state before every item (as
// direct.cpp always did) and reading the outputs at the observations;
// backward() later sweeps the stored items through the step and event VJPs.
//
// Why split: an autograd framework asks for the outputs first and for their
// cotangent only afterwards (python/plastic/torch.py). Keeping the tape
// between the two calls makes forward + backward one forward solve, as a
// `plastic train` step is, instead of a prediction and then the gradient's
// own forward pass. gradient_direct() is forward() and backward() back to
// back, so both paths compute the same numbers in the same order.
//
// The object refers to the problem passed to forward() (it keeps a copy of
// the solver options); backward() reads the problem's observations as they
// are then, so a caller may replace targets by output cotangents
// (Observation::output_bar) in between. One forward per object (its meter
// measures that one computation). Not movable: the walker and the tapes
// refer to the session's meter and scratch.
#pragma once

#include <optional>

#include "runtime/gradients/backprop.h"
#include "runtime/gradients/gradient.h"
#include "runtime/solvers/integrator.h"

namespace plastic::rt {

template <class T> class DirectRecord {
public:
  DirectRecord() = default;
  DirectRecord(const DirectRecord&) = delete;
  DirectRecord& operator=(const DirectRecord&) = delete;

  /// Solves `problem` from z0, keeping the tape. outputs (n_obs*n_outputs*L)
  /// and loss (L per-lane sums, written) may be null. The result's forward
  /// stats, stored_states and status are set.
  GradientResult forward(const TileProblem<T>& problem, const SolverOptions& solver, const T* z0,
                         T* outputs, double* loss);
  /// The reverse sweep over the tape of a successful forward(): theta_bar
  /// accumulated, z0_bar written; out.loss is not touched. Once per forward.
  GradientResult backward(const GradientOutputs<T>& out);

private:
  using Walk = Integrator<T>;
  /// Checks the states the steps since item `checked` left (the walk defers
  /// its check to this); advances `checked` past them.
  Status<SolveFailure> check_steps(size_t& checked) const;
  const TileProblem<T>* problem_ = nullptr;
  SolverOptions solver_; // the walker refers to it until backward()
  GradientSession<T> session_;
  std::optional<Walk> walk_;
  std::optional<ChunkedTape<T>> states_;
  std::optional<ChunkedTape<typename Walk::Item>> items_;
  // The stage inputs each fused fixed step read, so the reverse sweep does
  // not evaluate the path again (input_slot_[i]: the record of item i, or -1).
  std::optional<ChunkedTape<T>> inputs_;
  std::optional<ChunkedTape<int64_t>> input_slot_;
  Buffer<double> loss_; // the walk's per-lane sums, copied out at the end
  SolveStats forward_;
};

extern template class DirectRecord<float>;
extern template class DirectRecord<double>;

} // namespace plastic::rt
