// loss_and_gradient() over a batch: tiles on threads, ordered reduction.
#include "runtime/batch/batch_gradient.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "runtime/batch/ordered_sum.h"
#include "runtime/batch/parallel.h"
#include "runtime/batch/tile_shard.h"
#include "runtime/batch/tile_work.h"
#include "runtime/gradients/gradient.h"

namespace plastic::rt {

template <class T>
Status<SolveFailure> check_batch(const plastic_model& model, const PreparedData& data,
                                 std::span<const int64_t> samples, std::span<const T> theta) {
  if (Status<SolveFailure> s = validate_model(model, dtype_of<T>()); !s) return s;
  if (Status<SolveFailure> s = data.check_model(model); !s) return s;
  if (theta.size() != static_cast<size_t>(model.n_params))
    return invalid_argument(fmt::format("theta has {} values; the model has {} parameters",
                                        theta.size(), model.n_params));
  if (samples.empty()) return invalid_argument("the batch has no samples");
  for (int64_t s : samples)
    if (s < 0 || static_cast<size_t>(s) >= data.size())
      return invalid_argument(
          fmt::format("sample index {} is outside the data set of {} samples", s, data.size()));
  return {};
}

template <class T>
BatchLoss loss_and_gradient(const plastic_model& model, const PreparedData& data,
                            std::span<const int64_t> samples, std::span<const T> theta,
                            std::span<T> grad, const BatchOptions& options) noexcept {
  BatchLoss r;
  try {
    r.status = check_batch(model, data, samples, theta);
    if (!r.status) return r;
    if (grad.size() != theta.size()) {
      r.status = invalid_argument(fmt::format("grad has {} values; the model has {} parameters",
                                              grad.size(), theta.size()));
      return r;
    }
    Result<SolverOptions, SolveFailure> solver = resolve_solver(model, options);
    Result<GradientOptions, SolveFailure> method = resolve_gradient(model, options);
    if (!solver || !method) {
      r.status = !solver ? solver.status() : method.status();
      return r;
    }
    if (model.kernels.init_state && !model.kernels.init_state_vjp) {
      r.status = invalid_model("the model has init_state but no init_state_vjp, needed for "
                               "gradients");
      return r;
    }
    for (int64_t s : samples)
      r.terms += data.sample(static_cast<size_t>(s)).target_terms;
    if (r.terms == 0) {
      r.status = invalid_argument(
          fmt::format("none of the {} samples of the batch has a target", samples.size()),
          "training needs labelled data (prepare it with require_targets)");
      return r;
    }

    const ModelView<T> view(model);
    const int L = view.lanes;
    const TileShard shard(options.comm, tile_count(samples.size(), L));
    const size_t mine = shard.range.size(); // tiles of this rank: range.first + i
    const int workers = resolve_threads(options.threads, mine);
    std::vector<std::unique_ptr<TileWorkspace<T>>> spaces(static_cast<size_t>(workers));
    std::vector<Status<SolveFailure>> status(mine);
    std::vector<double> tile_loss(mine, 0.0);
    std::vector<GradientResult> stats(mine);
    // One process sums its tiles as they finish (in order, ordered_sum.h);
    // a rank of several keeps its tiles' gradients (and losses, the last
    // value of each) for the ranks' ordered sum after the loop.
    const size_t width = theta.size() + 1;
    std::optional<OrderedSum> sum;
    std::vector<double> kept;
    if (shard.distributed())
      kept.assign(mine * width, 0.0);
    else
      sum.emplace(theta.size());

    parallel_for(mine, workers, [&](size_t i, int w) {
      const size_t k = shard.range.first + i;
      auto& space = spaces[static_cast<size_t>(w)];
      if (!space) space = std::make_unique<TileWorkspace<T>>(model);
      TileWorkspace<T>& ws = *space;
      const size_t first = k * static_cast<size_t>(L);
      const auto chunk = samples.subspan(first, std::min<size_t>(L, samples.size() - first));
      OpenTile<T> tile;
      if (Status<SolveFailure> st = tile.open(model, view, data, chunk, theta, ws); !st) {
        status[i] = std::move(st);
        return false;
      }
      const TileLayout& lay = tile.layout();
      TileProblem<T>& p = tile.problem;

      std::fill(ws.theta_bar.begin(), ws.theta_bar.end(), T{0});
      GradientOutputs<T> out;
      out.theta_bar = ws.theta_bar.data();
      out.z0_bar = ws.z0_bar.data();
      out.loss = ws.lane_loss.data();
      stats[i] = rt::loss_and_gradient<T>(p, solver.value(), method.value(), ws.z0.data(), out);
      if (!stats[i].ok()) {
        status[i] = locate_failure(std::move(stats[i].status), lay, data);
        return false;
      }
      initial_state_vjp(view, theta.data(), lay, ws);
      double loss = 0;
      for (int l = 0; l < L; ++l)
        if (has_lane(lay.real, l)) loss += ws.lane_loss[static_cast<size_t>(l)];
      tile_loss[i] = loss;
      if (sum) {
        sum->deposit(k, ws.theta_bar.data());
      } else {
        double* dst = kept.data() + i * width;
        for (size_t j = 0; j < theta.size(); ++j)
          dst[j] = static_cast<double>(ws.theta_bar[j]);
        dst[theta.size()] = loss;
      }
      return true;
    });

    r.status = agree_on_failure(shard, status);
    if (!r.status) return r;
    r.samples = static_cast<int64_t>(samples.size());
    r.tiles = static_cast<int64_t>(shard.tiles);
    for (size_t i = 0; i < mine; ++i) { // this rank's tiles only
      r.forward += stats[i].forward;
      r.backward += stats[i].backward;
      r.peak_bytes = std::max(r.peak_bytes, stats[i].peak_bytes);
    }
    std::vector<double> g;
    if (sum) {
      for (size_t i = 0; i < mine; ++i)
        r.loss_sum += tile_loss[i];
      g = sum->sum();
    } else {
      g = shard.comm->ordered_sum(kept, width);
      r.loss_sum = g.back();
    }
    const double terms = static_cast<double>(r.terms);
    r.loss = r.loss_sum / terms;
    for (size_t i = 0; i < grad.size(); ++i)
      grad[i] += static_cast<T>(g[i] / terms);
  } catch (const std::bad_alloc&) {
    r.status = internal_failure("out of memory computing a batch gradient");
  } catch (const std::exception& e) {
    r.status = internal_failure(std::string("exception in a batch gradient: ") + e.what());
  } catch (...) {
    r.status = internal_failure("unknown exception in a batch gradient");
  }
  return r;
}

template Status<SolveFailure> check_batch<float>(const plastic_model&, const PreparedData&,
                                                 std::span<const int64_t>, std::span<const float>);
template Status<SolveFailure> check_batch<double>(const plastic_model&, const PreparedData&,
                                                  std::span<const int64_t>,
                                                  std::span<const double>);
template BatchLoss loss_and_gradient<float>(const plastic_model&, const PreparedData&,
                                            std::span<const int64_t>, std::span<const float>,
                                            std::span<float>, const BatchOptions&) noexcept;
template BatchLoss loss_and_gradient<double>(const plastic_model&, const PreparedData&,
                                             std::span<const int64_t>, std::span<const double>,
                                             std::span<double>, const BatchOptions&) noexcept;

} // namespace plastic::rt
