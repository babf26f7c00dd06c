// output_vjp() over a batch: tiles on threads, ordered reduction (see
// output_vjp.h; the tile loop follows batch_gradient.cpp).
#include "runtime/batch/output_vjp.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "runtime/batch/ordered_sum.h"
#include "runtime/batch/parallel.h"
#include "runtime/batch/tile_work.h"
#include "runtime/gradients/gradient.h"

namespace plastic::rt {

template <class T>
std::vector<Observation<T>>
seeded_observations(const PreparedData& data, const TileLayout& lay,
                    std::span<const Observation<T>> given, std::span<const size_t> first_row,
                    size_t first, std::span<const T> y_bar, size_t width, std::vector<T>& blocks) {
  const size_t L = static_cast<size_t>(lay.lanes);
  const size_t block = width * L;
  blocks.assign(lay.observations.size() * block, T{0});
  std::vector<Observation<T>> out(given.begin(), given.end());
  for (size_t k = 0; k < lay.observations.size(); ++k) {
    Observation<T>& obs = out[k];
    obs.target = nullptr;
    obs.loss_lanes = 0;
    for (size_t l = 0; l < L; ++l) {
      if (!has_lane(lay.real, static_cast<int>(l))) continue;
      const int32_t r = lay.row(k, static_cast<int>(l));
      if (r < 0) continue;
      const PreparedSample& s = data.sample(static_cast<size_t>(lay.samples[l]));
      const int32_t ro = s.observations[static_cast<size_t>(r)].readout;
      if (ro < 0) continue;
      const T* src = y_bar.data() + (first_row[first + l] + static_cast<size_t>(ro)) * width;
      for (size_t c = 0; c < width; ++c)
        blocks[k * block + c * L + l] = src[c];
      obs.loss_lanes |= LaneMask{1} << l;
    }
    if (obs.loss_lanes) obs.output_bar = blocks.data() + k * block;
  }
  return out;
}

template <class T>
BatchLoss output_vjp(const plastic_model& model, const PreparedData& data,
                     std::span<const int64_t> samples, std::span<const T> theta,
                     std::span<const T> y_bar, std::span<T> grad,
                     const BatchOptions& options) noexcept {
  BatchLoss r;
  try {
    r.status = check_batch(model, data, samples, theta);
    if (!r.status) return r;
    const size_t width = static_cast<size_t>(model.n_outputs);
    std::vector<size_t> first_row(samples.size() + 1, 0);
    for (size_t i = 0; i < samples.size(); ++i)
      first_row[i + 1] =
          first_row[i] + static_cast<size_t>(data.sample(static_cast<size_t>(samples[i])).readouts);
    r.terms = static_cast<int64_t>(first_row.back());
    if (grad.size() != theta.size() || y_bar.size() != first_row.back() * width) {
      r.status = invalid_argument(fmt::format(
          "output_vjp: grad has {} values for {} parameters, y_bar {} for {} rows of {} outputs",
          grad.size(), theta.size(), y_bar.size(), first_row.back(), width));
      return r;
    }
    if (!model.kernels.output_vjp) {
      r.status = invalid_model("the model has no output_vjp kernel");
      return r;
    }
    Result<SolverOptions, SolveFailure> solver = resolve_solver(model, options);
    Result<GradientOptions, SolveFailure> method = resolve_gradient(model, options);
    if (!solver || !method) {
      r.status = !solver ? solver.status() : method.status();
      return r;
    }
    if (model.kernels.init_state && !model.kernels.init_state_vjp) {
      r.status = invalid_model("the model has init_state but no init_state_vjp");
      return r;
    }

    const ModelView<T> view(model);
    const int L = view.lanes;
    const size_t tiles = tile_count(samples.size(), L);
    const int workers = resolve_threads(options.threads, tiles);
    std::vector<std::unique_ptr<TileWorkspace<T>>> spaces(static_cast<size_t>(workers));
    std::vector<std::vector<T>> blocks(static_cast<size_t>(workers));
    std::vector<Status<SolveFailure>> status(tiles);
    std::vector<GradientResult> stats(tiles);
    OrderedSum sum(theta.size());

    parallel_for(tiles, workers, [&](size_t k, int w) {
      auto& space = spaces[static_cast<size_t>(w)];
      if (!space) space = std::make_unique<TileWorkspace<T>>(model);
      TileWorkspace<T>& ws = *space;
      const size_t first = k * static_cast<size_t>(L);
      const auto chunk = samples.subspan(first, std::min<size_t>(L, samples.size() - first));
      OpenTile<T> tile;
      if (Status<SolveFailure> st = tile.open(model, view, data, chunk, theta, ws); !st) {
        status[k] = std::move(st);
        return false;
      }
      const TileLayout& lay = tile.layout();
      TileProblem<T>& p = tile.problem;
      const std::vector<Observation<T>> seeded =
          seeded_observations<T>(data, lay, p.observations, first_row, first, y_bar, width,
                                 blocks[static_cast<size_t>(w)]);
      p.observations = seeded;

      std::fill(ws.theta_bar.begin(), ws.theta_bar.end(), T{0});
      GradientOutputs<T> out;
      out.theta_bar = ws.theta_bar.data();
      out.z0_bar = ws.z0_bar.data();
      stats[k] = rt::loss_and_gradient<T>(p, solver.value(), method.value(), ws.z0.data(), out);
      if (!stats[k].ok()) {
        status[k] = locate_failure(std::move(stats[k].status), lay, data);
        return false;
      }
      initial_state_vjp(view, theta.data(), lay, ws);
      sum.deposit(k, ws.theta_bar.data());
      return true;
    });

    for (size_t k = 0; k < tiles; ++k)
      if (!status[k]) {
        r.status = std::move(status[k]);
        return r;
      }
    r.samples = static_cast<int64_t>(samples.size());
    r.tiles = static_cast<int64_t>(tiles);
    for (size_t k = 0; k < tiles; ++k) {
      r.forward += stats[k].forward;
      r.backward += stats[k].backward;
      r.peak_bytes = std::max(r.peak_bytes, stats[k].peak_bytes);
    }
    const std::vector<double>& g = sum.sum();
    for (size_t i = 0; i < grad.size(); ++i)
      grad[i] += static_cast<T>(g[i]);
  } catch (const std::bad_alloc&) {
    r.status = internal_failure("out of memory computing an output VJP");
  } catch (const std::exception& e) {
    r.status = internal_failure(std::string("exception in an output VJP: ") + e.what());
  } catch (...) {
    r.status = internal_failure("unknown exception in an output VJP");
  }
  return r;
}

template BatchLoss output_vjp<float>(const plastic_model&, const PreparedData&,
                                     std::span<const int64_t>, std::span<const float>,
                                     std::span<const float>, std::span<float>,
                                     const BatchOptions&) noexcept;
template BatchLoss output_vjp<double>(const plastic_model&, const PreparedData&,
                                      std::span<const int64_t>, std::span<const double>,
                                      std::span<const double>, std::span<double>,
                                      const BatchOptions&) noexcept;

template std::vector<Observation<float>>
seeded_observations<float>(const PreparedData&, const TileLayout&,
                           std::span<const Observation<float>>, std::span<const size_t>, size_t,
                           std::span<const float>, size_t, std::vector<float>&);
template std::vector<Observation<double>>
seeded_observations<double>(const PreparedData&, const TileLayout&,
                            std::span<const Observation<double>>, std::span<const size_t>, size_t,
                            std::span<const double>, size_t, std::vector<double>&);

} // namespace plastic::rt
