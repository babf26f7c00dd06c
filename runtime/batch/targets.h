// What a model is asked to predict for one sample, and when: the encoding of
// the Dataset's targets for the model's task and the sample's observation
// schedule for its readout.
//
// Encoding (abi.h `plastic_task`):
//  * CLASSIFICATION: a one-hot row of n_targets = classes entries;
//  * BINARY: one entry, the 0/1 label;
//  * REGRESSION: the target values, at the final time (Regression data) or
//    at every observation (RegressionPerStep data, one row per data time).
//    A row holding any NaN has no target: the lane is not observed there.
//    (The ABI loss takes a whole row, so a partly missing row cannot be
//    half-masked; it is dropped, and PreparedData counts such rows.)
// Schedule:
//  * READOUT_FINAL: one observation at the sample's last time, with the
//    target;
//  * EACH_OBSERVATION: an observation at every data time (targets where the
//    data has them: every row for per-step regression, the last row for
//    final-time targets);
//  * a model with a jump kernel observes every data time with jump = true,
//    whatever the readout (targets as the readout says).
// Classification and binary targets at every observation (one label per
// sample) are refused rather than guessed.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/abi.h"
#include "runtime/data/dataset.h"
#include "runtime/solvers/status.h"

namespace plastic::rt {

/// One observation of one sample.
struct SampleObservation {
  double t = 0;         ///< in the sample's (shifted) solve time
  int32_t target = -1;  ///< row of PreparedSample::targets, or -1: no loss here
  int32_t readout = -1; ///< row of the sample's predictions, or -1: output not reported
  bool jump = false;
};

/// How the targets of a data set map onto the model (checked once).
struct TargetPlan {
  int32_t task = 0;
  int32_t readout = 0;
  int64_t width = 0;        ///< n_targets
  bool has_targets = false; ///< false: the data is unlabelled (prediction only)
  bool jumps = false;       ///< the model has a jump kernel
};

/// Checks the data's target kind and sizes against the model's task, readout and n_targets.
Result<TargetPlan, SolveFailure> plan_targets(const plastic_model& model, const Dataset& data);

/// The sample's observations (times already shifted by `shift`) and its
/// encoded target rows; `partly_missing` counts rows dropped for a NaN in some
/// (not all) of their entries.
void schedule_sample(const TargetPlan& plan, const Dataset& data, const Sample& sample,
                     double shift, std::vector<SampleObservation>& observations,
                     std::vector<double>& targets, int64_t& partly_missing);

} // namespace plastic::rt
