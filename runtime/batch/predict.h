// Forward passes over a set of samples: the model's outputs, per-sample
// losses, and the task's metric — what validation and `plastic eval` call.
//
// predict() solves each tile once (runtime/solvers solve(), no tape) and
// reports, per sample, the outputs at its readout observations: one row at
// the final time (READOUT_FINAL) or one row per data time
// (EACH_OBSERVATION), with the data's own (unshifted) times, and the
// sample's summed loss over its observations with a target.
//
// evaluate() adds the mean loss (over (sample, observation-with-target)
// pairs, the training loss's normalisation) and the metric of the task
// (runtime/train/metrics.h): accuracy of the argmax (classification), exact
// AUROC of the score (binary), MSE over the observed targets (regression).
// A metric that is undefined for the data (AUROC with one class present) is
// NaN with a note, not a failure.
//
// With options.comm over several ranks, each rank solves a contiguous range
// of the tiles and every rank ends with all predictions (tile_shard.h); the
// loss and metric are then computed alike on every rank.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "runtime/batch/batch_options.h"
#include "runtime/batch/prepared_data.h"
#include "runtime/support/metric_mode.h"

namespace plastic::rt {

template <class T> struct Predictions {
  int64_t width = 0;             ///< outputs per row (n_outputs)
  std::vector<int64_t> samples;  ///< the data set indices asked for, in order
  std::vector<size_t> first_row; ///< sample i owns rows [first_row[i], first_row[i+1])
  std::vector<double> times;     ///< per row: the data's time of the readout
  std::vector<T> outputs;        ///< rows x width
  std::vector<double> loss_sum;  ///< per sample: summed loss over its observations with a target
  std::vector<int64_t> terms;    ///< per sample: observations with a target

  size_t rows() const { return times.size(); }
  std::span<const T> row(size_t r) const {
    return {outputs.data() + r * static_cast<size_t>(width), static_cast<size_t>(width)};
  }
  /// Mean loss of sample i over its targeted observations (NaN without targets).
  double sample_loss(size_t i) const {
    return terms[i] ? loss_sum[i] / static_cast<double>(terms[i])
                    : std::numeric_limits<double>::quiet_NaN();
  }
};

template <class T>
Result<Predictions<T>, SolveFailure>
predict(const plastic_model& model, const PreparedData& data, std::span<const int64_t> samples,
        std::span<const T> theta, const BatchOptions& options = {});

struct Evaluation {
  double loss = std::numeric_limits<double>::quiet_NaN(); ///< mean over (sample, target) pairs
  double metric = std::numeric_limits<double>::quiet_NaN();
  std::string metric_name; ///< "accuracy", "auroc", "mse"
  /// Classification: the metric; binary: the logit's sign against the label
  /// (what Kidger et al.'s loop selects by); regression: NaN.
  double accuracy = std::numeric_limits<double>::quiet_NaN();
  std::string note; ///< why the metric is NaN, when it is
  int64_t samples = 0;
  int64_t terms = 0;
};

template <class T>
Result<Evaluation, SolveFailure>
evaluate(const plastic_model& model, const PreparedData& data, std::span<const int64_t> samples,
         std::span<const T> theta, const BatchOptions& options = {});

/// The metric of a task and whether larger is better (for TrainConfig).
struct MetricInfo {
  const char* name;
  MetricMode mode;
};
MetricInfo task_metric(int32_t task);

/// 0, 1, ..., n-1: "every sample" for predict and evaluate.
std::vector<int64_t> all_samples(const PreparedData& data);

extern template Result<Predictions<float>, SolveFailure>
predict<float>(const plastic_model&, const PreparedData&, std::span<const int64_t>,
               std::span<const float>, const BatchOptions&);
extern template Result<Predictions<double>, SolveFailure>
predict<double>(const plastic_model&, const PreparedData&, std::span<const int64_t>,
                std::span<const double>, const BatchOptions&);
extern template Result<Evaluation, SolveFailure>
evaluate<float>(const plastic_model&, const PreparedData&, std::span<const int64_t>,
                std::span<const float>, const BatchOptions&);
extern template Result<Evaluation, SolveFailure>
evaluate<double>(const plastic_model&, const PreparedData&, std::span<const int64_t>,
                 std::span<const double>, const BatchOptions&);

} // namespace plastic::rt
