// The input sample u(t) of a tile: every slot of every lane evaluated at the
// solver's request, lane-interleaved ([i*L + l]), ready for the kernels.
//
// At a knot the request's interval picks the one-sided limit (problem.h
// `InputRequest`): t == lo evaluates the piece to the right, otherwise the
// piece to the left. A lane whose series has ended (t > its t_end, and every
// padding lane) is held at its last value: x(t_end), and 0 for derivatives
// and log-signature drivers, so the frozen lane sees finite numbers.
// Interval hints per lane and path make a monotone sweep O(1) per lane.
#pragma once

#include <vector>

#include "runtime/batch/prepared_data.h"
#include "runtime/batch/tile.h"
#include "runtime/solvers/problem.h"

namespace plastic::rt {

template <class T> class TileInput {
public:
  TileInput(const PreparedData& data, const TileLayout& layout);

  /// Writes u (n_input*L) for the request.
  void operator()(const InputRequest& request, T* u);
  /// u at the tile's t0 (the sample init_state reads).
  void initial(T* u) { (*this)(InputRequest{layout_.t0, layout_.t0, layout_.t0}, u); }
  /// As an InputFn for TileProblem (refers to this object).
  InputFn<T> function() {
    return [this](const InputRequest& r, T* u) { (*this)(r, u); };
  }

private:
  /// One slot, or a path's value slot with its derivative slot (`pair`),
  /// evaluated in one pass over the interval's coefficients.
  struct Feed {
    const SlotPlan* slot = nullptr;
    const SlotPlan* pair = nullptr;
  };
  void write_held_zeros(const SlotPlan& slot, T* u, int lane) const;

  const PreparedData& data_;
  const TileLayout& layout_;
  std::vector<Feed> feeds_;
  std::vector<const PreparedSample*> lane_;
  std::vector<int> hints_; // [lane * sources + source]: paths, then logsigs
  int sources_ = 0;
};

extern template class TileInput<float>;
extern template class TileInput<double>;

} // namespace plastic::rt
