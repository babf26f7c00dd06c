// RecordedForward: see recorded_forward.h. The tile loops follow predict.cpp
// (forward) and output_vjp.cpp (backward), with each tile's state kept in
// between instead of one workspace per thread.
#include "runtime/batch/recorded_forward.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <new>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "runtime/batch/ordered_sum.h"
#include "runtime/batch/output_vjp.h"
#include "runtime/batch/parallel.h"
#include "runtime/batch/prediction_rows.h"
#include "runtime/batch/tile_work.h"
#include "runtime/gradients/direct_record.h"
#include "runtime/gradients/memory_estimate.h"

namespace plastic::rt {

template <class T> struct RecordedForward<T>::Tile {
  explicit Tile(const plastic_model& model) : ws(model) {}
  TileWorkspace<T> ws;
  OpenTile<T> tile;
  std::optional<DirectRecord<T>> record; // empty: dropped for the memory limit
  SolveStats forward;
  size_t peak_bytes = 0;
};

template <class T> RecordedForward<T>::RecordedForward() = default;
template <class T> RecordedForward<T>::~RecordedForward() = default;
template <class T> RecordedForward<T>::RecordedForward(RecordedForward&&) noexcept = default;
template <class T>
RecordedForward<T>& RecordedForward<T>::operator=(RecordedForward&&) noexcept = default;

template <class T> size_t RecordedForward<T>::kept_tiles() const {
  return static_cast<size_t>(
      std::count_if(tiles_.begin(), tiles_.end(), [](const auto& t) { return t && t->record; }));
}

template <class T>
Status<SolveFailure> RecordedForward<T>::run(const plastic_model& model, const PreparedData& data,
                                             std::span<const int64_t> samples,
                                             std::span<const T> theta,
                                             const BatchOptions& options) {
  tiles_.clear();
  kept_bytes_ = 0;
  model_ = &model;
  data_ = &data;
  samples_.assign(samples.begin(), samples.end());
  theta_ = theta;
  options_ = options;
  options_.comm = nullptr;
  try {
    Result<GradientOptions, SolveFailure> method = resolve_gradient(model, options_);
    if (!method) return method.status();
    if (method.value().method != GradientMethod::Direct) {
      auto pred = predict<T>(model, data, samples_, theta, options_);
      if (!pred) return pred.error();
      predictions_ = std::move(pred.value());
      return {};
    }
    if (Status<SolveFailure> s = check_batch(model, data, samples_, theta); !s) return s;
    if (!model.kernels.output)
      return invalid_model("the model has no output kernel, so it predicts nothing");
    if (!model.kernels.output_vjp) return invalid_model("the model has no output_vjp kernel");
    if (model.kernels.init_state && !model.kernels.init_state_vjp)
      return invalid_model("the model has init_state but no init_state_vjp");
    Result<SolverOptions, SolveFailure> solver = resolve_solver(model, options_);
    if (!solver) return solver.status();
    solver_ = solver.value();
    method_ = method.value();
    double limit = keep_limit_;
    if (limit < 0) {
      const std::optional<double> available = available_memory_bytes();
      limit = available ? *available / 2 : std::numeric_limits<double>::infinity();
    }
    std::atomic<double> kept_bytes{0};
    start_predictions(model, data, std::span<const int64_t>(samples_), predictions_);

    const ModelView<T> view(model);
    const int L = view.lanes;
    const size_t count = samples_.size();
    const size_t tiles = tile_count(count, L);
    const int workers = resolve_threads(options_.threads, tiles);
    std::vector<std::unique_ptr<Tile>> kept(tiles);
    std::vector<Status<SolveFailure>> status(tiles);
    const std::span<const int64_t> all(samples_);
    parallel_for(tiles, workers, [&](size_t k, int) {
      kept[k] = std::make_unique<Tile>(model);
      Tile& t = *kept[k];
      const size_t first = k * static_cast<size_t>(L);
      const auto chunk = all.subspan(first, std::min<size_t>(L, count - first));
      if (Status<SolveFailure> st = t.tile.open(model, view, data, chunk, theta, t.ws); !st) {
        status[k] = std::move(st);
        return false;
      }
      const TileLayout& lay = t.tile.layout();
      t.ws.outputs.assign(lay.observations.size() * static_cast<size_t>(model.n_outputs * L), T{0});
      GradientResult r = t.record.emplace().forward(t.tile.problem, solver_, t.ws.z0.data(),
                                                    t.ws.outputs.data(), t.ws.lane_loss.data());
      if (!r.ok()) {
        status[k] = locate_failure(std::move(r.status), lay, data);
        return false;
      }
      // Over the limit: this tile's tape goes, and vjp() solves the tile again.
      const auto bytes = static_cast<double>(r.peak_bytes);
      if (kept_bytes.fetch_add(bytes) + bytes > limit) {
        t.record.reset();
        kept_bytes.fetch_sub(bytes);
      }
      t.forward = r.forward;
      t.peak_bytes = r.peak_bytes;
      take_tile_outputs(data, lay, chunk, first, t.ws.outputs, t.ws.lane_loss, predictions_);
      return true;
    });
    for (Status<SolveFailure>& s : status)
      if (!s) return std::move(s);
    tiles_ = std::move(kept);
    kept_bytes_ = kept_bytes.load();
  } catch (const std::bad_alloc&) {
    tiles_.clear();
    return internal_failure("out of memory in a recorded forward pass");
  } catch (const std::exception& e) {
    tiles_.clear();
    return internal_failure(std::string("exception in a recorded forward pass: ") + e.what());
  }
  return {};
}

template <class T> BatchLoss RecordedForward<T>::vjp(std::span<const T> y_bar, std::span<T> grad) {
  BatchLoss r;
  if (!model_) {
    r.status = invalid_argument("RecordedForward::vjp before run()");
    return r;
  }
  if (tiles_.empty()) // no tapes: not the direct method, or a second call
    return output_vjp<T>(*model_, *data_, samples_, theta_, y_bar, grad, options_);
  try {
    const plastic_model& model = *model_;
    const PreparedData& data = *data_;
    const size_t width = static_cast<size_t>(model.n_outputs);
    const std::vector<size_t>& first_row = predictions_.first_row;
    r.terms = static_cast<int64_t>(first_row.back());
    if (grad.size() != theta_.size() || y_bar.size() != first_row.back() * width) {
      r.status = invalid_argument(fmt::format(
          "output_vjp: grad has {} values for {} parameters, y_bar {} for {} rows of {} outputs",
          grad.size(), theta_.size(), y_bar.size(), first_row.back(), width));
      return r;
    }
    // The tapes are consumed here whatever happens: a second call re-solves.
    std::vector<std::unique_ptr<Tile>> tiles = std::move(tiles_);
    tiles_.clear();
    kept_bytes_ = 0;
    const ModelView<T> view(model);
    const int L = view.lanes;
    const size_t n = tiles.size();
    const int workers = resolve_threads(options_.threads, n);
    std::vector<Status<SolveFailure>> status(n);
    std::vector<GradientResult> stats(n);
    OrderedSum sum(theta_.size());
    parallel_for(n, workers, [&](size_t k, int) {
      Tile& t = *tiles[k];
      const TileLayout& lay = t.tile.layout();
      TileProblem<T>& p = t.tile.problem;
      std::vector<T> blocks;
      const std::vector<Observation<T>> seeded = seeded_observations<T>(
          data, lay, p.observations, first_row, k * static_cast<size_t>(L), y_bar, width, blocks);
      p.observations = seeded;
      TileWorkspace<T>& ws = t.ws;
      std::fill(ws.theta_bar.begin(), ws.theta_bar.end(), T{0});
      GradientOutputs<T> out;
      out.theta_bar = ws.theta_bar.data();
      out.z0_bar = ws.z0_bar.data();
      // The kept tape, or (dropped for the memory limit) the whole gradient
      // method on the tile as output_vjp() runs it: the same numbers.
      stats[k] = t.record ? t.record->backward(out)
                          : rt::loss_and_gradient<T>(p, solver_, method_, ws.z0.data(), out);
      if (!stats[k].ok()) {
        status[k] = locate_failure(std::move(stats[k].status), lay, data);
        return false;
      }
      initial_state_vjp(view, theta_.data(), lay, ws);
      sum.deposit(k, ws.theta_bar.data());
      tiles[k].reset(); // the tape's memory back as soon as the tile is done
      return true;
    });
    for (size_t k = 0; k < n; ++k)
      if (!status[k]) {
        r.status = std::move(status[k]);
        return r;
      }
    r.samples = static_cast<int64_t>(samples_.size());
    r.tiles = static_cast<int64_t>(n);
    for (const GradientResult& s : stats) {
      r.forward += s.forward;
      r.backward += s.backward;
      r.peak_bytes = std::max(r.peak_bytes, s.peak_bytes);
    }
    const std::vector<double>& g = sum.sum();
    for (size_t i = 0; i < grad.size(); ++i)
      grad[i] += static_cast<T>(g[i]);
  } catch (const std::bad_alloc&) {
    r.status = internal_failure("out of memory computing an output VJP");
  } catch (const std::exception& e) {
    r.status = internal_failure(std::string("exception in an output VJP: ") + e.what());
  }
  return r;
}

template class RecordedForward<float>;
template class RecordedForward<double>;

} // namespace plastic::rt
