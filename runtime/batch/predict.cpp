// predict() and evaluate(): forward solves over tiles, then the task's metric.
#include "runtime/batch/predict.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <exception>
#include <memory>
#include <new>

#include <fmt/format.h>

#include "runtime/batch/batch_gradient.h"
#include "runtime/batch/parallel.h"
#include "runtime/batch/prediction_rows.h"
#include "runtime/batch/tile_shard.h"
#include "runtime/batch/tile_work.h"
#include "runtime/solvers/solve.h"
#include "runtime/train/metrics.h"

namespace plastic::rt {

namespace {

/// Every rank filled the rows and losses of its own tiles and left the rest
/// 0: summing the ranks' vectors gives every rank all of them, exactly (one
/// rank holds a value, the others 0; a -0 output comes back as +0).
template <class T> void share_predictions(Communicator& comm, Predictions<T>& pr) {
  std::vector<double> mine(pr.outputs.size() + pr.loss_sum.size());
  std::copy(pr.outputs.begin(), pr.outputs.end(), mine.begin());
  std::copy(pr.loss_sum.begin(), pr.loss_sum.end(),
            mine.begin() + static_cast<std::ptrdiff_t>(pr.outputs.size()));
  const std::vector<double> all = comm.ordered_sum(mine, mine.size());
  for (size_t i = 0; i < pr.outputs.size(); ++i)
    pr.outputs[i] = static_cast<T>(all[i]);
  std::copy(all.begin() + static_cast<std::ptrdiff_t>(pr.outputs.size()), all.end(),
            pr.loss_sum.begin());
}

template <class T>
Status<SolveFailure> predict_into(const plastic_model& model, const PreparedData& data,
                                  std::span<const int64_t> samples, std::span<const T> theta,
                                  const BatchOptions& options, Predictions<T>& pr) {
  if (Status<SolveFailure> s = check_batch(model, data, samples, theta); !s) return s;
  if (!model.kernels.output)
    return invalid_model("the model has no output kernel, so it predicts nothing");
  Result<SolverOptions, SolveFailure> solver = resolve_solver(model, options);
  if (!solver) return solver.status();

  const size_t count = samples.size();
  start_predictions(model, data, samples, pr);
  const size_t o = static_cast<size_t>(pr.width);

  const ModelView<T> view(model);
  const int L = view.lanes;
  const int per_tile = options.series_alone ? 1 : L; // series per tile
  const TileShard shard(options.comm, tile_count(count, per_tile));
  const size_t mine = shard.range.size(); // tiles of this rank: range.first + i
  const int workers = resolve_threads(options.threads, mine);
  std::vector<std::unique_ptr<TileWorkspace<T>>> spaces(static_cast<size_t>(workers));
  std::vector<Status<SolveFailure>> status(mine);
  parallel_for(mine, workers, [&](size_t i, int w) {
    const size_t k = shard.range.first + i;
    auto& space = spaces[static_cast<size_t>(w)];
    if (!space) space = std::make_unique<TileWorkspace<T>>(model);
    TileWorkspace<T>& ws = *space;
    const size_t first = k * static_cast<size_t>(per_tile);
    const auto chunk = samples.subspan(first, std::min<size_t>(per_tile, count - first));
    OpenTile<T> tile;
    if (Status<SolveFailure> st = tile.open(model, view, data, chunk, theta, ws); !st) {
      status[i] = std::move(st);
      return false;
    }
    const TileLayout& lay = tile.layout();
    TileProblem<T>& p = tile.problem;
    const size_t block = o * static_cast<size_t>(L);
    ws.outputs.assign(lay.observations.size() * block, T{0});
    std::fill(ws.lane_loss.begin(), ws.lane_loss.end(), 0.0);
    SolveResult sr = solve(p, solver.value(), ws.z0.data(), ws.outputs.data(), ws.lane_loss.data());
    if (!sr.ok()) {
      status[i] = locate_failure(std::move(sr.status), lay, data);
      return false;
    }
    take_tile_outputs(data, lay, chunk, first, ws.outputs, ws.lane_loss, pr);
    return true;
  });
  if (Status<SolveFailure> s = agree_on_failure(shard, status); !s) return s;
  if (shard.distributed()) share_predictions(*shard.comm, pr);
  return {};
}

} // namespace

template <class T>
void start_predictions(const plastic_model& model, const PreparedData& data,
                       std::span<const int64_t> samples, Predictions<T>& pr) {
  const size_t count = samples.size();
  pr.width = model.n_outputs;
  pr.samples.assign(samples.begin(), samples.end());
  pr.first_row.assign(count + 1, 0);
  for (size_t i = 0; i < count; ++i)
    pr.first_row[i + 1] =
        pr.first_row[i] +
        static_cast<size_t>(data.sample(static_cast<size_t>(samples[i])).readouts);
  const size_t rows = pr.first_row[count];
  pr.times.assign(rows, 0.0);
  pr.outputs.assign(rows * static_cast<size_t>(pr.width), T{0});
  pr.loss_sum.assign(count, 0.0);
  pr.terms.assign(count, 0);
  for (size_t i = 0; i < count; ++i) {
    const PreparedSample& s = data.sample(static_cast<size_t>(samples[i]));
    pr.terms[i] = s.target_terms;
    for (const SampleObservation& ob : s.observations)
      if (ob.readout >= 0)
        pr.times[pr.first_row[i] + static_cast<size_t>(ob.readout)] = ob.t + s.shift;
  }
}

template <class T>
void take_tile_outputs(const PreparedData& data, const TileLayout& layout,
                       std::span<const int64_t> chunk, size_t first, const std::vector<T>& outputs,
                       const std::vector<double>& lane_loss, Predictions<T>& pr) {
  const size_t o = static_cast<size_t>(pr.width);
  const size_t L = static_cast<size_t>(layout.lanes);
  const size_t block = o * L;
  for (size_t l = 0; l < chunk.size(); ++l) {
    const size_t pos = first + l;
    const PreparedSample& s = data.sample(static_cast<size_t>(chunk[l]));
    pr.loss_sum[pos] = lane_loss[l];
    for (size_t ob = 0; ob < layout.observations.size(); ++ob) {
      const int32_t r = layout.row(ob, static_cast<int>(l));
      if (r < 0) continue;
      const int32_t ro = s.observations[static_cast<size_t>(r)].readout;
      if (ro < 0) continue;
      T* dst = pr.outputs.data() + (pr.first_row[pos] + static_cast<size_t>(ro)) * o;
      for (size_t c = 0; c < o; ++c)
        dst[c] = outputs[ob * block + c * L + l];
    }
  }
}

namespace {

SolveFailure metric_failure(const TrainError& e) {
  return invalid_argument("cannot compute the metric: " + e.describe());
}

} // namespace

template <class T>
Result<Predictions<T>, SolveFailure>
predict(const plastic_model& model, const PreparedData& data, std::span<const int64_t> samples,
        std::span<const T> theta, const BatchOptions& options) {
  Predictions<T> pr;
  Status<SolveFailure> s;
  try {
    s = predict_into(model, data, samples, theta, options, pr);
  } catch (const std::bad_alloc&) {
    s = internal_failure("out of memory while predicting");
  } catch (const std::exception& e) {
    s = internal_failure(std::string("exception while predicting: ") + e.what());
  }
  if (!s) return s.error();
  return pr;
}

MetricInfo task_metric(int32_t task) {
  switch (task) {
  case PLASTIC_TASK_CLASSIFICATION:
    return {"accuracy", MetricMode::Max};
  case PLASTIC_TASK_BINARY:
    return {"auroc", MetricMode::Max};
  default:
    return {"mse", MetricMode::Min};
  }
}

std::vector<int64_t> all_samples(const PreparedData& data) {
  std::vector<int64_t> v(data.size());
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<int64_t>(i);
  return v;
}

template <class T>
Result<Evaluation, SolveFailure> evaluate(const plastic_model& model, const PreparedData& data,
                                          std::span<const int64_t> samples,
                                          std::span<const T> theta, const BatchOptions& options) {
  if (!data.targets().has_targets)
    return invalid_argument("the data has no targets to evaluate against");
  Result<Predictions<T>, SolveFailure> pred = predict(model, data, samples, theta, options);
  if (!pred) return pred.error();
  const Predictions<T>& pr = pred.value();
  Evaluation ev;
  ev.samples = static_cast<int64_t>(samples.size());
  ev.metric_name = task_metric(model.task).name;
  double loss = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    loss += pr.loss_sum[i];
    ev.terms += pr.terms[i];
  }
  ev.loss = ev.terms ? loss / static_cast<double>(ev.terms) : ev.loss;

