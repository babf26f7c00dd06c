// What every tile computation shares: a worker's buffers (kernel scratch,
// u0, z0, z0_bar, its private gradient), the initial state z0 =
// init_state(theta, u(t0)), and failures traced back to the data set.
//
// A worker owns one TileWorkspace for all the tiles it runs, so a batch
// allocates per thread, not per tile (the gradient methods still size their
// own tapes per solve). Scratch is max_scratch_bytes of the table, 64-byte
// aligned, as abi.h promises the kernels.
#pragma once

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

/// The failure of a tile solve, with the lane turned into the data set index
/// and the sample's id added to the message.
Status locate_failure(Status status, const TileLayout& layout, const PreparedData& data);

extern template void initial_state<float>(const ModelView<float>&, const float*, TileInput<float>&,
                                          TileWorkspace<float>&);
extern template void initial_state<double>(const ModelView<double>&, const double*,
                                           TileInput<double>&, TileWorkspace<double>&);

} // namespace plastic::rt
