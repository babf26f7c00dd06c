// What every tile computation shares: a worker's buffers (kernel scratch,
// u0, z0, z0_bar, its private gradient), the initial state z0 =
// init_state(theta, u(t0)), and failures traced back to the data set.
//
// A worker owns one TileWorkspace for all the tiles it runs, so a batch
// allocates per thread, not per tile (the gradient methods still size their
// own tapes per solve). Scratch is max_scratch_bytes of the table, 64-byte
// aligned, as abi.h promises the kernels.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "runtime/batch/prepared_data.h"
#include "runtime/batch/tile.h"
#include "runtime/batch/tile_input.h"
#include "runtime/solvers/memory.h"
#include "runtime/solvers/model_view.h"

namespace plastic::rt {

template <class T> struct TileWorkspace {
  explicit TileWorkspace(const plastic_model& m)
      : scratch(max_scratch_bytes(m), nullptr), u0(static_cast<size_t>(m.n_input * m.lanes)),
        z0(static_cast<size_t>(m.n_state * m.lanes)), z0_bar(z0.size()),
        theta_bar(static_cast<size_t>(m.n_params)), lane_loss(static_cast<size_t>(m.lanes)) {}

  Scratch scratch;
  std::vector<T> u0, z0, z0_bar, theta_bar;
  std::vector<double> lane_loss;
  std::vector<T> outputs;
  TileTargets<T> targets;
};

/// z0 = init_state(theta, u(t0)) into ws.z0 (u(t0) into ws.u0); zeros when the
/// model has no init_state kernel.
template <class T>
void initial_state(const ModelView<T>& view, const T* theta, TileInput<T>& input,
                   TileWorkspace<T>& ws);

/// Its pull-back: adds init_state's VJP of ws.z0_bar into ws.theta_bar (ws.u0
/// as initial_state left it). Padding lanes carry no cotangent, so their
/// entries of z0_bar are zeroed first: nothing of theirs reaches theta_bar.
/// Nothing to do when the model has no init_state kernel.
template <class T>
void initial_state_vjp(const ModelView<T>& view, const T* theta, const TileLayout& layout,
                       TileWorkspace<T>& ws);

/// One tile made ready to solve: its layout, its input sample u(t), its
/// targets in the workspace, the TileProblem over them, and z0 in ws.z0.
/// Shared by the batch gradient and by predictions. Not movable: the
/// problem's input function and the input refer to the members.
template <class T> class OpenTile {
public:
  OpenTile() = default;
  OpenTile(const OpenTile&) = delete;
  OpenTile& operator=(const OpenTile&) = delete;

  /// Lays out `samples` (at most L data set indices) and prepares them; a
  /// layout failure comes back as the status.
  Status<SolveFailure> open(const plastic_model& model, const ModelView<T>& view,
                            const PreparedData& data, std::span<const int64_t> samples,
                            std::span<const T> theta, TileWorkspace<T>& ws);

  const TileLayout& layout() const { return *layout_; }
  TileProblem<T> problem;

private:
  std::optional<TileLayout> layout_;
  std::optional<TileInput<T>> input_;
};

/// The failure of a tile solve, with the lane turned into the data set index
/// and the sample's id added to the message.
Status<SolveFailure> locate_failure(Status<SolveFailure> status, const TileLayout& layout,
                                    const PreparedData& data);

extern template class OpenTile<float>;
extern template class OpenTile<double>;
extern template void initial_state<float>(const ModelView<float>&, const float*, TileInput<float>&,
                                          TileWorkspace<float>&);
extern template void initial_state<double>(const ModelView<double>&, const double*,
                                           TileInput<double>&, TileWorkspace<double>&);
extern template void initial_state_vjp<float>(const ModelView<float>&, const float*,
                                              const TileLayout&, TileWorkspace<float>&);
extern template void initial_state_vjp<double>(const ModelView<double>&, const double*,
                                               const TileLayout&, TileWorkspace<double>&);

} // namespace plastic::rt