  const size_t o = static_cast<size_t>(pr.width);
  if (model.task == PLASTIC_TASK_CLASSIFICATION || model.task == PLASTIC_TASK_BINARY) {
    std::vector<int64_t> labels(samples.size());
    for (size_t i = 0; i < samples.size(); ++i)
      labels[i] = data.label(static_cast<size_t>(samples[i]));
    if (pr.rows() != samples.size())
      return invalid_argument("classification metrics need one output row per sample");
    Result<double, TrainError> m =
        model.task == PLASTIC_TASK_CLASSIFICATION
            ? accuracy_from_logits<T>(pr.outputs, pr.width, labels)
            : (o == 1 ? auroc<T>(pr.outputs, labels)
                      : Result<double, TrainError>(invalid_argument_error(
                            fmt::format("AUROC needs one score per sample; the model "
                                        "has {} outputs",
                                        o))));
    if (m) {
      ev.metric = m.value();
    } else if (m.error().kind == TrainErrorKind::Undefined) {
      ev.note = m.error().message;
    } else {
      return metric_failure(m.error());
    }
    if (model.task == PLASTIC_TASK_CLASSIFICATION) {
      ev.accuracy = ev.metric;
    } else if (o == 1 && !labels.empty()) {
      Result<double, TrainError> a = binary_accuracy<T>(pr.outputs, labels);
      if (!a) return metric_failure(a.error());
      ev.accuracy = a.value();
    }
    return ev;
  }
  // Regression: outputs against the targets at every readout row that has one.
  const size_t g = static_cast<size_t>(data.targets().width);
  if (o != g)
    return invalid_argument(fmt::format(
        "MSE compares outputs with targets, but the model has {} outputs and {} targets", o, g));
  std::vector<T> predicted, target;
  for (size_t i = 0; i < samples.size(); ++i) {
    const PreparedSample& s = data.sample(static_cast<size_t>(samples[i]));
    for (const SampleObservation& ob : s.observations) {
      if (ob.readout < 0 || ob.target < 0) continue;
      std::span<const T> y = pr.row(pr.first_row[i] + static_cast<size_t>(ob.readout));
      predicted.insert(predicted.end(), y.begin(), y.end());
      for (size_t c = 0; c < g; ++c)
        target.push_back(static_cast<T>(s.targets[static_cast<size_t>(ob.target) * g + c]));
    }
  }
  if (predicted.empty()) {
    ev.note = "no observation of these samples has a target";
    return ev;
  }
  Result<double, TrainError> m = mse<T>(predicted, target);
  if (!m) return metric_failure(m.error());
  ev.metric = m.value();
  return ev;
}

