// OpenTile, initial_state(), initial_state_vjp() and locate_failure(): see
// tile_work.h.
#include "runtime/batch/tile_work.h"

#include <algorithm>

#include <fmt/format.h>

namespace plastic::rt {

template <class T>
void initial_state(const ModelView<T>& view, const T* theta, TileInput<T>& input,
                   TileWorkspace<T>& ws) {
  if (view.inputs > 0) input.initial(ws.u0.data());
  if (view.kernels().init_state)
    view.init_state(theta, view.inputs > 0 ? ws.u0.data() : nullptr, ws.z0.data(),
                    ws.scratch.data());
  else
    std::fill(ws.z0.begin(), ws.z0.end(), T{0});
}

template <class T>
void initial_state_vjp(const ModelView<T>& view, const T* theta, const TileLayout& layout,
                       TileWorkspace<T>& ws) {
  if (!view.kernels().init_state) return;
  const int L = view.lanes;
  for (int64_t i = 0; i < view.n; ++i)
    for (int l = 0; l < L; ++l)
      if (!has_lane(layout.real, l)) ws.z0_bar[static_cast<size_t>(i * L + l)] = T{0};
  view.init_state_vjp(theta, view.inputs > 0 ? ws.u0.data() : nullptr, ws.z0_bar.data(),
                      ws.theta_bar.data(), nullptr, ws.scratch.data());
}

template <class T>
Status<SolveFailure> OpenTile<T>::open(const plastic_model& model, const ModelView<T>& view,
                                       const PreparedData& data, std::span<const int64_t> samples,
                                       std::span<const T> theta, TileWorkspace<T>& ws) {
  Result<TileLayout, SolveFailure> layout = layout_tile(data, samples, view.lanes);
  if (!layout) return layout.status();
  input_.reset(); // refers to the old layout
  layout_ = std::move(layout.value());
  input_.emplace(data, *layout_);
  build_targets(data, *layout_, ws.targets);
  problem = TileProblem<T>{};
  problem.model = &model;
  problem.theta = theta.data();
  problem.t0 = layout_->t0;
  problem.t_end = layout_->t_end;
  problem.observations = ws.targets.observations;
  problem.knots = layout_->knots;
  if (view.inputs > 0) problem.input = input_->function();
  initial_state(view, theta.data(), *input_, ws);
  return {};
}

template class OpenTile<float>;
template class OpenTile<double>;

Status<SolveFailure> locate_failure(Status<SolveFailure> status, const TileLayout& layout,
                                    const PreparedData& data) {
  if (status.ok()) return status;
  SolveFailure& f = status.error();
  if (f.lane >= 0 && f.lane < layout.lanes) {
    const size_t index = static_cast<size_t>(layout.samples[static_cast<size_t>(f.lane)]);
    f.sample = static_cast<int64_t>(index);
    const std::string& id = data.id(index);
    if (!id.empty()) f.message += fmt::format(" (data sample '{}')", id);
  } else {
    f.sample = -1;
    f.message += fmt::format(" (in the tile of data samples {}..)", layout.samples.front());
  }
  return status;
}

template void initial_state<float>(const ModelView<float>&, const float*, TileInput<float>&,
                                   TileWorkspace<float>&);
template void initial_state<double>(const ModelView<double>&, const double*, TileInput<double>&,
                                    TileWorkspace<double>&);
template void initial_state_vjp<float>(const ModelView<float>&, const float*, const TileLayout&,
                                       TileWorkspace<float>&);
template void initial_state_vjp<double>(const ModelView<double>&, const double*, const TileLayout&,
                                        TileWorkspace<double>&);

} // namespace plastic::rt