template Result<Predictions<float>, SolveFailure>
predict<float>(const plastic_model&, const PreparedData&, std::span<const int64_t>,
               std::span<const float>, const BatchOptions&);
template Result<Predictions<double>, SolveFailure>
predict<double>(const plastic_model&, const PreparedData&, std::span<const int64_t>,
                std::span<const double>, const BatchOptions&);
template Result<Evaluation, SolveFailure> evaluate<float>(const plastic_model&, const PreparedData&,
                                                          std::span<const int64_t>,
                                                          std::span<const float>,
                                                          const BatchOptions&);
template Result<Evaluation, SolveFailure>
evaluate<double>(const plastic_model&, const PreparedData&, std::span<const int64_t>,
                 std::span<const double>, const BatchOptions&);

template void start_predictions<float>(const plastic_model&, const PreparedData&,
                                       std::span<const int64_t>, Predictions<float>&);
template void start_predictions<double>(const plastic_model&, const PreparedData&,
                                        std::span<const int64_t>, Predictions<double>&);
template void take_tile_outputs<float>(const PreparedData&, const TileLayout&,
                                       std::span<const int64_t>, size_t, const std::vector<float>&,
                                       const std::vector<double>&, Predictions<float>&);
template void take_tile_outputs<double>(const PreparedData&, const TileLayout&,
                                        std::span<const int64_t>, size_t,
                                        const std::vector<double>&, const std::vector<double>&,
                                        Predictions<double>&);

} // namespace plastic::rt
